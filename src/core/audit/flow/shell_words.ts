/**
 * Shell text read into pipelines of simple commands whose words are expanded with what the
 * script assigned before them (constant folding: `c=cu; r=rl; $c$r` is `curl`) and carry
 * labels (an unassigned `$GITHUB_TOKEN` is the environment; `$(cat ~/.ssh/id_rsa)` is a
 * credential file). Quoting, `$(…)`, backticks, `<(…)`, `${…}` and heredocs are understood;
 * control flow is read as a list of commands. shell_flow.ts gives the commands meaning.
 */

import type { Label } from "./vocabulary.ts";

export interface Word {
  /** The word with what is known expanded; unknown expansions kept as `$NAME`. */
  text: string;
  /** Whether every part of it is known. */
  known: boolean;
  /** Built from two or more pieces (`$c$r`, `"c""url"`, a variable that was). */
  assembled: boolean;
  labels: Set<Label>;
  /** `<(…)`: a file whose content is the labels. */
  fileOf?: boolean;
}

interface Redirect {
  op: string;
  target: Word;
  /** The descriptor written before the operator (`3<`), when one is. */
  fd?: number;
}

export interface Command {
  words: Word[];
  redirects: Redirect[];
  at: number;
  /** Pipes into the next command of its pipeline. */
  piped: boolean;
  /**
   * The subshells opened and closed before this command, and a pipe after a close, in order
   * (`(`, `)`, `|`): `curl … | (cd x && sh)` opens one, `(curl …; echo) | sh` closes one and
   * pipes its output on.
   */
  groups: string;
  /** A heredoc's body: what the command reads on stdin. */
  heredoc?: string;
  /**
   * `(( … ))`: an arithmetic expression, not a command line (its substitutions are still
   * commands, and are read as such).
   */
  arithmetic?: true;
}

/** How `$(…)` and `<(…)` are evaluated: the labels (and known text) of their output. */
type Substitute = (inner: string, offset: number) => { labels: Set<Label>; text?: string };

export interface ShellVars {
  get(
    name: string,
  ):
    | {
      value?: string;
      partial?: string;
      labels: Set<Label>;
      assembled: boolean;
      indirect?: ReadonlySet<Label>;
    }
    | undefined;
}

/** The longest text a word is folded to; past it the word is unknown. */
export const MAX_VALUE = 4096;

const META = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);

export class ShellReader {
  #i = 0;
  constructor(
    readonly text: string,
    readonly vars: ShellVars,
    readonly substitute: Substitute,
    readonly envLabel: (name: string) => Label | undefined,
  ) {}

  /** The next command, or undefined at the end. Assignments are commands without words. */
  next(): (Command & { assignments: [string, Word][] }) | undefined {
    const t = this.text;
    const groups = this.#skipSeparators();
    if (this.#i >= t.length) return undefined;
    if (this.#pattern) {
      this.#pattern = false;
      // A case's patterns (`uvx|pipx|curl) ;;`) are words to match, not a pipeline to run.
      if (!/^esac(?![\w-])/.test(t.slice(this.#i, this.#i + 5))) {
        this.#skipPattern();
        return this.next();
      }
    }
    const at = this.#i;
    // The separators just read end with `((`: this command is an arithmetic one.
    let arithmetic = /\(\([ \t]*$/.test(t.slice(Math.max(0, at - 16), at));
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    const assignments: [string, Word][] = [];
    let heredoc: string | undefined;
    /** `[[` tests open among the words so far. */
    let tests = 0;
    while (this.#i < t.length) {
      const c = t[this.#i]!;
      if (c === " " || c === "\t" || (c === "\\" && t[this.#i + 1] === "\n")) {
        this.#i += c === "\\" ? 2 : 1;
        continue;
      }
      // Inside `[[ … ]]` a test's operands: `(`, `|`, `&&`, `<` belong to its expression
      // (`[[ $x =~ ([a-z]+)\( ]]`), none starts a subshell, a pipe or a redirect.
      this.#test = tests > 0;
      if (
        c === "\n" || c === ";" ||
        (!this.#test && (c === "&" || c === "|" || c === ")" ||
          (c === "(" && t[this.#i + 1] !== "(")))
      ) break;
      if (!this.#test && this.#redirect(redirects)) continue;
      const assign = words.length === 0
        ? /^([A-Za-z_]\w*)(\+?)=/.exec(t.slice(this.#i, this.#i + 80))
        : null;
      if (assign !== null) {
        this.#i += assign[0].length;
        const value = t[this.#i] === "("
          ? this.#array()
          : META.has(t[this.#i] ?? " ")
          ? blank()
          : this.#word();
        assignments.push([assign[1]!, value]);
        continue;
      }
      if (t.startsWith("((", this.#i)) arithmetic = true; // `if (( … ))`
      const before = this.#i;
      const word = this.#word();
      words.push(word);
      if (word.text === "[[") tests++;
      else if (word.text === "]]" && tests > 0) tests--;
      if (this.#i === before) this.#i++; // a character no rule reads (`((`): never stall
    }
    this.#caseWords(words);
    const piped = t[this.#i] === "|" && t[this.#i + 1] !== "|";
    if (this.#pending.length > 0 && t[this.#i] === "\n") heredoc = this.#skipHeredocs();
    return {
      words,
      redirects,
      at,
      piped,
      groups,
      assignments,
      ...(heredoc !== undefined ? { heredoc } : {}),
      ...(arithmetic ? { arithmetic: true as const } : {}),
    };
  }

  /** A redirect at the current position, read into `redirects` (a heredoc's word kept). */
  #redirect(redirects: Redirect[]): boolean {
    const t = this.text;
    const redirect = /^(\d?)(?:>>|>&?|<<<|<<-?|<>|<&|<(?!\())/.exec(t.slice(this.#i, this.#i + 4));
    if (redirect === null) return false;
    this.#i += redirect[0].length;
    while (t[this.#i] === " " || t[this.#i] === "\t") this.#i++;
    const target = this.#word();
    if (redirect[0].startsWith("<<") && !redirect[0].startsWith("<<<")) {
      this.#pending.push({
        word: target.text.replace(/^['"]|['"]$/g, ""),
        tabs: redirect[0].endsWith("-"),
      });
    } else {
      const op = redirect[0].slice(redirect[1]!.length);
      redirects.push({ op, target, ...(redirect[1] ? { fd: Number(redirect[1]) } : {}) });
    }
    return true;
  }

  /** `case … in` opens a case (its pattern list next), `esac` closes one. */
  #caseWords(words: Word[]): void {
    if (words[0]?.text === "case") {
      this.#cases++;
      // `case $x in a) …` on one line: the first pattern was read as a word of this command.
      const into = words.findIndex((w) => w.text === "in");
      if (into !== -1 && into < words.length - 1) {
        words.length = into + 1;
        if (this.text[this.#i] === ")") this.#i++;
      } else this.#pattern = true;
    } else if (words[0]?.text === "esac" && this.#cases > 0) this.#cases--;
  }

  /**
   * An array's elements, `X=(a "b c" "$(…)")` or `X+=(…)`, read as words into one value that
   * carries what each carries: elements, not a command in a subshell.
   */
  #array(): Word {
    const t = this.text;
    const value: Word = { text: "", known: false, assembled: false, labels: new Set() };
    this.#i++;
    while (this.#i < t.length && t[this.#i] !== ")") {
      if (/\s/.test(t[this.#i]!)) {
        this.#i++;
        continue;
      }
      const before = this.#i;
      for (const l of this.#word().labels) value.labels.add(l);
      if (this.#i === before) this.#i++; // a character no rule reads: never stall
    }
    this.#i++;
    return value;
  }

  /**
   * Past the separators before a command (blanks, `;`, `&`, `|`, parentheses); returns the
   * subshells opened and closed on the way, and a lone `|` after a close (Command.groups).
   */
  #skipSeparators(): string {
    const t = this.text;
    let groups = "";
    while (this.#i < t.length && /[\s;&|()]/.test(t[this.#i]!)) {
      const c = t[this.#i]!;
      if (c === "(" || c === ")") groups += c;
      else if (c === "|" && t[this.#i + 1] === "|") this.#i++; // `||`: no pipe
      else if (c === "|" && groups.endsWith(")")) groups += c;
      if (t[this.#i] === "\n") this.#skipHeredocs();
      // `;;`, `;&` and `;;&` end a clause of a case: its next pattern list follows.
      if (t[this.#i] === ";" && /[;&]/.test(t[this.#i + 1] ?? "") && this.#cases > 0) {
        this.#pattern = true;
      }
      this.#i++;
    }
    return groups;
  }

  #pending: { word: string; tabs: boolean }[] = [];
  /** Reading the operands of a `[[ … ]]` test (words only end at blanks there). */
  #test = false;
  /** How many `case … in` are open, and whether a pattern list comes next. */
  #cases = 0;
  #pattern = false;

  /** Skips a case clause's pattern list, to the `)` that ends it (quotes respected). */
  #skipPattern(): void {
    const t = this.text;
    let quote: string | undefined;
    for (; this.#i < t.length; this.#i++) {
      const c = t[this.#i]!;
      if (quote !== undefined) {
        if (c === quote) quote = undefined;
        else if (c === "\\" && quote === '"') this.#i++;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === "\\") this.#i++;
      else if (c === ")") {
        this.#i++;
        return;
      } else if (c === "\n") return;
    }
  }

  /** Skips (and returns) the heredoc bodies that start after the current line. */
  #skipHeredocs(): string | undefined {
    if (this.#pending.length === 0) return undefined;
    const t = this.text;
    let k = this.#i + 1;
    let body = "";
    for (const { word, tabs } of this.#pending.splice(0)) {
      while (k < t.length) {
        const end = t.indexOf("\n", k) === -1 ? t.length : t.indexOf("\n", k);
        const line = t.slice(k, end);
        k = end + 1;
        if ((tabs ? line.replace(/^\t+/, "") : line) === word) break;
        body += line + "\n";
      }
    }
    this.#i = k - 1;
    return body;
  }

  /** Whether `c` ends a word: a blank or an operator, and only a blank inside a test. */
  #ends(c: string): boolean {
    return META.has(c) && !(this.#test && /[()|&<>]/.test(c));
  }

  /** One word from the current position, expanded. */
  #word(): Word {
    const t = this.text;
    const w: Word = { text: "", known: true, assembled: false, labels: new Set() };
    let pieces = 0;
    while (this.#i < t.length && !this.#ends(t[this.#i]!)) {
      const c = t[this.#i]!;
      if (c === "'") {
        const close = t.indexOf("'", this.#i + 1);
        const end = close === -1 ? t.length : close;
        w.text += t.slice(this.#i + 1, end);
        this.#i = end + 1;
        pieces++;
      } else if (c === '"') {
        this.#i++;
        while (this.#i < t.length && t[this.#i] !== '"') {
          if (t[this.#i] === "\\" && /["\\$`]/.test(t[this.#i + 1] ?? "")) {
            w.text += t[this.#i + 1];
            this.#i += 2;
          } else if (t[this.#i] === "$" || t[this.#i] === "`") this.#expansion(w);
          else w.text += t[this.#i++];
        }
        this.#i++;
        pieces++;
      } else if (c === "$" && t[this.#i + 1] === "'") {
        // `$'\x63url'`: ANSI-C quoting, its escapes decoded; a name spelt in codes is assembled.
        let end = this.#i + 2;
        while (end < t.length && t[end] !== "'") end += t[end] === "\\" ? 2 : 1;
        const { text, coded } = ansiC(t.slice(this.#i + 2, Math.min(end, t.length)));
        w.text += text;
        if (coded) w.assembled = true;
        this.#i = end + 1;
        pieces++;
      } else if (c === "$" || c === "`") {
        this.#expansion(w);
        pieces++;
      } else if (c === "\\") {
        w.text += t[this.#i + 1] ?? "";
        this.#i += 2;
      } else {
        const start = this.#i;
        while (this.#i < t.length && !this.#ends(t[this.#i]!) && !/['"$`\\]/.test(t[this.#i]!)) {
          this.#i++;
        }
        w.text += t.slice(start, this.#i);
        pieces++;
      }
    }
    // `<(…)` at the start of a word
    if (w.text === "" && t[this.#i] === "<" && t[this.#i + 1] === "(") {
      const close = matchParen(t, this.#i + 1);
      const out = this.substitute(t.slice(this.#i + 2, close), this.#i + 2);
      this.#i = close + 1;
      return {
        text: "/dev/fd/63",
        known: false,
        assembled: false,
        labels: out.labels,
        fileOf: true,
      };
    }
    if (pieces >= 2) w.assembled = true;
    return w;
  }

  /** `$NAME`, `${NAME…}`, `$(…)`, `` `…` ``, `$((…))` at the current position, into `w`. */
  #expansion(w: Word): void {
    const t = this.text;
    if (
      t[this.#i] === "`" || (t[this.#i] === "$" && t[this.#i + 1] === "(" && t[this.#i + 2] !== "(")
    ) {
      const tick = t[this.#i] === "`";
      const start = this.#i + (tick ? 1 : 2);
      const close = tick ? t.indexOf("`", start) : matchParen(t, this.#i + 1);
      const end = close === -1 ? t.length : close;
      const out = this.substitute(t.slice(start, end), start);
      for (const l of out.labels) w.labels.add(l);
      if (out.text !== undefined) w.text += out.text;
      else {
        w.text += "$(…)";
        w.known = false;
      }
      this.#i = end + 1;
      return;
    }
    if (t[this.#i + 1] === "(") {
      this.#i = matchParen(t, this.#i + 1) + 1;
      w.known = false;
      return;
    }
    // `${!v}`: the variable whose name v holds.
    const indirect = /^\$\{!([A-Za-z_]\w*|\d)\}/.exec(t.slice(this.#i, this.#i + 200));
    if (indirect !== null) {
      this.#i += indirect[0].length;
      for (const l of this.#indirectLabels(indirect[1]!)) w.labels.add(l);
      w.text += "$(…)";
      w.known = false;
      return;
    }
    const m = /^\$(?:\{#?([A-Za-z_]\w*|\d|[@*#?$!])([^}]*)\}|([A-Za-z_]\w*|\d|[@*#?$!]))/.exec(
      t.slice(this.#i, this.#i + 200),
    );
    if (m === null) {
      w.text += "$";
      this.#i++;
      return;
    }
    // `${X:-"a } b"}`: the brace that closes it, past any quoted one (a default holding
    // `:(){ :|:& };:` misread the rest of a script).
    this.#i = m[1] === undefined ? this.#i + m[0].length : closingBrace(t, this.#i + 1) + 1;
    const name = m[1] ?? m[3]!;
    const v = this.vars.get(name);
    if (v !== undefined) {
      for (const l of v.labels) w.labels.add(l);
      if (v.assembled) w.assembled = true;
      // (A value that doubles on each line, `x=$x$x`, stops being folded: no string bomb.)
      if (v.value !== undefined && w.text.length + v.value.length <= MAX_VALUE) {
        w.text += v.value;
        return;
      }
      // Partly known (`rc="$HOME/.bashrc"`): its text, unknown all the same.
      if (v.partial !== undefined && w.text.length + v.partial.length <= MAX_VALUE) {
        w.text += v.partial;
        w.known = false;
        return;
      }
    } else {
      const env = this.envLabel(name);
      if (env !== undefined) w.labels.add(env);
    }
    w.text += `$${name}`;
    w.known = false;
  }

  /**
   * What `${!name}` reads: the variable name's value names; those a `for` loop over written
   * names gives it; any variable at all where the name is data (`for v in $(compgen -v)`, a
   * parameter, a line read): the whole environment.
   */
  #indirectLabels(name: string): ReadonlySet<Label> {
    const v = this.vars.get(name);
    if (v?.value !== undefined) {
      const env = /^[A-Za-z_]\w*$/.test(v.value) ? this.envLabel(v.value) : undefined;
      return new Set(env === undefined ? [] : [env]);
    }
    return v?.indirect ?? new Set<Label>(["env:*"]);
  }
}

/** The escapes of ANSI-C quoting (`$'…'`). */
const ANSI_C: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** The text of a `$'…'` body, and whether it spells characters by code (`\x63`, `\143`, `\u…`). */
function ansiC(body: string): { text: string; coded: boolean } {
  let coded = false;
  const text = body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|[^])/g,
    (_, e: string) => {
      if (!/^[xuU0-7]/.test(e) || e.length === 1 && /[xuU]/.test(e)) return ANSI_C[e] ?? `\\${e}`;
      coded = true;
      const code = /^[0-7]/.test(e) ? parseInt(e, 8) : parseInt(e.slice(1), 16);
      return String.fromCodePoint(Math.min(code, 0x10ffff));
    },
  );
  return { text, coded };
}

function blank(): Word {
  return { text: "", known: true, assembled: false, labels: new Set() };
}

/** The longest `${…}` read for its closing brace; past it, the first `}` closes it. */
const MAX_BRACED = 512;

/**
 * The index of the `}` closing the `${` whose brace is at `open`: quotes, escapes and nested
 * `${…}` respected, looked for no further than {@link MAX_BRACED} characters (a hostile file of
 * unclosed braces must not cost the square of its length).
 */
function closingBrace(text: string, open: number): number {
  const limit = Math.min(text.length, open + MAX_BRACED);
  let depth = 0;
  let quote: string | undefined;
  for (let k = open; k < limit; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return k;
  }
  const first = text.indexOf("}", open);
  return first === -1 ? text.length - 1 : first;
}

/** The index of the `)` closing the `(` at `open`, quotes and nesting respected. */
function matchParen(text: string, open: number): number {
  let depth = 0;
  for (let k = open; k < text.length; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (c === "'") {
      const close = text.indexOf("'", k + 1);
      k = close === -1 ? text.length : close;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return k;
  }
  return text.length;
}
