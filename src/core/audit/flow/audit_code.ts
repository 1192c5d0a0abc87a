/**
 * Reading a script as code, cheaply: a small tokenizer per language (Python, JavaScript and
 * TypeScript, shell) that tells comments and documentation apart from code and string
 * literals. The audit uses it so that a comment describing `curl … | sh` is not the command,
 * and lint uses it to tell a helper module from a command-line script.
 *
 * What is tokenized: comments (`#`, `//`, `/* … *\/`), string literals with their escapes and
 * prefixes (Python's `r`/`b`/`f`, triple quotes; JavaScript's template literals with
 * `${…}` nesting and regular-expression literals; shell quoting, `$(…)` and heredocs), and
 * Python docstrings (a string literal standing alone as a statement, which Python evaluates
 * and discards). Nothing else is parsed: the calls that matter are still found by the
 * patterns of audit_rules.ts, on the code this leaves.
 */

export type CodeLanguage = "python" | "javascript" | "shell" | "powershell";

/** A span `[start, end)` of a file's text. */
export type Span = readonly [number, number];

interface CodeReading {
  language: CodeLanguage;
  /** Comments and (Python) docstrings: text nothing executes. Sorted, disjoint. */
  inert: Span[];
  /** Python's other string literals (what `codeOnly` keeps as code); empty for the others. */
  strings: Span[];
}

const BY_EXTENSION: Record<string, CodeLanguage> = {
  py: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "javascript",
  mts: "javascript",
  cts: "javascript",
  jsx: "javascript",
  tsx: "javascript",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  ps1: "powershell",
  psm1: "powershell",
};

/** The language of a script by its extension, else by its `#!` line; undefined otherwise. */
export function codeLanguageOf(path: string, text: string): CodeLanguage | undefined {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  const ext = dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
  if (ext in BY_EXTENSION) return BY_EXTENSION[ext];
  if (!text.startsWith("#!")) return undefined;
  const first = text.slice(0, text.indexOf("\n") === -1 ? text.length : text.indexOf("\n"));
  if (/\bpython[0-9.]*\b/.test(first)) return "python";
  if (/\b(?:node|nodejs|deno|bun|tsx|ts-node)\b/.test(first)) return "javascript";
  if (/\b(?:pwsh|powershell)\b/.test(first)) return "powershell";
  if (/\b(?:ba|z|da|k)?sh\b/.test(first)) return "shell";
  return undefined;
}

/** Tokenizes `text` as `language`. Linear in the text; never throws on malformed code. */
export function readCode(language: CodeLanguage, text: string): CodeReading {
  const strings: Span[] = [];
  const inert = language === "python"
    ? pythonInert(text, strings)
    : language === "javascript"
    ? javascriptInert(text)
    : language === "powershell"
    ? powershellInert(text)
    : shellInert(text);
  return { language, inert, strings };
}

/**
 * Code that reads its own source, comments or docstrings (`os.system(__doc__)`,
 * `sed -n 2p "$0" | sh`, `readFileSync(__filename)`, a function's `toString()` sliced): its
 * comments can run, so they are not inert. Printing `__doc__` as help is not reading it.
 */
const READS_OWN_SOURCE: Record<CodeLanguage, RegExp> = {
  python:
    /\b(?:open|io\.open|tokenize\.open)\(\s*(?:__file__|sys\.argv\[0\])|__file__\s*\)\s*\.\s*(?:read_text|read_bytes|open)\b|\bgetsource\w*\s*\(|\bgetcomments\s*\(|\b(?:getdoc|get_docstring)\s*\(|\bco_consts\b|\blinecache\b|\.get_source\s*\(|__doc__(?<!(?:description|epilog|usage|help)\s*=\s*__doc__)(?<!print\(\s*__doc__)(?<!exit\(\s*__doc__)/,
  javascript:
    /\b(?:readFileSync|readFile|readTextFile(?:Sync)?)\s*\(\s*(?:__filename|process\.argv\[1\]|import\.meta\.(?:filename|path)|new\s+URL\(\s*import\.meta\.url|fileURLToPath\(\s*import\.meta\.url)|\.toString\(\s*\)\s*\.\s*(?:slice|substring|substr|match|split|replace|matchAll)\s*\(|Function\.prototype\.toString/,
  powershell:
    /\b(?:Get-Content|gc|cat|type)\b[^\n|;]*\$(?:PSCommandPath|MyInvocation\.MyCommand\.(?:Path|Definition))|\$MyInvocation\.MyCommand\.ScriptContents|\$MyInvocation\.MyCommand\.ScriptBlock/i,
  shell:
    /\b(?:cat|sed|awk|tail|head|grep|cut|tr|base64|xxd|perl|python3?)\b[^\n|;]*["']?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?(?!\w)|<\s*["']?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?(?!\w)/,
};

/** Whether the code (comments and docstrings left out) reads its own source. */
export function readsOwnSource(text: string, reading: CodeReading): boolean {
  return READS_OWN_SOURCE[reading.language].test(codeOnly(text, reading));
}

/** Whether `index` falls inside one of the sorted, disjoint `spans`. */
export function inSpans(spans: readonly Span[], index: number): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [start, end] = spans[mid]!;
    if (index < start) hi = mid - 1;
    else if (index >= end) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The text with every inert span blanked (newlines kept): code and strings only. */
export function codeOnly(text: string, reading: CodeReading): string {
  let out = "";
  let last = 0;
  for (const [start, end] of reading.inert) {
    out += text.slice(last, start) + text.slice(start, end).replace(/[^\n]/g, " ");
    last = end;
  }
  return out + text.slice(last);
}

// --- Python ---------------------------------------------------------------------------
//
// Each tokenizer jumps with a sticky-free global regex to the next character that can start
// or end something (a quote, `#`, a bracket, a newline): the code between is skipped by the
// regex engine, not walked character by character.

/** What can start or end a Python token this tokenizer cares about. */
const PY_INTERESTING = /[#\n;"'()[\]{}]/g;

function pythonInert(text: string, strings: Span[]): Span[] {
  const out: Span[] = [];
  let depth = 0; // brackets: inside them a newline does not end the statement
  /** Where the current statement began (after a newline outside brackets, or a `;`). */
  let statement = 0;
  const find = new RegExp(PY_INTERESTING.source, "g");
  let m: RegExpExecArray | null;
  while ((m = find.exec(text)) !== null) {
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === HASH) {
      const end = lineEnd(text, i);
      out.push([i, end]);
      find.lastIndex = end;
    } else if (c === NEWLINE) {
      if (depth === 0 && text.charCodeAt(i - 1) !== BACKSLASH) statement = i + 1;
    } else if (c === SEMICOLON) {
      if (depth === 0) statement = i + 1;
    } else if (c === DQUOTE || c === SQUOTE) {
      // One or two prefix letters (r, b, u, f) right before the quote belong to the string.
      let start = i;
      while (start > i - 2 && start > 0 && isPrefix(text.charCodeAt(start - 1))) start--;
      if (start > 0 && isWord(text.charCodeAt(start - 1))) start = i; // part of a longer name
      const end = pythonStringEnd(text, i);
      // A string alone as a statement (nothing after it on its line but a comment): a
      // docstring or a bare string, evaluated and thrown away.
      const alone = depth === 0 && /^[ \t\r\f]*$/.test(text.slice(statement, start)) &&
        /^[ \t\r]*(?:#.*)?$/.test(text.slice(end, lineEnd(text, end)));
      (alone ? out : strings).push([start, end]);
      find.lastIndex = end;
    } else if (c === 0x28 || c === 0x5b || c === 0x7b) depth++; // ( [ {
    else if (depth > 0) depth--; // ) ] }
  }
  return out;
}

const HASH = 0x23;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const SEMICOLON = 0x3b;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f || c > 0x7f;
}

/** r, b, u, f in either case: Python's string prefixes. */
function isPrefix(c: number): boolean {
  const lower = c | 0x20;
  return lower === 0x72 || lower === 0x62 || lower === 0x75 || lower === 0x66;
}

/** The end of a Python string literal whose opening quote is at `j`. */
export function pythonStringEnd(text: string, j: number): number {
  const quote = text[j]!;
  const triple = text.startsWith(quote + quote, j + 1);
  // Jump from quote to quote (or backslash); an unterminated one-line string ends its line.
  const stop = triple
    ? (quote === '"' ? /["\\]/g : /['\\]/g)
    : (quote === '"' ? /["\\\n]/g : /['\\\n]/g);
  stop.lastIndex = j + (triple ? 3 : 1);
  let m: RegExpExecArray | null;
  while ((m = stop.exec(text)) !== null) {
    const k = m.index;
    const c = text[k];
    if (c === "\\") stop.lastIndex = k + 2;
    else if (c === "\n") return k;
    else if (!triple) return k + 1;
    else if (text.startsWith(quote + quote, k + 1)) return k + 3;
  }
  return text.length;
}

function lineEnd(text: string, i: number): number {
  const end = text.indexOf("\n", i);
  return end === -1 ? text.length : end;
}

// --- JavaScript and TypeScript ---------------------------------------------------------

/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER = new Set("(,=:[!&|?{};+-*%<>~^".split(""));
const REGEX_AFTER_WORD =
  /\b(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/;
const JS_INTERESTING = /[\/"'`{}]/g;

function javascriptInert(text: string): Span[] {
  const out: Span[] = [];
  const n = text.length;
  /** Brace depth of each open template literal's `${`, innermost last. */
  const templates: number[] = [];
  let braces = 0;
  const find = new RegExp(JS_INTERESTING.source, "g");
  let m: RegExpExecArray | null;
  while ((m = find.exec(text)) !== null) {
    const i = m.index;
    const c = text[i]!;
    if (c === "/") {
      const next = text[i + 1];
      if (next === "/") {
        const end = lineEnd(text, i);
        out.push([i, end]);
        find.lastIndex = end;
      } else if (next === "*") {
        const close = text.indexOf("*/", i + 2);
        const end = close === -1 ? n : close + 2;
        out.push([i, end]);
        find.lastIndex = end;
      } else if (regexAllowed(text, i)) {
        find.lastIndex = regexEnd(text, i);
      }
    } else if (c === '"' || c === "'") {
      find.lastIndex = quotedEnd(text, i, c);
    } else if (c === "`" || (c === "}" && templates.length > 0 && templates.at(-1) === braces)) {
      // A template literal's text, from its start or from the end of a `${…}`.
      if (c === "}") templates.pop();
      let k = i + 1;
      let open = false;
      while (k < n && text[k] !== "`") {
        if (text[k] === "\\") k++;
        else if (text[k] === "$" && text[k + 1] === "{") {
          templates.push(braces);
          k += 2;
          open = true;
          break;
        }
        k++;
      }
      find.lastIndex = open ? k : Math.min(n, k + 1);
    } else if (c === "{") braces++;
    else braces--;
  }
  return out;
}

/** Whether a `/` at `i` starts a regular expression: judged by what comes before it. */
export function regexAllowed(text: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && /\s/.test(text[k]!)) k--;
  if (k < 0) return true;
  const previous = text[k]!;
  if (REGEX_AFTER.has(previous)) return true;
  if (!/[\w$]/.test(previous)) return false;
  return REGEX_AFTER_WORD.test(text.slice(Math.max(0, k - 11), k + 1));
}

/** The end of a `'…'` or `"…"` literal starting at `i` (an unterminated one ends its line). */
export function quotedEnd(text: string, i: number, quote: string): number {
  let k = i + 1;
  while (k < text.length) {
    const c = text[k]!;
    if (c === "\\") k += 2;
    else if (c === quote) return k + 1;
    else if (c === "\n") return k;
    else k++;
  }
  return text.length;
}

/** The end of a regular-expression literal at `i` (classes `[…]` may hold a `/`). */
export function regexEnd(text: string, i: number): number {
  let k = i + 1;
  let inClass = false;
  while (k < text.length) {
    const c = text[k]!;
    if (c === "\\") k += 2;
    else if (c === "\n") return k;
    else {
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) {
        k++;
        while (k < text.length && /[a-z]/i.test(text[k]!)) k++;
        return k;
      }
      k++;
    }
  }
  return text.length;
}

// --- PowerShell ------------------------------------------------------------------------

/** Where a PowerShell string, here-string or comment starts. */
const PS_INTERESTING = /<#|#|@"|@'|"|'/g;

/** PowerShell's comments: `# …` where a token may start, and `<# … #>` blocks. */
function powershellInert(text: string): Span[] {
  const out: Span[] = [];
  const find = new RegExp(PS_INTERESTING.source, "g");
  for (let m = find.exec(text); m !== null; m = find.exec(text)) {
    const i = m.index;
    const token = m[0];
    let end: number;
    if (token === "<#") {
      const close = text.indexOf("#>", i + 2);
      end = close === -1 ? text.length : close + 2;
      out.push([i, end]);
    } else if (token === "#") {
      if (i > 0 && !/[\s;(){}|]/.test(text[i - 1]!)) continue;
      end = lineEnd(text, i);
      out.push([i, end]);
    } else end = powershellStringEnd(text, i, token);
    find.lastIndex = end;
  }
  return out;
}

/**
 * Past the PowerShell string whose opening is at `i`: `"…"` (backtick escapes, `""`), `'…'`
 * (`''`), a here-string `@"…"@`/`@'…'@` (its quote then `@` at the start of a line); the
 * text's end when it never closes. One pass: linear in the text.
 */
export function powershellStringEnd(text: string, i: number, open: string): number {
  if (open.startsWith("@")) {
    const close = text.indexOf(`\n${open[1]}@`, i + 2);
    return close === -1 ? text.length : close + 3;
  }
  for (let k = i + 1; k < text.length; k++) {
    const c = text[k];
    if (open === '"' && c === "`") k++;
    else if (c === open) {
      if (text[k + 1] === open) k++;
      else return k + 1;
    }
  }
  return text.length;
}

// --- Shell -----------------------------------------------------------------------------

/** A `#` starts a comment only at the start of a word. */
const WORD_BREAK = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

const SH_INTERESTING = /[\n#\\'"<]/g;

function shellInert(text: string): Span[] {
  const out: Span[] = [];
  const n = text.length;
  const printers = messageCommands(text);
  /** Heredoc delimiters whose bodies start after the current line. */
  const heredocs: { word: string; tabs: boolean }[] = [];
  const find = new RegExp(SH_INTERESTING.source, "g");
  let m: RegExpExecArray | null;
  while ((m = find.exec(text)) !== null) {
    const i = m.index;
    const c = text[i]!;
    if (c === "\n") {
      // Heredoc bodies are data (or code fed to another program), never comments.
      let k = i + 1;
      while (heredocs.length > 0) {
        const { word, tabs } = heredocs.shift()!;
        while (k < n) {
          const end = lineEnd(text, k);
          const line = text.slice(k, end).replace(/\r$/, "");
          k = Math.min(n, end + 1);
          if ((tabs ? line.replace(/^\t+/, "") : line) === word) break;
        }
      }
      find.lastIndex = k;
    } else if (c === "#") {
      if (i === 0 || WORD_BREAK.has(text[i - 1]!)) {
        const end = lineEnd(text, i);
        out.push([i, end]);
        find.lastIndex = end;
      }
    } else if (c === "\\") {
      find.lastIndex = i + 2;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      find.lastIndex = close === -1 ? n : close + 1;
      if (close !== -1 && isMessage(text, i, close + 1, printers)) out.push([i, close + 1]);
    } else if (c === '"') {
      find.lastIndex = shellDoubleQuotedEnd(text, i);
      const end = find.lastIndex;
      // An expansion inside double quotes runs (`"$(curl … | sh)"`): such a word is code.
      const plain = !/\$\(|`/.test(text.slice(i, end));
      if (plain && end <= n && isMessage(text, i, end, printers)) out.push([i, end]);
    } else if (text[i + 1] === "<" && text[i + 2] !== "<") {
      const here = /^<<(-?)[ \t]*(["']?)([\w.-]+)\2/.exec(text.slice(i, i + 80));
      if (here !== null) {
        heredocs.push({ word: here[3]!, tabs: here[1] === "-" });
        find.lastIndex = i + here[0].length;
      }
    }
  }
  return out;
}

// A quoted word a command only prints is a message, not code: `echo "Install: curl … | sh"`
// tells the user what to run (OpenAI's render plugin, Alibaba's spark-video `doctor.sh`).
// Printing commands are echo, printf and this file's functions whose bodies only print their
// arguments; the word must be on a line that starts that command, with nothing between but
// plain words, and nothing after it that feeds the output on (a pipe, a redirect other than to
// stderr). Anything else that quotes the command — `sh -c "…"`, `eval "…"`, `x="…"`, a
// function that runs its arguments — stays code.

/** A plain word, or a quoted one without expansions: what may stand beside a message. */
const PLAIN_WORD = String.raw`(?:[^\s|;&<>()\`$"'\\]+|"(?:[^"$\`\\]|\\.)*"|'[^']*')`;
/** The line up to a message word: a command word, then plain words. */
const MESSAGE_BEFORE = new RegExp(
  String
    .raw`(?:^|[;&|({]|\b(?:then|do|else))[ \t]*(?!(?:if|then|do|else|elif|while|until|time|!)\b)([A-Za-z_][\w-]*)((?:[ \t]+${PLAIN_WORD})*)[ \t]+$`,
);
/** The line after a message word: plain words, a redirect to stderr, then another command. */
const MESSAGE_AFTER = new RegExp(
  String.raw`^(?:[ \t]+${PLAIN_WORD})*[ \t]*(?:[12]?>&[12][ \t]*)?(?:(?:;|&&|\|\|)[^\n]*)?$`,
);
/** A function of the file: its name and body (no nested braces). */
const SHELL_FUNCTION =
  /^[ \t]*(?:function[ \t]+)?([A-Za-z_][\w-]*)[ \t]*(?:\([ \t]*\))?[ \t]*\{([^{}]*)\}/gm;
/** A word that prints a function's arguments: `"$*"`, `"  ✗ $*"`, `"$1"`. */
const ARGUMENTS_WORD = '"[^"`$]*\\$[*@1-9][^"`$]*"';
/** A statement a printing function may hold: print, assign a plain value, return. */
const PRINTING_STATEMENT = new RegExp(
  String
    .raw`^(?:(?:echo|printf)(?:[ \t]+(?:${PLAIN_WORD}|${ARGUMENTS_WORD}))*[ \t]*(?:[12]?>&[12])?|[A-Za-z_]\w*=[\w.-]*|return(?:[ \t]+\d+)?|)$`,
);

/**
 * echo, printf, and the file's functions that only print their arguments — each only while
 * every definition the file gives that name is such a function: `echo() { eval "$*"; }`, an
 * `alias echo=eval`, or a definition this reading cannot see whole (nested braces, one inside
 * a string an `eval` runs) makes `echo "curl … | sh"` the command it is.
 */
function messageCommands(text: string): Set<string> {
  const read = new Map<string, { count: number; prints: boolean }>();
  for (const m of text.matchAll(SHELL_FUNCTION)) {
    const statements = m[2]!.split(/[;\n]/).map((s) => s.trim());
    const prints = statements.every((s) => PRINTING_STATEMENT.test(s));
    const seen = read.get(m[1]!) ?? { count: 0, prints: true };
    read.set(m[1]!, { count: seen.count + 1, prints: seen.prints && prints });
  }
  const out = new Set<string>();
  for (const name of new Set(["echo", "printf", ...read.keys()])) {
    const known = read.get(name) ?? { count: 0, prints: true };
    if (known.prints && definitionsOf(text, name) === known.count) out.add(name);
  }
  return out;
}

/**
 * How many times the text defines `name` as a function, wherever it stands (a string too);
 * an alias of it counts as one no printing function accounts for.
 */
function definitionsOf(text: string, name: string): number {
  const functions = new RegExp(
    String.raw`(?:^|[^\w-])(?:function[ \t]+${name}(?![\w-])|${name}[ \t]*\([ \t]*\))`,
    "g",
  );
  const alias = new RegExp(String.raw`\balias\b[^\n]*(?:[ \t'"]|^)${name}=`, "m");
  return [...text.matchAll(functions)].length + (alias.test(text) ? 1 : 0);
}

/**
 * The longest line whose quoted words may be messages. Each word reads its whole line, so a
 * hostile line of thousands of quoted words would cost the square of its length (a 133 KB line
 * took 8 s); no one echoes a message that long, and a longer line's words stay code.
 */
const MAX_MESSAGE_LINE = 1000;

/** Whether the quoted word `[start, end)` is an argument a printing command only prints. */
function isMessage(text: string, start: number, end: number, printers: Set<string>): boolean {
  // The line's bounds, looked for no further than the longest line a message may stand on.
  const windowStart = Math.max(0, start - MAX_MESSAGE_LINE);
  const head = text.slice(windowStart, start).lastIndexOf("\n");
  if (head === -1 && windowStart > 0) return false;
  const lineStart = head === -1 ? 0 : windowStart + head + 1;
  const limit = lineStart + MAX_MESSAGE_LINE;
  const tail = text.slice(end, limit).indexOf("\n");
  if (tail === -1 && limit < text.length) return false;
  const stop = tail === -1 ? text.length : end + tail;
  const before = MESSAGE_BEFORE.exec(text.slice(lineStart, start));
  if (before === null || !printers.has(before[1]!)) return false;
  return MESSAGE_AFTER.test(text.slice(end, stop));
}

/** The end of a `"…"` word at `i`: escapes, and `$(…)` whose own quotes do not close it. */
function shellDoubleQuotedEnd(text: string, i: number): number {
  let k = i + 1;
  let depth = 0;
  while (k < text.length) {
    const c = text[k]!;
    if (c === "\\") k += 2;
    else if (c === "$" && text[k + 1] === "(") {
      depth++;
      k += 2;
    } else if (c === ")" && depth > 0) {
      depth--;
      k++;
    } else if (c === "'" && depth > 0) {
      const close = text.indexOf("'", k + 1);
      k = close === -1 ? text.length : close + 1;
    } else if (c === '"' && depth > 0) {
      k = shellDoubleQuotedEnd(text, k);
    } else if (c === '"') return k + 1;
    else k++;
  }
  return text.length;
}
