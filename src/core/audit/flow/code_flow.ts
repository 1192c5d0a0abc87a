/**
 * Data flow inside one Python or JavaScript/TypeScript script, statement by statement in
 * the order written: each variable keeps the labels of what was assigned to it (the
 * environment, a credential file, downloaded or decoded bytes, a persistence path) and, when
 * it is made of string constants only, its value; imports and aliases are followed back to
 * the module (`import urllib.request as u`, `getattr(os, "environ")`, `const { env } =
 * process`). Every call is then checked as a sink: a send with a secret among its arguments,
 * an exec, a shell or a process given downloaded or decoded data, a write to a persistence
 * location. Strings handed to a shell are read by shell_flow.ts.
 */

import { type Flow, FlowSink } from "./flow_model.ts";
import { BLOCK_HEADS, type Language, opText, statements, type Token, tokenize } from "./lexer.ts";
import { analyzeShell, type InlineCode } from "./shell_flow.ts";
import {
  DECODE_CALLS,
  EXEC_CALLS,
  EXEC_METHODS,
  FETCH_CALLS,
  fileKey,
  heldByFile,
  hostOf,
  inlineLanguage,
  interpreterAfterRunner,
  isEnvFileLabel,
  isSecret,
  type Label,
  persistPath,
  PROCESS_CALLS,
  RAW_SENDS,
  READ_CALLS,
  secretCommand,
  secretName,
  secretPath,
  SEND_CALLS,
  SEND_METHODS,
  SHELL_CALLS,
  shellQuoted,
  WRITE_CALLS,
} from "./vocabulary.ts";
import type { Span } from "./audit_code.ts";

/** The longest string constant folded; past it a value is unknown. */
const MAX_VALUE = 4096;

interface Variable {
  labels: Set<Label>;
  /** Its value when made of string constants only. */
  value?: string;
  /**
   * The constants it takes one after another: a `for` variable over a literal list of strings
   * (`for var in ("GH_TOKEN", "GITHUB_TOKEN"):`), so that `os.environ.get(var)` reads those
   * variables, not any.
   */
  values?: string[];
  /**
   * A connection or request object: where it sends. `datagram`: a socket of Node's dgram,
   * whose every `send` names its address after the message (datagramHost).
   */
  net?: { host: string | undefined; datagram?: boolean };
  /**
   * The host of the address it holds, read off the constant it starts with when the rest is
   * computed (`u = "https://h.example/x?k=" + key`): a request to it goes to that host.
   */
  host?: string;
  /**
   * A parameter of the function being read, as its call binds it (any assignment makes a new
   * variable without this): an environment variable read by it is the one the caller names.
   */
  parameter?: number;
  /** A text file `open(…)` with universal newlines: iterating it gives one line at a time. */
  lines?: true;
  /** A `for` variable over such a file or over `….splitlines()`: one line of it. */
  line?: true;
  /**
   * A copy of the whole environment and nothing else (`{ ...process.env }`, `dict(os.environ)`,
   * `options?.env ?? process.env`): a member of it read by name is that one variable. A
   * container holding the environment (`{ env: process.env }`) is not one.
   */
  environment?: true;
  /**
   * A list literal of argv words (`cmd = ["bash", script, path]`), each with its value and
   * labels: a process started from it has its command in the first words, so downloaded data in
   * a later one is an argument, not the command. Dropped when the list is changed.
   */
  argv?: ArgvWord[];
  /** Bound to a list literal, changed since or not (`cmd.extend([...])`): a written argv. */
  list?: true;
  /** A file opened for writing at a constant path (`open("/tmp/x.sh", "wb")`): that path. */
  writes?: string;
  /**
   * A process started from an argv whose stdin the script writes (`p.communicate(x)`,
   * `p.stdin.write(x)`, `p.stdin.end(x)`): {@link Feed}.
   */
  feeds?: Feed;
}

/**
 * What a process does with what is written to its stdin: an interpreter that reads its program
 * there (`Popen(["sh"], stdin=PIPE)`, `spawn("bash")`) runs it; any other program of a known
 * command line does what the shell's reading of that line says (`["curl", "-d", "@-", url]`
 * sends it to url, `["nc", host, "80"]` to host).
 */
interface Feed {
  program: string;
  /** The command line, when the program does not run its stdin: read as a shell's. */
  line?: string;
}

/** At most this many words in a list literal kept as an argv ({@link Variable.argv}). */
const MAX_ARGV_WORDS = 64;

/** One word of an argv: its value when constant, and what it carries. */
interface ArgvWord {
  text: string | undefined;
  labels: Set<Label>;
  /** An f-string or template literal's text, its holes as `{}` (`https://{}@host/r.git`). */
  template?: string;
}

/** What the analysis knows while it walks a script. */
/**
 * The label of what a method reads of its object (`self.key`, `this.key`): a sink it reaches
 * is the object's, and a call `obj.m(…)` gives it what `obj` holds (`c = C(key)` holds the
 * key its constructor was given).
 */
const RECEIVER = "param:-1";

/**
 * What a function of the script does with its parameters: which reach a sink (so that a call
 * passing a secret or downloaded data is a flow at the call), and what its result carries.
 */
interface FunctionSummary {
  sinks: {
    param: number;
    kind: "send" | "exec" | "persist";
    host: string | undefined;
    via: string;
    /** The parameter whose value is the address, when the body sends to one it is given. */
    to?: number | undefined;
  }[];
  returns: Set<Label>;
  /**
   * A method of a class (a `def` in a class taking `self`, a JavaScript class's or object's
   * method): what its body reads of `self` or `this` is its object's, {@link RECEIVER}.
   */
  method?: boolean;
  /**
   * How many positional parameters it takes (past `self`), when it takes no others: with
   * `*args`, `**kwargs` or `...rest` it is undefined, and its result keeps its arguments'
   * labels (the summary's `param:i` cannot name them all).
   */
  arity?: number;
  /**
   * The function it returns, one it defines (`def w(…): …` then `return w`): a factory's
   * product, or a decorator's wrapper, whose calls are that function's.
   */
  made?: FunctionSummary;
}

interface Scope {
  language: Language;
  text: string;
  aliases: Map<string, string>;
  vars: Map<string, Variable>;
  sink: FlowSink;
  functions: Map<string, FunctionSummary>;
  /** JavaScript methods the script defines (`send(v) {` in a class): {@link enterFunction}. */
  methods: Set<string>;
  /** The function whose body is being read (until a statement at column 0). */
  current?: { name: string; summary: FunctionSummary } | undefined;
  /** The decorators (`@leak`) above the `def` about to be read, in Python. */
  decorators: string[];
  /** The function around the nested one being read, whose parameters it reads as `closure:i`. */
  around?: FunctionSummary | undefined;
  /** Python methods that never read `self`, as `Class.method`: {@link selfFreeMethods}. */
  selfFree: ReadonlySet<string>;
  /** The Python class whose body holds the statement being read ("" outside any). */
  inClass: string;
  /** JavaScript functions the script declares anywhere (declarations are hoisted). */
  declared: ReadonlySet<string>;
  /**
   * Files the script wrote downloaded or decoded data or a secret to, by constant path, with
   * what each holds ({@link heldByFile}): a shell or an interpreter later given one runs that
   * data (`bash /tmp/x.sh`); a read or an upload of it carries the secret.
   */
  downloaded: Map<string, Set<Label>>;
  /**
   * What the script reads on stdin, when known: code handed inline to an interpreter a pipe
   * feeds (`curl … | python3 -c "exec(sys.stdin.read())"`).
   */
  stdin: ReadonlySet<Label>;
  /** Whether the script names a client's base address anywhere ({@link namesBaseUrl}). */
  baseUrls: boolean;
  /** Whether the script opens a file anywhere: only then is a call handed one sought. */
  writesFiles: boolean;
  /** The fields of `self` or `this` a method set from one of its parameters ({@link kept}). */
  paramFields: Set<string>;
  /**
   * What the script prints (`print(…)`, `console.log(…)`, `sys.stdout.write(…)`), collected for
   * code a shell hands an interpreter inline, whose output the shell pipes on.
   */
  printed?: Set<Label> | undefined;
}

/** Code a shell string or an argv hands an interpreter inline (`python3 -c "…"`), read as such. */
export const INLINE_CODE: InlineCode = (language, text, stdin) => {
  const printed = new Set<Label>();
  return { flows: analyzeCode(language, text, [], stdin, printed), printed };
};

/**
 * The flows of one script; `stdin`, what it reads on stdin when that is known; `printed`, when
 * given, collects what it prints ({@link Scope.printed}).
 */
export function analyzeCode(
  language: Language,
  text: string,
  inert: readonly Span[],
  stdin: ReadonlySet<Label> = new Set(),
  printed?: Set<Label>,
): Flow[] {
  const sink = new FlowSink();
  const tokens = tokenize(language, text, inert);
  const list = statements(language, tokens);
  // Each statement's column, which the class, method and `if` blocks are read from.
  const columns = list.map((statement) => columnOf(text, statement[0]!.at));
  const classes = language === "python"
    ? enclosingClasses(list, columns)
    : jsEnclosingClasses(tokens, list);
  const scope: Scope = {
    language,
    text,
    aliases: new Map(),
    vars: new Map(),
    sink,
    functions: new Map(),
    methods: new Set(),
    selfFree: language === "python" ? selfFreeMethods(list, classes, columns) : new Set(),
    inClass: "",
    declared: language === "javascript" ? declaredFunctions(list) : new Set(),
    downloaded: new Map(),
    stdin,
    baseUrls: BASE_URL_WORD.test(text),
    writesFiles: /\bopen\s*\(/.test(text),
    paramFields: new Set(),
    printed,
    decorators: [],
  };
  const narrowed: Narrowing[] = [];
  const enclosing = new Enclosing();
  for (const [index, written] of list.entries()) {
    scope.inClass = classes[index] ?? "";
    const statement = scope.inClass === "" ? written : withoutModifiers(written);
    if (statement.length === 0) continue;
    const column = columns[index]!;
    while (narrowed.length > 0 && narrowed[narrowed.length - 1]!.column >= column) {
      widen(scope, narrowed.pop()!);
    }
    if (language === "python") enclosing.leave(scope, column);
    if (language === "python" && decorated(scope, statement)) continue;
    const narrowing = language === "python"
      ? narrowToKey(scope, statement) ?? narrowToFile(scope, statement)
      : undefined;
    if (narrowing !== undefined) narrowed.push({ ...narrowing, column });
    if (readImport(scope, statement)) continue;
    const outer = scope.current;
    const params = outer === undefined || !startsDef(statement) ? [] : parameterVariables(scope);
    const entered = enterFunction(scope, statement);
    if (entered !== false) {
      // A one-expression function ends with its statement: the function around it goes on.
      if (entered !== true) readExpressionBody(scope, statement, entered, outer);
      else if (language === "python") enclosing.enter(scope, outer, column, params);
      continue;
    }
    if (column === 0) scope.current = undefined;
    // `return x`, and a return after a condition on the same line (`if (c) return x;`) — not
    // one inside a function the statement writes (a minified file is one long statement).
    const returns = topLevelReturn(statement);
    if (returns !== -1 && scope.current !== undefined) {
      for (const l of labelsOf(scope, statement, returns + 1, statement.length)) {
        scope.current.summary.returns.add(l);
      }
      const made = statement.length === returns + 2 && statement[returns + 1]!.kind === "name"
        ? scope.functions.get(statement[returns + 1]!.text)
        : arrowMade(scope, statement, returns + 1, statement.length);
      if (made !== undefined && made !== scope.current.summary) scope.current.summary.made = made;
    }
    walkStatement(scope, statement);
  }
  return sink.flows;
}

/**
 * The Python functions a nested `def` is read inside: when the nested one's block ends (a
 * statement at or left of its `def`), the function around it is the current one again, so
 * what it does after the nested `def` (calling it, say) is its own.
 */
class Enclosing {
  readonly #stack: {
    column: number;
    outer: Scope["current"];
    /** The outer function's parameters as they were, before the nested one read them. */
    params: [string, Variable][];
  }[] = [];
  /** Where a function's `def` stands: what lies right of it is its body. */
  #column = 0;

  /**
   * A `def` at `column` was entered while `outer` was being read, whose parameters were
   * `params` before the `def` bound its own: those it did not rebind it reads as the outer
   * function's (`closure:i`), so what it sends of them the outer function sends.
   */
  enter(scope: Scope, outer: Scope["current"], column: number, params: [string, Variable][]) {
    if (outer === undefined || column <= this.#column) {
      this.#stack.length = 0;
      scope.around = undefined;
      this.#column = column;
      return;
    }
    const kept = params.filter(([name, v]) => scope.vars.get(name) === v);
    for (const [name, v] of kept) {
      const labels = [...v.labels].map((l) => l.replace(/^param:/, "closure:") as Label);
      scope.vars.set(name, { ...v, labels: new Set(labels), parameter: undefined });
    }
    this.#stack.push({ column, outer, params: kept });
    scope.around = outer.summary;
    this.#column = column;
  }

  /** Before a statement at `column`: the functions whose blocks it ends are left. */
  leave(scope: Scope, column: number): void {
    while (this.#stack.length > 0 && column <= this.#stack.at(-1)!.column) {
      const { outer, params } = this.#stack.pop()!;
      for (const [name, v] of params) scope.vars.set(name, v);
      scope.current = outer;
      scope.around = this.#stack.at(-1)?.outer?.summary;
      this.#column = this.#stack.at(-1)?.column ?? 0;
    }
  }
}

/** Whether the statement begins a Python function: `def f(…):`, `async def f(…):`. */
function startsDef(s: readonly Token[]): boolean {
  return s[0]?.text === "def" || (s[0]?.text === "async" && s[1]?.text === "def");
}

/** The variables that are the current function's parameters, by name. */
function parameterVariables(scope: Scope): [string, Variable][] {
  return [...scope.vars].filter(([, v]) => v.parameter !== undefined);
}

/**
 * `@leak` above a `def`: kept for the `def` (see {@link enterFunction}), which then does what
 * the decorator's wrapper does too: calls of the decorated name are calls of the wrapper.
 */
function decorated(scope: Scope, s: readonly Token[]): boolean {
  if (s[0]?.text !== "@") {
    if (s[0]?.text !== "def" && s[0]?.text !== "async") scope.decorators.length = 0;
    return false;
  }
  if (s[1]?.kind === "name") scope.decorators.push(dottedAt(scope, s, 1).name);
  return true;
}

/**
 * The token after a `function` at `k`, past the `*` of a generator (`function* g(`); `k + 1`
 * for any other token.
 */
function generatorStar(s: readonly Token[], k: number): number {
  return s[k]?.text === "function" && s[k + 1] !== undefined && opText(s[k + 1]!) === "*"
    ? k + 2
    : k + 1;
}

/** `function f(`, `async function f(`, `const f = (…) =>`, `const f = function`: their names. */
function declaredFunctions(list: readonly Token[][]): Set<string> {
  const out = new Set<string>();
  for (const s of list) {
    const k = s.findIndex((t) => t.text === "function" || t.text === "=>");
    if (k === -1) continue;
    const n = generatorStar(s, k);
    const name = s[k]!.text === "function" && s[n]?.kind === "name"
      ? s[n]!.text
      : /^(?:const|let|var)$/.test(s[0]?.text ?? "") && s[2]?.text === "="
      ? s[1]?.text
      : undefined;
    if (name !== undefined) out.add(name);
  }
  return out;
}

/**
 * A function of the script turned into its text (`String(f)`, `f.toString()`, `${f}`, `f +
 * ""`): what its body holds, comments too, as a string — run, it runs what the reviewer read
 * as a comment.
 */
function functionText(scope: Scope, tokens: readonly Token[], k: number): boolean {
  const t = tokens[k]!;
  if (t.text === "String" && tokens[k + 1]?.text === "(" && tokens[k + 3]?.text === ")") {
    return scope.declared.has(tokens[k + 2]?.text ?? "");
  }
  if (!scope.declared.has(t.text) || tokens[k + 1]?.text === "(") return false;
  return (tokens[k + 1]?.text === "." && tokens[k + 2]?.text === "toString") ||
    (opText(tokens[k + 1] ?? t) === "+" && tokens[k + 2]?.kind === "string") ||
    (opText(tokens[k - 1] ?? t) === "+" && tokens[k - 2]?.kind === "string") ||
    (k === 0 && tokens.length === 1); // a template literal's `${f}`
}

/**
 * Where `return` stands in a statement outside every bracket, or -1; `yield` too: what a
 * generator yields is what a call of it gives its caller (`for k in gen()`, `next(gen())`).
 */
function topLevelReturn(s: readonly Token[]): number {
  const at = outsideBrackets(
    s,
    0,
    s.length,
    (t) => t.kind === "name" && (t.text === "return" || t.text === "yield"),
  );
  return at === s.length ? -1 : at;
}

/**
 * The first token of `[from, to)` outside every bracket pair opened there (each pair skipped
 * whole by {@link closeOf}) for which `stop` holds; `to` when none does.
 */
function outsideBrackets(
  s: readonly Token[],
  from: number,
  to: number,
  stop: (token: Token) => boolean,
): number {
  for (let k = from; k < to; k++) {
    const t = opText(s[k]!);
    if (t === "(" || t === "[" || t === "{") k = closeOf(s, k);
    else if (stop(s[k]!)) return k;
  }
  return to;
}

function columnOf(text: string, at: number): number {
  return at - text.lastIndexOf("\n", at - 1) - 1;
}

/** A variable read as one key of a .env inside an `if` block, and what it held before. */
interface Narrowing {
  name: string;
  before: Variable;
  /** What the narrowing gave the variable inside the block, taken back after it. */
  added?: Label;
  /** The `if`'s column: the block ends at the first statement at or left of it. */
  column: number;
}

/**
 * `if line.startswith("X_API_KEY="):`, exactly, on a variable holding a .env's lines: inside
 * the block that variable is the one line of key `X_API_KEY`, so it carries that key (as the
 * environment's `X_API_KEY` would: to the host its name or the skill names, information)
 * instead of the whole file. Any other condition (`not`, `or`, another prefix) narrows
 * nothing, and every other variable (the file itself, a list of its lines) keeps the file.
 */
function narrowToKey(scope: Scope, s: readonly Token[]): Omit<Narrowing, "column"> | undefined {
  const words = s.map((t) => t.text);
  if (
    s.length !== 8 || words[0] !== "if" || s[1]!.kind !== "name" || words[2] !== "." ||
    words[3] !== "startswith" || words[4] !== "(" || s[5]!.kind !== "string" ||
    words[6] !== ")" || words[7] !== ":"
  ) {
    return undefined;
  }
  const key = /^(\w+)=$/.exec(s[5]!.text)?.[1];
  const before = scope.vars.get(words[1]!);
  if (key === undefined || !secretName(key) || before?.line !== true) return undefined;
  if (![...before.labels].some(isEnvFileLabel)) return undefined;
  const labels = new Set([...before.labels].filter((l) => !isEnvFileLabel(l)));
  labels.add(`env:${key}`);
  scope.vars.set(words[1]!, { ...before, labels });
  return { name: words[1]!, before };
}

/**
 * What a binding's value is line by line: `open(p)` or `open(p, "r")` with no `newline=`
 * (which could make the whole file one "line"), bound by `with … as f` or `f = …`, is a file
 * of lines; `for x in f:`, `for x in f.readlines():` and `for x in ….splitlines():` bind one
 * line, and so does that line trimmed (`x = x.strip()`).
 */
function lineShape(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): Pick<Variable, "lines" | "line"> {
  const words = s.slice(from, to).map((t) => t.text);
  if (words.at(-1) === ":") words.pop();
  if (s[0]?.text === "for") {
    const over = words.length === 1 ? words[0]! : words.length === 5 &&
        words[1] === "." && words[2] === "readlines" && words[3] === "(" && words[4] === ")"
      ? words[0]!
      : undefined;
    if (over !== undefined && scope.vars.get(over)?.lines === true) return { line: true };
    return words.length >= 4 && words.slice(-4).join(" ") === ". splitlines ( )"
      ? { line: true }
      : {};
  }
  // `line = line.strip()`: the same line, its blanks trimmed (so `startswith` still narrows).
  const trims = /^[lr]?strip$/.test(s[from + 2]?.text ?? "") && s[from + 1]?.text === "." &&
    s[from + 3]?.text === "(" && closeOf(s, from + 3) === to - 1;
  if (trims && scope.vars.get(s[from]?.text ?? "")?.line === true) return { line: true };
  const start = s[from]?.text === "with" ? from + 1 : from;
  const opens = s[start]?.text === "open" && s[start + 1]?.text === "(" &&
    closeOf(s, start + 1) === to - 1;
  if (!opens) return {};
  const args = s.slice(start + 2, closeOf(s, start + 1));
  const plainMode = args.every((t) => t.text !== "newline" && t.text !== "buffering");
  return plainMode ? { lines: true } : {};
}

/** After the block: the variable holds the whole file again, with what the block added. */
function widen(scope: Scope, n: Narrowing): void {
  const now = scope.vars.get(n.name);
  if (n.added !== undefined) {
    // A name narrowed to a file: as the block left it, less what the test gave it.
    const labels = new Set([...(now ?? n.before).labels].filter((l) => l !== n.added));
    scope.vars.set(n.name, { ...(now ?? n.before), labels });
    return;
  }
  scope.vars.set(n.name, {
    ...n.before,
    labels: new Set([...n.before.labels, ...(now?.labels ?? [])]),
  });
}

/**
 * `if f.startswith(".env"):`, `if name.endswith(".env"):`, `if f == "id_rsa":`, `if ".env" in
 * f:`, `if re.search(r"id_rsa|\.env", f):`, `if fnmatch.fnmatch(f, "*.env"):` — a name the
 * script tests against a credential file's (a file a walk of a folder found, say): inside the
 * block that variable names such a file, so what opens a path made with it reads that secret
 * (`open(os.path.join(root, f)).read()` sent on).
 */
function narrowToFile(scope: Scope, s: readonly Token[]): Omit<Narrowing, "column"> | undefined {
  const tested = fileNameTest(s);
  if (tested === undefined) return undefined;
  const path = tested.paths.map(secretPath).find((p) => p !== undefined);
  const before = scope.vars.get(tested.name);
  if (path === undefined || before === undefined) return undefined;
  const added: Label = `file:${path}`;
  scope.vars.set(tested.name, { ...before, labels: new Set([...before.labels, added]) });
  return { name: tested.name, before, added };
}

/** An SSH key's name (`id_…`) is one under ~/.ssh; any other name is judged as written. */
const keyFolder = (name: string) => /^id_\w*$/.test(name) ? "~/.ssh/" : "";

/** The variable an `if` tests as a file's name, and the paths (globs) that test admits. */
function fileNameTest(s: readonly Token[]): { name: string; paths: string[] } | undefined {
  const words = s.map((t) => t.text);
  if (words[0] !== "if" || words.at(-1) !== ":") return undefined;
  const [, a, b, c, d, e, f, g] = words;
  if (s[1]?.kind === "name" && words.length === 8 && b === "." && d === "(" && f === ")") {
    if (s[5]?.kind !== "string") return undefined;
    if (c === "startswith") return { name: a!, paths: [`${keyFolder(e!)}${e}*`] };
    return c === "endswith" ? { name: a!, paths: [`*${e}`] } : undefined;
  }
  if (words.length === 5 && b === "==" && s[1]?.kind === "name" && s[3]?.kind === "string") {
    return { name: a!, paths: [`${keyFolder(c!)}${c}`] };
  }
  if (words.length === 5 && b === "in" && s[1]?.kind === "string" && s[3]?.kind === "name") {
    return { name: c!, paths: [`${keyFolder(a!)}${a}*`] };
  }
  if (words.length !== 10 || b !== "." || d !== "(" || f !== "," || words[8] !== ")") {
    return undefined;
  }
  if (/^re\.(?:search|match|fullmatch)$/.test(`${a}.${c}`) && s[5]?.kind === "string") {
    const literals = regexAlternatives(e!);
    return s[7]?.kind === "name"
      ? { name: g!, paths: literals.flatMap((l) => [`${keyFolder(l)}${l}*`, `*${l}`]) }
      : undefined;
  }
  return `${a}.${c}` === "fnmatch.fnmatch" && s[5]?.kind === "name" && s[7]?.kind === "string"
    ? { name: e!, paths: [g!] }
    : undefined;
}

/** A regular expression's alternatives that are plain text: `^id_rsa|\.env$` → id_rsa, .env. */
function regexAlternatives(source: string): string[] {
  return source.split("|")
    .map((alt) => alt.replace(/^\^|\$$/g, "").replace(/\\(.)/g, "$1"))
    .filter((alt) => alt !== "" && !/[*+?()[\]{}\\^$]/.test(alt));
}

/** For each statement, the Python class whose body holds it ("" outside any class). */
function enclosingClasses(list: readonly Token[][], columns: readonly number[]): string[] {
  const open: { column: number; name: string }[] = [];
  return list.map((s, i) => {
    const column = columns[i]!;
    while (open.length > 0 && open[open.length - 1]!.column >= column) open.pop();
    const inside = open[open.length - 1]?.name ?? "";
    if (s[0]?.text === "class" && s[1]?.kind === "name") open.push({ column, name: s[1].text });
    return inside;
  });
}

/**
 * For each JavaScript statement, the class whose body holds it, at any depth ("" outside any
 * class): `class Up {` opens it at its brace, and the matching brace closes it. Statements
 * hold the tokens themselves, in order, so one pass over both pairs them.
 */
function jsEnclosingClasses(tokens: readonly Token[], list: readonly Token[][]): string[] {
  const classes = list.map(() => "");
  // One entry per brace open: the class it opens or is inside of, if any.
  const open: string[] = [];
  let named: string | undefined; // `class Name` read, its body's brace not yet
  let next = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    while (next < list.length && list[next]![0]!.at < t.at) next++;
    if (list[next]?.[0] === t) classes[next++] = open.at(-1) ?? "";
    if (t.kind === "name" && t.text === "class" && tokens[k + 1]?.kind === "name") {
      named = tokens[k + 1]!.text;
    } else if (t.kind === "op" && t.text === "{") {
      open.push(named ?? open.at(-1) ?? "");
      named = undefined;
    } else if (t.kind === "op" && t.text === "}") open.pop();
  }
  return classes;
}

/** Words before a class member's name (`static send = fetch`, TypeScript's `private`). */
const MEMBER_MODIFIERS = /^(?:static|public|private|protected|readonly|declare|override|accessor)$/;

/**
 * A class field's statement without its modifiers: `static send = fetch` is `send = fetch`. A
 * method's head (`static async go(k) {`) stays as written: enterFunction reads past them.
 */
function withoutModifiers(s: Token[]): Token[] {
  if (BLOCK_HEADS.has(s)) return s;
  let k = 0;
  while (s[k]?.kind === "name" && MEMBER_MODIFIERS.test(s[k]!.text) && s[k + 1]?.kind === "name") {
    k++;
  }
  // A static block (`static { … }`) is its statements, read as they come.
  if (s.length === 1 && s[0]!.text === "static") return [];
  return k === 0 ? s : s.slice(k);
}

/** Python's keywords: words of a body that read nothing. */
const PY_KEYWORDS = new Set(
  ("False None True and as assert async await break continue del elif else except finally " +
    "for if in is not or pass raise return try while with yield").split(" "),
);
/** Builtins that compute from their arguments alone (no module, frame or global state). */
const PURE_BUILTINS = new Set(
  ("str int float bool bytes list dict tuple set frozenset len min max sum sorted reversed " +
    "range enumerate zip any all abs round repr isinstance ValueError TypeError KeyError")
    .split(" "),
);

/**
 * Whether a method body reads nothing but its parameters: every name in it (f-strings'
 * holes too) is a parameter, a name the body assigns, an attribute (`q.lower`), a keyword
 * argument's name, a keyword or a pure builtin. `self` is its first parameter and not one of
 * them; `super()`, `locals()`, `sys._getframe()`, a module or a global are names of the
 * world outside and make it no such body.
 */
function readsOnlyParameters(def: readonly Token[], body: readonly Token[][]): boolean {
  const open = def.findIndex((t) => opText(t) === "(");
  if (open === -1) return false;
  const bound = new Set<string>();
  for (const [from, to] of argumentRanges(def, open, closeOf(def, open))) {
    const param = def.slice(from, to).find((t) => t.kind === "name");
    if (param !== undefined && param.text !== "self") bound.add(param.text);
  }
  for (const s of body) {
    // An assignment's `=` is outside every bracket: `f(depth=1)` binds nothing.
    let depth = 0;
    const eq = s.findIndex((token) => {
      const t = opText(token);
      if (t === "(" || t === "[" || t === "{") depth++;
      else if (t === ")" || t === "]" || t === "}") depth--;
      return depth === 0 && (t === "=" || t === "+=");
    });
    const targets = s[0]?.text === "for"
      ? s.slice(1, s.findIndex((t) => t.text === "in"))
      : s[0]?.text === "with"
      ? s.slice(s.findIndex((t) => t.text === "as") + 1, -1)
      : eq > 0
      ? s.slice(0, eq).filter((_, k, left) => left[k - 1]?.text !== ".")
      : [];
    for (const t of targets) if (t.kind === "name") bound.add(t.text);
  }
  const reads = (s: readonly Token[]): boolean =>
    s.some((t, k) =>
      (t.kind === "name" && s[k - 1]?.text !== "." &&
        !(s[k + 1]?.text === "=" && s[k - 1] !== undefined && /[(,]/.test(s[k - 1]!.text)) &&
        !bound.has(t.text) && !PY_KEYWORDS.has(t.text) && !PURE_BUILTINS.has(t.text)) ||
      (t.holes ?? []).some(reads)
    );
  return !body.some(reads);
}

/**
 * The Python methods, as `Class.method`, a call `self.m(…)` of which in that class's body
 * can return nothing of the instance: the class defines `m` itself, the body of every
 * `def m` of the script reads nothing but its parameters ({@link readsOnlyParameters}),
 * none is decorated (a decorator can hand back a result of its own), the name is used
 * nowhere else than `def m` and `.m(` (no `self.m = …`, no `m = …` in a class body, no "m"
 * string for getattr or setattr), and no class of the script answers attributes itself
 * (`__getattr__`).
 *
 * Why: `self` is one container to this analysis, so a key one method put into it (a client
 * built with `api_key=os.getenv("X_API_KEY")`) is carried by whatever any other method
 * returns — a prompt formatted from its arguments alone then "sends" that key to the other
 * API. Such a call carries its arguments' labels and its summary's instead; any other
 * method keeps carrying all of `self`.
 */
function selfFreeMethods(
  list: readonly Token[][],
  classes: readonly string[],
  columns: readonly number[],
): Set<string> {
  const verdict = new Map<string, boolean>();
  const owners = new Map<string, string[]>();
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    const k = s[0]?.text === "async" ? 1 : 0;
    if (s[k]?.text !== "def" || s[k + 1]?.kind !== "name") continue;
    const name = s[k + 1]!.text;
    let end = i + 1;
    while (end < list.length && columns[end]! > columns[i]!) end++;
    const free = list[i - 1]?.[0]?.text !== "@" && readsOnlyParameters(s, list.slice(i + 1, end));
    verdict.set(name, (verdict.get(name) ?? true) && free);
    if (classes[i] !== "") owners.set(name, [...owners.get(name) ?? [], classes[i]!]);
  }
  if (verdict.has("__getattr__") || verdict.has("__getattribute__")) return new Set();
  // Any other use of the name (f-strings' holes too) than its definitions and `.m(` calls.
  const scan = (s: readonly Token[], definition: number) => {
    for (let at = 0; at < s.length; at++) {
      const t = s[at]!;
      const call = t.kind === "name" && s[at - 1]?.text === "." && s[at + 1]?.text === "(";
      if (at !== definition && !call && verdict.has(t.text)) verdict.set(t.text, false);
      for (const hole of t.holes ?? []) scan(hole, -1);
    }
  };
  for (const s of list) {
    const k = s[0]?.text === "async" ? 1 : 0;
    scan(s, s[k]?.text === "def" ? k + 1 : -1);
  }
  return new Set(
    [...verdict].filter(([, free]) => free).flatMap(([name]) =>
      (owners.get(name) ?? []).map((owner) => `${owner}.${name}`)
    ),
  );
}

/**
 * `def name(a, b):`, `function name(a, b) {`, `const name = (a, b) =>`, `name = lambda a, b:`:
 * its parameters are bound to `param:i` labels so that the sinks they reach make the
 * function's summary. True when the statement starts a function whose body follows; its body
 * when that is one expression (`(c) => eval(c)`, a lambda's), read by
 * {@link readExpressionBody}; false when it starts no function.
 */
function enterFunction(scope: Scope, s: readonly Token[]): boolean | ExpressionBody {
  let k = s[0]?.text === "async" || s[0]?.text === "export" ? 1 : 0;
  if (s[k]?.text === "async") k++;
  let name: string | undefined;
  let open = -1;
  let close = -1;
  let method = false;
  const n = generatorStar(s, k);
  if ((s[k]?.text === "def" || s[k]?.text === "function") && s[n]?.kind === "name") {
    name = s[n]!.text;
    open = s[n + 1]?.text === "(" ? n + 1 : -1;
  } else if (/^(?:const|let|var)$/.test(s[k]?.text ?? "") && s[k + 2]?.text === "=") {
    name = s[k + 1]!.text;
    let j = k + 3;
    if (s[j]?.text === "async") j++;
    const expression = s[j]?.text === "function";
    if (expression) j = generatorStar(s, j);
    open = s[j]?.text === "(" && s[closeOf(s, j) + 1]?.text === "=>" || expression ? j : -1;
  } else if (scope.language === "javascript" && BLOCK_HEADS.has(s)) {
    // A class's or an object's method, `async send(v) {`: a function by its name, which a call
    // `x.send(…)` of it reaches (checkCall).
    const m = s.findIndex((t) => !/^(?:async|static|get|set|\*)$/.test(t.text));
    if (
      s[m]?.kind === "name" && !JS_KEYWORDS.has(s[m]!.text) && s[m + 1]?.text === "(" &&
      closeOf(s, m + 1) === s.length - 1
    ) {
      name = s[m]!.text;
      open = m + 1;
      method = true;
    }
  } else if (s[0]?.kind === "name" && s[1]?.text === "=" && s[2]?.text === "lambda") {
    // `run = lambda c: exec(c)`: the parameters between `lambda` and its `:`.
    name = s[0]!.text;
    open = 2;
    close = s.findIndex((t, j) => j > 2 && opText(t) === ":");
  }
  if (name === undefined || open === -1) return false;
  if (close === -1) {
    if (s[open]?.text !== "(") return false;
    close = closeOf(s, open);
  }
  const summary: FunctionSummary = { sinks: [], returns: new Set() };
  if (method || (scope.inClass !== "" && s[open + 1]?.text === "self")) {
    summary.method = true;
    scope.methods.add(name);
  }
  for (const decorator of scope.decorators.splice(0)) {
    summary.sinks.push(...scope.functions.get(decorator)?.made?.sinks ?? []);
  }
  scope.functions.set(name, summary);
  scope.current = { name, summary };
  // One expression for its body: after the lambda's `:`, or after an arrow not followed by `{`.
  const from = s[close]?.text === ":" ? close + 1 : s[close + 1]?.text === "=>" ? close + 2 : -1;
  const to = s.at(-1)?.text === ";" ? s.length - 1 : s.length;
  const expression = from !== -1 && from < to && s[from]!.text !== "{";
  const shadowed = expression ? new Map<string, Variable | undefined>() : undefined;
  bindParameters(scope, s, summary, [open, close], shadowed);
  return shadowed === undefined ? true : { range: [from, to], shadowed };
}

/**
 * A function's body that is one expression: its range in the statement, and what its
 * parameters hid of the script's variables of their names (given back when it ends).
 */
interface ExpressionBody {
  range: [number, number];
  shadowed: Map<string, Variable | undefined>;
}

/**
 * A function whose body is one expression, read where it is written: its sinks make its
 * summary and its value what it returns; then the function ends (`outer`, the one around it,
 * is read on), and its parameters are the script's variables of those names again.
 */
function readExpressionBody(
  scope: Scope,
  s: readonly Token[],
  { range: [from, to], shadowed }: ExpressionBody,
  outer: Scope["current"],
) {
  const current = scope.current!;
  const body = s.slice(from, to);
  for (const l of labelsOf(scope, body, 0, body.length)) current.summary.returns.add(l);
  current.summary.made ??= arrowMade(scope, body, 0, body.length);
  walkStatement(scope, body);
  scope.current = outer;
  for (const [name, variable] of shadowed) {
    if (variable === undefined) scope.vars.delete(name);
    else scope.vars.set(name, variable);
  }
}

/**
 * Binds the parameters between `open` and `close` (a list's brackets, or a lambda's); notes in
 * `shadowed`, when given, the script's variables they hide.
 */
function bindParameters(
  scope: Scope,
  s: readonly Token[],
  summary: FunctionSummary,
  [open, close]: [number, number],
  shadowed?: Map<string, Variable | undefined>,
): void {
  let index = 0;
  let variadic = false;
  for (const [from, to] of argumentRanges(s, open, close)) {
    if (SPREAD.test(s[from]?.text ?? "")) variadic = true;
    const at = s.slice(from, to).findIndex((t) => t.kind === "name") + from;
    const param = at >= from ? s[at]! : undefined;
    if (param === undefined || param.text === "self" || param.text === "cls") continue;
    const position = index++;
    const entry: Variable = { labels: new Set<Label>([`param:${position}`]), parameter: position };
    const fallback = defaultOf(s, at, to);
    if (fallback !== undefined) {
      // What a call that leaves it out reads: `{ env = process.env } = {}`, `key=os.environ`.
      for (const l of labelsOf(scope, s, fallback[0], fallback[1])) entry.labels.add(l);
      const value = s.slice(fallback[0], fallback[1]).map((t) => t.text).join("");
      if (ENV_OBJECTS.test(value) || isEnvironmentCopy(s, fallback[0], fallback[1])) {
        entry.environment = true; // what the body reads of it is one variable
      }
    }
    if (shadowed !== undefined && !shadowed.has(param.text)) {
      shadowed.set(param.text, scope.vars.get(param.text));
    }
    scope.vars.set(param.text, entry);
  }
  if (!variadic) summary.arity = index;
}

/**
 * The tokens of a parameter's default value (`name = value`, in a destructured one too), from
 * the parameter's name at `at` to the end of the value, before `to`.
 */
function defaultOf(s: readonly Token[], at: number, to: number): [number, number] | undefined {
  if (s[at + 1]?.text !== "=") return undefined;
  // It ends at a comma, or at the bracket that closes a destructured parameter around it.
  return [at + 2, outsideBrackets(s, at + 2, to, (t) => /^[,)\]}]$/.test(opText(t)))];
}

/** `*args`, `**kwargs`, `...rest`: a parameter or an argument standing for many. */
const SPREAD = /^(?:\*|\*\*|\.\.\.)$/;

/**
 * Whether a call of a function of the script passes only what its summary can name: at most
 * its positional parameters, each by position (no `key=value`, no `*list` or `...list`).
 */
function positionalCall(tokens: readonly Token[], open: number, own: FunctionSummary): boolean {
  const ranges = argumentRanges(tokens, open, closeOf(tokens, open));
  return own.arity !== undefined && ranges.length <= own.arity &&
    ranges.every(([from, to]) =>
      !SPREAD.test(tokens[from]?.text ?? "") &&
      !tokens.slice(from, to).some((t) => opText(t) === "=")
    );
}

/** A sink reached: the flow, and the summary of the function it stands in. */
function reach(
  scope: Scope,
  kind: "send" | "exec" | "persist",
  at: number,
  labels: ReadonlySet<Label>,
  host: string | undefined,
  via: string,
  hidden = false,
  to?: number,
): void {
  if (kind === "send") scope.sink.send(at, labels, host, via, hidden);
  else if (kind === "exec") scope.sink.exec(at, labels, via);
  else scope.sink.persist(at, labels, via);
  if (scope.current === undefined) return;
  for (const l of labels) {
    if (l.startsWith("param:")) {
      scope.current.summary.sinks.push({ param: Number(l.slice(6)), kind, host, via, to });
    } else if (l.startsWith("closure:")) {
      scope.around?.sinks.push({ param: Number(l.slice(8)), kind, host, via });
    }
  }
}

/** A call of a function of the script: its summary's sinks get the arguments' labels. */
function callSummary(
  scope: Scope,
  s: readonly Token[],
  k: number,
  summary: FunctionSummary,
  open: number,
  receiver: ReadonlySet<Label>,
): void {
  const ranges = argumentRanges(s, open, closeOf(s, open));
  for (const { param, kind, host, via, to } of summary.sinks) {
    const range = ranges[param];
    if (range === undefined && param !== -1) continue;
    // Sent to the address the call gives (`send("https://…", key)` of `def send(url, data)`).
    const address = to === undefined ? undefined : ranges[to];
    reach(
      scope,
      kind,
      s[k]!.at,
      range === undefined ? receiver : labelsOf(scope, s, range[0], range[1]),
      host ?? (address === undefined ? undefined : hostIn(scope, s, address[0], address[1])),
      `${s[k]!.text} → ${via}`,
    );
  }
}

/**
 * What the object a method is called on holds (`c` of `c.send()`: what it was made with), for
 * the sinks the method reaches with what it reads of `self` or `this` ({@link RECEIVER}).
 */
function receiverLabels(scope: Scope, name: string): Set<Label> {
  if (!name.includes(".")) return new Set();
  const base = name.split(".")[0]!;
  // A method's own object stands for what it was made with, in turn: the fields it set from
  // other values the method called reads as they are.
  if ((base === "self" || base === "this") && scope.current?.summary.method) {
    return new Set([RECEIVER]);
  }
  return new Set(scope.vars.get(base)?.labels);
}

/**
 * Whether `name`, read in a method, is a field of its object a method set from a parameter
 * (`self.k = k`): what the object was made with ({@link RECEIVER}). A field set from anything
 * else holds that, read as it is; the whole object (`vars(self)`) holds every field.
 */
function readsParamField(scope: Scope, name: string): boolean {
  const [base, field] = name.split(".");
  if ((base !== "self" && base !== "this") || !scope.current?.summary.method) return false;
  return field === undefined ? scope.paramFields.size > 0 : scope.paramFields.has(field);
}

/** What a call of a function of the script returns: its own labels, and its arguments'. */
function returnLabels(
  scope: Scope,
  s: readonly Token[],
  open: number,
  summary: FunctionSummary,
): Label[] {
  const ranges = argumentRanges(s, open, closeOf(s, open));
  return [...summary.returns].flatMap((l): Label[] => {
    if (l.startsWith("envparam:")) {
      return namedByArgument(scope, s, open, summary, l as `envparam:${number}`);
    }
    if (!l.startsWith("param:")) return [l];
    const range = ranges[Number(l.slice(6))];
    return range === undefined ? [] : [...labelsOf(scope, s, range[0], range[1])];
  });
}

/**
 * The environment variable a function returns by the name its caller passes (`envparam:i`):
 * the variable the argument names when it is a constant passed by position, else any.
 */
function namedByArgument(
  scope: Scope,
  s: readonly Token[],
  open: number,
  summary: FunctionSummary,
  label: `envparam:${number}`,
): Label[] {
  const key = positionalCall(s, open, summary)
    ? constantArgument(scope, s, argumentRanges(s, open, closeOf(s, open))[Number(label.slice(9))])
    : undefined;
  if (key === undefined) return ["env:*"];
  return secretName(key) ? [`env:${key}`] : [];
}

// --- names -------------------------------------------------------------------------------

const MODULE_PREFIX = /^node:/;

/** `a.b.c` starting at token `k` (aliases resolved, `getattr(x, "y")` read as `x.y`). */
function dottedAt(
  scope: Scope,
  tokens: readonly Token[],
  k: number,
): { name: string; end: number } {
  let end = k + 1;
  let name = tokens[k]!.text;
  if (name === "new" && tokens[k + 1]?.kind === "name") {
    const inner = dottedAt(scope, tokens, k + 1);
    return { name: `new ${inner.name}`, end: inner.end };
  }
  const looked = attributeLookup(scope, tokens, k, name);
  if (looked !== undefined) return looked;
  if (name === "require" && tokens[k + 1]?.text === "(" && tokens[k + 2]?.kind === "string") {
    name = tokens[k + 2]!.text.replace(MODULE_PREFIX, "");
    end = k + 4;
  } else if (NAMESPACE_OF.test(name) && tokens[k + 1]?.text === "(") {
    // `vars(builtins)`, `globals()`: the namespace itself, as a dictionary.
    const close = closeOf(tokens, k + 1);
    const inner = tokens[k + 2];
    if (name !== "vars" && close === k + 2) name = "globals()";
    else if (name === "vars" && inner?.kind === "name" && close === k + 3) {
      name = scope.aliases.get(inner.text) ?? inner.text;
    } else return { name, end };
    end = close + 1;
  } else name = scope.aliases.get(name) ?? name;
  for (;;) {
    const next = tokens[end]?.text;
    const entry = containerEntry(scope, tokens, name, end);
    if (entry !== undefined) ({ name, end } = entry);
    else if (next === "." || next === "?.") {
      const part = tokens[end + 1];
      if (part?.kind !== "name") break;
      // `builtins.__dict__` is the module's namespace: its entries are its attributes.
      if (part.text !== "__dict__") name += "." + part.text;
      end += 2;
    } else if (next === "[" && !NAMESPACES.test(name) && moduleEntry(scope, tokens, name, end)) {
      // A module's function read by a constant key: `axios[m]` with `m = "po" + "st"`.
      const close = closeOf(tokens, end);
      name += "." + constantOf(scope, tokens, end + 1, close);
      end = close + 1;
    } else if (next === "[" && NAMESPACES.test(name)) {
      // A namespace's entry read by a constant key is that attribute: `vars(builtins)["exec"]`
      // is `builtins.exec`, `globalThis["eval"]` is `globalThis.eval`.
      const close = closeOf(tokens, end);
      const key = constantOf(scope, tokens, end + 1, close);
      if (key === undefined) decodedName(scope, tokens, end + 1, close);
      if (key === undefined || !/^\w+$/.test(key)) break;
      name += "." + key;
      end = close + 1;
    } else if (next === "(" && MODULE_LOADERS.test(name)) {
      // `__import__("os")`, `importlib.import_module("os")`: that module, named by a constant.
      const close = closeOf(tokens, end);
      const module = constantOf(scope, tokens, end + 1, close);
      if (module === undefined || !/^[\w.]+$/.test(module)) break;
      name = scope.aliases.get(module) ?? module;
      end = close + 1;
    } else if (next === "(" && NATIVE_LIBRARY.test(name)) {
      // A C library loaded by ctypes (`ctypes.CDLL(None)`): its `system` is the shell's.
      end = closeOf(tokens, end) + 1;
      name = "libc";
    } else break;
    // Named as what they are: `__builtins__.exec` is `builtins.exec`, and in JavaScript the
    // global object's members are the globals (`globalThis.process.env`, `window["eval"]`).
    if (name.startsWith("__builtins__") || name.startsWith("globals()")) {
      name = name.replace(/^(?:globals\(\)\.)?__builtins__\b/, "builtins");
    } else if (name.startsWith("sys.modules.")) {
      name = name.slice("sys.modules.".length); // `sys.modules["requests"]` is the module
    } else if (name === "Bun.env") {
      name = "process.env"; // Bun's environment is Node's
    } else if (scope.language === "javascript" && /^(?:gl|wi)/.test(name)) {
      name = name.replace(GLOBAL_OBJECT, "");
    }
  }
  return { name: classAttribute(scope, name), end };
}

/**
 * `C.post` or, in a method of `C`, `self.post` (JavaScript's `this.post`): the function the
 * class's attribute names.
 */
function classAttribute(scope: Scope, name: string): string {
  if (!name.includes(".")) return name;
  const self = scope.language === "python" ? /^(?:self|cls)\./ : /^this\./;
  const own = self.test(name) && scope.inClass !== ""
    ? `${scope.inClass}.${name.slice(name.indexOf(".") + 1)}`
    : name;
  return scope.aliases.get(own) ?? name;
}

/**
 * What an object keeps of what a method assigns to it (`self.k = k`, `this.k = k`): not the
 * method's parameters, which stand for the arguments of its calls — the object made with them
 * holds those (`c = C(key)`), and the method's {@link RECEIVER} reads them back.
 */
function kept(scope: Scope, target: string, labels: ReadonlySet<Label>): Iterable<Label> {
  const [base, field] = target.split(".");
  if ((base !== "self" && base !== "this") || !scope.current?.summary.method) return labels;
  const out = [...labels].filter((l) => !l.startsWith("param:"));
  if (out.length < labels.size) scope.paramFields.add(field ?? "");
  return out;
}

/**
 * A namespace's entry or an attribute looked up by a name decoded at run time, the tokens
 * `[from, to)` (`globalThis[atob("ZXZhbA==")]`, `getattr(builtins, b64decode(…).decode())`):
 * which function runs is hidden from whoever reads the script.
 */
function decodedName(scope: Scope, tokens: readonly Token[], from: number, to: number): void {
  if (from >= to || !labelsOf(scope, tokens, from, to).has("decoded")) return;
  scope.sink.add({
    kind: "assembled-name",
    at: tokens[from]!.at,
    detail: "a function looked up by a name decoded at run time",
    secrets: [],
  });
}

/**
 * `getattr(target, "name")`, and JavaScript's `Reflect.get(target, "name")`, at `k`: the
 * attribute a constant names (`requests.post`); a name decoded at run time is noted
 * ({@link decodedName}).
 */
function attributeLookup(
  scope: Scope,
  tokens: readonly Token[],
  k: number,
  name: string,
): { name: string; end: number } | undefined {
  const reflected = name === "Reflect" && tokens[k + 1]?.text === "." &&
      tokens[k + 2]?.text === "get"
    ? 2
    : 0;
  const open = k + reflected + 1;
  if ((name !== "getattr" && reflected === 0) || tokens[open]?.text !== "(") return undefined;
  const close = closeOf(tokens, open);
  const [object, key] = argumentRanges(tokens, open, close);
  if (object === undefined || key === undefined || tokens[object[0]]?.kind !== "name") {
    return undefined;
  }
  const attr = constantOf(scope, tokens, key[0], key[1]);
  if (attr === undefined) decodedName(scope, tokens, key[0], key[1]);
  if (attr === undefined || !/^\w+$/.test(attr)) return undefined;
  // The object by its name, or a module loaded in place (`getattr(__import__("requests"), …)`).
  const target = dottedAt(scope, tokens, object[0]);
  return target.end === object[1] ? { name: `${target.name}.${attr}`, end: close + 1 } : undefined;
}

/**
 * An entry of a container of functions ({@link containerEntries}) read at `end`: by its key
 * (`senders.up`, `senders["a"]`, `senders[0]`), or by a computed one (`senders[k]`).
 */
function containerEntry(
  scope: Scope,
  tokens: readonly Token[],
  name: string,
  end: number,
): { name: string; end: number } | undefined {
  const any = scope.aliases.get(`${name}[]`);
  if (any === undefined) return undefined;
  const next = tokens[end]?.text;
  if ((next === "." || next === "?.") && tokens[end + 1]?.kind === "name") {
    const entry = scope.aliases.get(`${name}.${tokens[end + 1]!.text}`);
    if (entry !== undefined) return { name: entry, end: end + 2 };
    // A dictionary's `get(key)`: the entry of that key, as `senders[key]` reads it.
    if (tokens[end + 1]!.text !== "get" || tokens[end + 2]?.text !== "(") return undefined;
    const close = closeOf(tokens, end + 2);
    const [key] = argumentRanges(tokens, end + 2, close);
    const constant = key === undefined ? undefined : constantOf(scope, tokens, key[0], key[1]);
    return { name: scope.aliases.get(`${name}.${constant}`) ?? any, end: close + 1 };
  }
  if (next !== "[") return undefined;
  const close = closeOf(tokens, end);
  const key = constantOf(scope, tokens, end + 1, close);
  return { name: scope.aliases.get(`${name}.${key}`) ?? any, end: close + 1 };
}

/**
 * Whether `name[key]` at `end`, with a constant key, is a function the vocabulary names
 * (`axios["post"]`, `cp[m]` with `m = "exec" + "Sync"`): that function, as `name.key` would be.
 * A plain dictionary's entries stay entries (`headers["Authorization"]`).
 */
function moduleEntry(scope: Scope, tokens: readonly Token[], name: string, end: number): boolean {
  const key = constantOf(scope, tokens, end + 1, closeOf(tokens, end));
  return key !== undefined && /^\w+$/.test(key) && isSink(`${name}.${key}`);
}

/** Whether `name` is a function the vocabulary names: one that sends, runs, starts or decodes. */
function isSink(name: string): boolean {
  return SEND_CALLS.test(name) || EXEC_CALLS.test(name) || SHELL_CALLS.test(name) ||
    PROCESS_CALLS.test(name) || DECODE_CALLS.test(name);
}

/** JavaScript's global object, before the name of one of its members. */
const GLOBAL_OBJECT = /^(?:globalThis|global|window)\.(?=\w)/;

/** Calls that return a namespace as a dictionary. */
const NAMESPACE_OF = /^(?:vars|globals|locals)$/;

/**
 * Names whose entries, read by a constant key, are attributes (the sinks the vocabulary names):
 * the builtins, the module's globals, the JavaScript global object and the modules that hold
 * sinks. A plain dictionary's entries stay entries (`headers["Authorization"] = key`).
 */
const NAMESPACES =
  /^(?:builtins|__builtins__|globals\(\)|globalThis|global|window|os|subprocess|child_process|vm|libc|process|Deno|sys\.modules)$/;

/** Function's constructor reached through a value's: `[].constructor.constructor`. */
const FUNCTION_CONSTRUCTOR =
  /(?:^|\.)constructor\.constructor$|^Function(?:\.prototype)?\.constructor$/;

/** Calls that return the module their constant argument names. */
const MODULE_LOADERS = /^(?:__import__|importlib\.import_module)$/;

/** What loads a C library in Python's ctypes (its functions are the C library's). */
const NATIVE_LIBRARY =
  /^(?:ctypes\.)?(?:CDLL|PyDLL|cdll\.LoadLibrary|pydll\.LoadLibrary|cdll\.\w+)$/;

/** Each statement's bracket pairs, found once (calls ask for them over and over). */
const PAIRS = new WeakMap<readonly Token[], Int32Array>();

/** The index of the bracket closing the one at `open` (the end when it is not closed). */
function closeOf(tokens: readonly Token[], open: number): number {
  let pairs = PAIRS.get(tokens);
  if (pairs === undefined) {
    pairs = new Int32Array(tokens.length).fill(tokens.length);
    const stack: number[] = [];
    for (let k = 0; k < tokens.length; k++) {
      const t = opText(tokens[k]!);
      if (t === "(" || t === "[" || t === "{") stack.push(k);
      else if ((t === ")" || t === "]" || t === "}") && stack.length > 0) pairs[stack.pop()!] = k;
    }
    PAIRS.set(tokens, pairs);
  }
  return pairs[open] ?? tokens.length;
}

/** A parameter of a function written inline, and the tokens of its body. */
interface InlineParameter {
  name: string;
  /** The function's first token: its parameter list's `(`, or its one parameter. */
  start: number;
  from: number;
  to: number;
}

/** Each statement's inline functions' parameters, found once. */
const INLINE_PARAMETERS = new WeakMap<readonly Token[], InlineParameter[]>();

/**
 * The parameters of the functions a statement writes inline — `(r) => setTimeout(r, 9)`,
 * `x => x.id`, `lambda r: r.id` — each with its function's body: there the name is the
 * parameter, not a variable of that name around it (terrylica's provision.mjs reads a response
 * into `r` in one function and waits with `new Promise((r) => setTimeout(r, 4000))` in
 * another). The body ends where the bracket around the function closes, or the statement.
 */
function inlineParameters(tokens: readonly Token[]): InlineParameter[] {
  let found = INLINE_PARAMETERS.get(tokens);
  if (found !== undefined) return found;
  found = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    let names: string[] = [];
    let bodyFrom = k + 1;
    let start = k;
    if (opText(t) === "=>") {
      if (tokens[k - 1]?.text === ")") {
        start = openOf(tokens, k - 1);
        names = tokens.slice(start + 1, k - 1).filter((p, i, list) =>
          p.kind === "name" && [undefined, ",", "..."].includes(list[i - 1]?.text)
        ).map((p) => p.text);
      } else if (tokens[k - 1]?.kind === "name") {
        start = k - 1;
        names = [tokens[k - 1]!.text];
      }
    } else if (t.kind === "name" && t.text === "lambda") {
      const colon = tokens.findIndex((p, i) => i > k && opText(p) === ":");
      if (colon < 0) continue;
      names = tokens.slice(k + 1, colon).filter((p) => p.kind === "name").map((p) => p.text);
      bodyFrom = colon + 1;
    } else if (t.kind === "name" && t.text === "for" && k > 0) {
      // A comprehension's `for line in …` binds `line` in its whole bracket, the element
      // before it included: not the `line` a function elsewhere read a file into.
      const end = enclosingEnd(tokens, k);
      const within = tokens.findIndex((p, i) => i > k && i < end && p.text === "in");
      if (within < 0) continue;
      names = tokens.slice(k + 1, within).filter((p) => p.kind === "name").map((p) => p.text);
      start = openOf(tokens, end);
      bodyFrom = start + 1;
    }
    if (names.length === 0) continue;
    const to = enclosingEnd(tokens, bodyFrom);
    for (const name of names) found.push({ name, start, from: bodyFrom, to });
  }
  INLINE_PARAMETERS.set(tokens, found);
  return found;
}

/**
 * The variable the name at `k` reads: none where it is an inline function's parameter. Asked
 * of the statement's inline functions only when the name is a variable (most are not).
 */
function variableAt(
  scope: Scope,
  tokens: readonly Token[],
  k: number,
  base: string,
): Variable | undefined {
  const known = scope.vars.get(base);
  return known !== undefined && isInlineParameter(tokens, k, base) ? undefined : known;
}

/**
 * The attribute a dotted name reads, when the script assigned it (`self.key` in
 * `self.key.strip()`): the longest such prefix of two parts or more.
 */
function attributeOf(scope: Scope, name: string): Variable | undefined {
  if (!name.includes(".")) return undefined;
  const parts = name.split(".");
  for (let n = parts.length; n >= 2; n--) {
    const attribute = scope.vars.get(parts.slice(0, n).join("."));
    if (attribute !== undefined) return attribute;
  }
  return undefined;
}

/** Whether the name at `k` is a parameter of an inline function whose body holds `k`. */
function isInlineParameter(tokens: readonly Token[], k: number, name: string): boolean {
  return inlineParameters(tokens).some((p) => p.name === name && p.from <= k && k < p.to);
}

/** The index of the bracket opening the one that closes at `close` (0 when none does). */
function openOf(tokens: readonly Token[], close: number): number {
  for (let k = close - 1; k >= 0; k--) {
    const t = opText(tokens[k]!);
    if ((t === "(" || t === "[" || t === "{") && closeOf(tokens, k) === close) return k;
  }
  return 0;
}

/** The first bracket from `from` on that closes one opened before it (the end when none). */
function enclosingEnd(tokens: readonly Token[], from: number): number {
  let depth = 0;
  for (let k = from; k < tokens.length; k++) {
    const t = opText(tokens[k]!);
    if (t === "(" || t === "[" || t === "{") depth++;
    else if (t === ")" || t === "]" || t === "}") {
      if (depth === 0) return k;
      depth--;
    }
  }
  return tokens.length;
}

// --- callbacks ---------------------------------------------------------------------------

/** The callback values being worked out (callbackValue's keys): `d = d + c` reads itself once. */
const READING = new Set<string>();

/**
 * What a name inside a function written inline (a JavaScript callback, a Python lambda) holds
 * when no variable of the script does: a parameter is given what the function is called with
 * (`p.then((t) => …)` the promise's value, `res.on("data", (c) => …)` what `res` carries,
 * `https.get(u, (res) => …)` the response, `((c) => …)(code)` and `(lambda c: …)(src)` the
 * argument); a name the callback's body assigns (`let d = ""; … d += c`) holds what it is
 * assigned, everywhere in that body (its closures run after the assignments). A Python
 * comprehension's variable holds what it walks ({@link comprehensionValue}).
 */
function callbackValue(
  scope: Scope,
  tokens: readonly Token[],
  k: number,
  name: string,
): Set<Label> {
  const out = new Set<Label>();
  if (scope.language === "python") comprehensionValue(scope, tokens, k, name, out);
  const parameters = inlineParameters(tokens);
  if (parameters.length === 0) return out; // most statements: no inline function at all
  const assigned = assignmentsOf(tokens).get(name);
  const own = (parametersByName(tokens).get(name) ?? []).filter((p) => p.from <= k && k < p.to);
  if (own.length === 0 && assigned === undefined) return out;
  let known = CALLBACK_VALUES.get(tokens);
  if (known === undefined) CALLBACK_VALUES.set(tokens, known = new Map());
  const innermost = own.sort((a, b) => b.from - a.from)[0];
  const around = parameters.filter((p) => p.from <= k && k < p.to);
  // One answer per parameter, and per name in the same bodies: a long file of nested
  // callbacks asks the same thing at every use.
  const key = innermost !== undefined
    ? `p${innermost.start}`
    : `a${name}@${around.map((p) => p.from).join(",")}`;
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  if (READING.has(key) || READING.size > 16) return out;
  READING.add(key);
  try {
    if (innermost !== undefined) {
      for (const l of callbackInput(scope, tokens, innermost)) out.add(l);
    } else {
      for (const [from, to] of assigned!) {
        if (!around.some((body) => body.from <= from && to <= body.to)) continue;
        for (const l of labelsOf(scope, tokens, from, to)) out.add(l);
      }
    }
    known.set(key, out);
    return out;
  } finally {
    READING.delete(key);
  }
}

/**
 * `[exec(s) for s in [src]]`, `{k: f(v) for k, v in pairs}`: the variable a comprehension
 * around `k` binds holds what its `for … in` walks (into `out`).
 */
function comprehensionValue(
  scope: Scope,
  tokens: readonly Token[],
  k: number,
  name: string,
  out: Set<Label>,
): void {
  for (const c of comprehensionsOf(tokens)) {
    if (!c.names.has(name) || k < c.open || k > c.close) continue;
    const key = `c${c.walked[0]}`;
    if (READING.has(key)) continue;
    READING.add(key);
    try {
      for (const l of labelsOf(scope, tokens, c.walked[0], c.walked[1])) out.add(l);
    } finally {
      READING.delete(key);
    }
  }
}

interface Comprehension {
  names: Set<string>;
  /** Its brackets. */
  open: number;
  close: number;
  /** What its `for … in` walks. */
  walked: [number, number];
}

/** Each statement's comprehensions, found once. */
const COMPREHENSIONS = new WeakMap<readonly Token[], Comprehension[]>();

function comprehensionsOf(tokens: readonly Token[]): Comprehension[] {
  let found = COMPREHENSIONS.get(tokens);
  if (found !== undefined) return found;
  found = [];
  for (let j = 0; j < tokens.length; j++) {
    if (tokens[j]!.text !== "for" || tokens[j]!.kind !== "name") continue;
    const close = enclosingEnd(tokens, j);
    const into = tokens.findIndex((t, i) => i > j && t.text === "in" && t.kind === "name");
    if (close === tokens.length || into === -1 || into > close) continue;
    const names = tokens.slice(j + 1, into).filter((t) => t.kind === "name").map((t) => t.text);
    const end = outsideBrackets(tokens, into + 1, close, (t) => /^(?:if|for)$/.test(t.text));
    found.push({
      names: new Set(names),
      open: openOf(tokens, close),
      close,
      walked: [into + 1, end],
    });
  }
  COMPREHENSIONS.set(tokens, found);
  return found;
}

/** Each statement's inline functions' parameters by name. */
const PARAMETERS_BY_NAME = new WeakMap<readonly Token[], Map<string, InlineParameter[]>>();

function parametersByName(tokens: readonly Token[]): Map<string, InlineParameter[]> {
  let found = PARAMETERS_BY_NAME.get(tokens);
  if (found !== undefined) return found;
  found = new Map();
  for (const p of inlineParameters(tokens)) found.set(p.name, [...(found.get(p.name) ?? []), p]);
  PARAMETERS_BY_NAME.set(tokens, found);
  return found;
}

/** Each statement's callback values worked out (callbackValue), by parameter or name. */
const CALLBACK_VALUES = new WeakMap<readonly Token[], Map<string, Set<Label>>>();

/** What the first parameter of the inline function `p` is called with, when the call says. */
function callbackInput(scope: Scope, tokens: readonly Token[], p: InlineParameter): Set<Label> {
  const none = new Set<Label>();
  if (tokens[p.start + 1]?.kind === "name" && tokens[p.start + 1]!.text !== p.name) return none;
  let open = p.start - 1;
  while (open >= 0 && opText(tokens[open]!) !== "(") {
    const t = opText(tokens[open]!);
    if (t === ")" || t === "]" || t === "}") open = openOf(tokens, open);
    open--;
  }
  if (open < 0 || closeOf(tokens, open) < p.to) return none;
  const callee = tokens[open - 1];
  // `((c) => eval(c))(code)`, `(lambda c: exec(c))(src)`: called where it is written.
  const call = closeOf(tokens, open) + 1;
  if (open + 1 === p.start && tokens[call]?.text === "(" && callee?.kind !== "name") {
    const [first] = argumentRanges(tokens, call, closeOf(tokens, call));
    return first === undefined ? none : labelsOf(scope, tokens, first[0], first[1]);
  }
  if (callee?.kind !== "name") return none;
  const dot = tokens[open - 2]?.text;
  const args = () => argumentRanges(tokens, open, closeOf(tokens, open));
  const labelsIn = (ranges: [number, number][]) =>
    new Set(ranges.flatMap(([a, b]) => [...labelsOf(scope, tokens, a, b)]));
  // Python's `map(lambda v: …, [key])`, `filter(…)`, an executor's or a pool's `ex.map(…)`:
  // what the iterables after it hold; `sorted([key], key=lambda v: …)`, `min`, `max`: what
  // the first holds, and a list's own `.sort(key=…)` what the list holds.
  if (scope.language === "python") {
    if (/^(?:map|filter|imap|imap_unordered|starmap)$/.test(callee.text)) {
      return labelsIn(args().slice(1));
    }
    if (/^(?:sorted|min|max)$/.test(callee.text) && dot !== ".") {
      return labelsIn(args().slice(0, 1));
    }
    if (callee.text === "sort" && dot === ".") {
      return labelsOf(scope, tokens, receiverStart(tokens, open - 3), open - 2);
    }
  }
  // `p.then((v) => …)`, `res.on("data", (c) => …)`, `[key].forEach((v) => …)`: what the
  // receiver holds or gives; `Array.prototype.map.call([key], (v) => …)`: what its first
  // argument holds.
  if ((dot === "." || dot === "?.") && ITERATING_METHODS.test(callee.text)) {
    return labelsOf(scope, tokens, receiverStart(tokens, open - 3), open - 2);
  }
  if (
    callee.text === "call" && dot === "." && ITERATING_METHODS.test(tokens[open - 3]?.text ?? "")
  ) {
    return labelsIn(args().slice(0, 1));
  }
  const { name } = dottedAt(scope, tokens, receiverStart(tokens, open - 1));
  return FETCH_CALLS.test(name) || FETCH_CALLS.test(name.split(".").slice(-2).join("."))
    ? new Set<Label>(["fetched"])
    : none;
}

/** Methods that hand their callback what their receiver holds, gives or walks. */
const ITERATING_METHODS =
  /^(?:then|on|once|addListener|forEach|map|flatMap|filter|find|findLast|some|every|reduce|reduceRight)$/;

/**
 * `p.then(eval)`, `p.then(cp.execSync)`: a function that runs code, handed the promise's value
 * (the method's name at `k`).
 */
function thenRuns(scope: Scope, s: readonly Token[], k: number): void {
  const [first] = argumentRanges(s, k + 1, closeOf(s, k + 1));
  if (first === undefined || s[first[0]]?.kind !== "name") return;
  const { name, end } = dottedAt(scope, s, first[0]);
  if (end !== first[1] || !runsItsArgument(name)) return;
  const value = labelsOf(scope, s, receiverStart(s, k - 2), k - 1);
  reach(scope, "exec", s[first[0]]!.at, value, undefined, name);
}

/** Functions whose first argument is code or a command line they run. */
const RUNS_ITS_ARGUMENT =
  /^(?:exec|eval|builtins\.(?:exec|eval)|(?:globalThis|global|window|self)\.eval)$/;

/** Whether the function `name` runs its first argument as code or as a shell's command line. */
function runsItsArgument(name: string): boolean {
  return RUNS_ITS_ARGUMENT.test(name) || SHELL_CALLS.test(name);
}

/**
 * A function that runs code handed as a value, with the arguments it will be called with, to
 * a call that calls it: `map(exec, [src])`, `functools.partial(os.system, cmd)()`,
 * `threading.Thread(target=exec, args=(src,))`, `loop.run_in_executor(None, os.system, cmd)`.
 * What the call's other arguments carry is run.
 */
function handedCodeRunner(scope: Scope, s: readonly Token[], open: number, at: number): void {
  if (!handsRunner(scope, s)) return; // most statements name no code runner as a value
  const close = closeOf(s, open);
  // Most calls: no argument is a bare name of a code runner (looked for before any reading).
  let named = false;
  for (let k = open + 1; k < close && !named; k++) named = runnerNamedAt(scope, s, k);
  if (!named) return;
  const ranges = argumentRanges(s, open, close);
  let runner: string | undefined;
  const rest = new Set<Label>();
  for (let [from, to] of ranges) {
    if (s[from]?.kind === "name" && opText(s[from + 1] ?? s[from]!) === "=") from += 2;
    const first = s[from];
    if (runner === undefined && first?.kind === "name" && to - from <= 7) {
      const { name, end } = dottedAt(scope, s, from);
      if (end === to && runsItsArgument(name)) {
        runner = name;
        continue;
      }
    }
    for (const l of labelsOf(scope, s, from, to)) rest.add(l);
  }
  if (runner !== undefined && ranges.length > 1) reach(scope, "exec", at, rest, undefined, runner);
}

/** Each statement's answer to handsRunner. */
const HANDS_RUNNER = new WeakMap<readonly Token[], boolean>();

/** Whether the statement names a code runner anywhere without calling it there. */
function handsRunner(scope: Scope, s: readonly Token[]): boolean {
  let found = HANDS_RUNNER.get(s);
  if (found !== undefined) return found;
  found = false;
  for (let k = 0; k < s.length && !found; k++) found = runnerNamedAt(scope, s, k);
  HANDS_RUNNER.set(s, found);
  return found;
}

/** Whether the token at `k` names a code runner (or an alias of one) without calling it. */
function runnerNamedAt(scope: Scope, s: readonly Token[], k: number): boolean {
  const t = s[k]!;
  return t.kind === "name" && s[k + 1]?.text !== "(" &&
    RUNNER_NAME.test((scope.aliases.get(t.text) ?? t.text).split(".").pop()!);
}

/** The last part of a code runner's name (`exec`, `os.system`, `cp.execSync`, an alias). */
const RUNNER_NAME = /^(?:exec|eval|system|popen|execSync|getoutput|getstatusoutput|spawn|\$)$/;

/**
 * `socket.create_connection((h, 443)).sendall(data)`: a send method of the connection a send
 * call returned, at the method's name `k`, sends its arguments where that call connects.
 */
function connectionSend(scope: Scope, s: readonly Token[], k: number): void {
  const open = openOf(s, k - 2);
  const { name, end } = dottedAt(scope, s, receiverStart(s, open - 1));
  // Or what a connection's own method made (`ssh.open_sftp().put(…)`): on that connection.
  const on = name.includes(".") ? scope.vars.get(name.split(".")[0]!)?.net : undefined;
  if (end !== open || (!SEND_CALLS.test(name) && on === undefined)) return;
  const args = labelsOf(scope, s, k + 2, closeOf(s, k + 1));
  // Where the connection goes, else where the method's own arguments say
  // (`urllib3.PoolManager().request("POST", url, body=…)`).
  const host =
    (on !== undefined && !SEND_CALLS.test(name) ? on.host : hostIn(scope, s, open + 1, k - 2)) ??
      (s[k]!.text === "sendto"
        ? sendtoHost(scope, s, k)
        : DATAGRAM_SOCKET.test(name) && s[k]!.text === "send"
        ? datagramHost(scope, s, k + 1)
        : destinationHost(scope, s, k + 1, closeOf(s, k + 1), true));
  reach(scope, "send", s[k]!.at, args, host, `${name}().${s[k]!.text}`);
}

/**
 * Where a send call at `k` (its arguments opening at `open`) goes. A mail, a socket's bytes, an
 * SSH command go where their connection goes, whatever address the message holds
 * (`sendmail("bot@declared.example", …)` through another host's server); a datagram's
 * `sendto(data, (host, port))` to its address, whatever host its data names; an HTTP client's
 * request to the address it is given. A connection made for one host
 * (`http.client.HTTPSConnection(h)`, a client's `base_url`, a `partial` bound to an address)
 * sends there unless the call's own address says otherwise; an address elsewhere in the call
 * (`c.request("POST", "https://declared/…")`, a header) does not.
 */
function sentTo(
  scope: Scope,
  s: readonly Token[],
  k: number,
  receiver: Variable | undefined,
  method: string,
  open: number,
): string | undefined {
  const close = closeOf(s, open);
  if (receiver?.net?.datagram === true && method === "send") {
    return datagramHost(scope, s, open) ?? receiver.net.host;
  }
  if (receiver?.net?.host !== undefined && RAW_SENDS.test(method)) return receiver.net.host;
  if (method === "sendto") return sendtoHost(scope, s, open - 1) ?? receiver?.net?.host;
  return destinationHost(scope, s, open, close) ?? receiver?.net?.host ??
    scope.vars.get(s[k]!.text)?.net?.host ?? hostIn(scope, s, open + 1, close);
}

/**
 * `sendto(data, (host, port))`: the host of its last argument, the address, never of the
 * data before it (which may name any host).
 */
function sendtoHost(scope: Scope, s: readonly Token[], k: number): string | undefined {
  const address = argumentRanges(s, k + 1, closeOf(s, k + 1)).at(-1);
  return address === undefined ? undefined : hostIn(scope, s, address[0], address[1]);
}

/** Node's datagram sockets: `dgram.createSocket("udp4")`. */
const DATAGRAM_SOCKET = /^dgram\.createSocket$/;

/**
 * A dgram socket's `send(msg, [offset, length,] port, address[, callback])` at its arguments'
 * `open`: the host of the last argument after the message that names one, never of the
 * message (which may name any host) nor of a callback written inline (whose body may too).
 * Undefined for `send(msg)` on a socket connected before.
 */
function datagramHost(scope: Scope, s: readonly Token[], open: number): string | undefined {
  const args = argumentRanges(s, open, closeOf(s, open)).slice(1).reverse();
  for (const [a, b] of args) {
    if (inlineFunction(s, a, b)) continue;
    const host = hostIn(scope, s, a, b);
    if (host !== undefined) return host;
  }
  return undefined;
}

/** Whether the argument from `at` to `to` is a function written there (`() => …`, `function`). */
function inlineFunction(s: readonly Token[], at: number, to: number): boolean {
  const from = s[at]?.text === "async" ? at + 1 : at;
  const arrow = s[from]?.text === "(" ? closeOf(s, from) + 1 : from + 1;
  return s[from]?.text === "function" || (s[arrow]?.text === "=>" && arrow < to);
}

/** The first token of the member chain ending at `last` (`fetch(u).then(…)`, `res`). */
function receiverStart(tokens: readonly Token[], last: number): number {
  let k = last;
  while (k >= 0) {
    const t = opText(tokens[k]!);
    if (t === ")" || t === "]") {
      // A call's or an index's brackets: what they follow is part of the chain.
      const open = openOf(tokens, k);
      if (tokens[open - 1]?.kind !== "name" && opText(tokens[open - 1] ?? tokens[k]!) !== ")") {
        return open;
      }
      k = open - 1;
      continue;
    }
    if (tokens[k]!.kind !== "name") return k + 1;
    const before = tokens[k - 1]?.text;
    if (before === "." || before === "?.") k -= 2;
    // `await x.post(…).send(…)`: the chain starts at `x`, past the `await`.
    else return k;
  }
  return 0;
}

/** Each statement's assignments by name (`name = …`, `name += …`), found once. */
const ASSIGNMENTS = new WeakMap<readonly Token[], Map<string, [number, number][]>>();

/** The values assigned to each name in the statement (`name = …`, `name += …`, a declaration's). */
function assignmentsOf(tokens: readonly Token[]): Map<string, [number, number][]> {
  let found = ASSIGNMENTS.get(tokens);
  if (found !== undefined) return found;
  found = new Map();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind !== "name" || tokens[k - 1]?.text === ".") continue;
    const op = opText(tokens[k + 1] ?? t);
    if (op !== "=" && op !== "+=") continue;
    let end = k + 2;
    let depth = 0;
    for (; end < tokens.length; end++) {
      const e = opText(tokens[end]!);
      if (e === "(" || e === "[" || e === "{") depth++;
      else if (e === ")" || e === "]" || e === "}") {
        if (depth === 0) break;
        depth--;
      } else if ((e === ";" || e === ",") && depth === 0) break;
    }
    const list = found.get(t.text) ?? [];
    list.push([k + 2, end]);
    found.set(t.text, list);
  }
  ASSIGNMENTS.set(tokens, found);
  return found;
}

// --- imports -----------------------------------------------------------------------------

function readImport(scope: Scope, s: readonly Token[]): boolean {
  const first = s[0]?.text;
  if (first !== "import" && first !== "from") return false;
  const words = s.map((t) => t.text);
  if (scope.language === "python" && (first === "import" || first === "from")) {
    const from = first === "from" ? dotted(words, 1) : "";
    const start = first === "from" ? words.indexOf("import") + 1 : 1;
    for (const part of splitCommas(words.slice(start).filter((w) => w !== "(" && w !== ")"))) {
      const as = part.indexOf("as");
      const name = part.slice(0, as === -1 ? part.length : as).join("");
      const full = from === "" ? name : `${from}.${name}`;
      const local = as === -1 ? (from === "" ? name.split(".")[0]! : name) : part[as + 1]!;
      if (local !== undefined && !(from === "" && as === -1)) scope.aliases.set(local, full);
      importsWritten(scope, from === "" ? name : from, s[0]!.at);
    }
    return true;
  }
  if (scope.language === "javascript" && first === "import" && words.includes("from")) {
    const module = s[words.lastIndexOf("from") + 1]?.text.replace(MODULE_PREFIX, "") ?? "";
    const names = words.slice(1, words.lastIndexOf("from"));
    if (names[0] === "*" && names[1] === "as") scope.aliases.set(names[2]!, module);
    else if (names[0] !== "{" && names[0] !== undefined) scope.aliases.set(names[0], module);
    bindBraces(scope, names.slice(names.indexOf("{") + 1, names.indexOf("}")), module, "as");
    return true;
  }
  return false;
}

/** JavaScript's words a `name(…) {` head starts with that make it no method. */
const JS_KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "with",
  "function",
  "return",
  "else",
  "do",
  "try",
  "class",
]);

/** A JavaScript method the script defines (`send(v) {` in a class or an object): its summary. */
function definedMethod(scope: Scope, name: string): FunctionSummary | undefined {
  return scope.methods.has(name) ? scope.functions.get(name) : undefined;
}

/**
 * `import helper` (or `from helper import x`) after the script wrote downloaded or decoded
 * data to `helper.py` or `helper/__init__.py`: the module that runs is that data (Python
 * finds it beside the script or in the working folder, both of which a script may write).
 */
function importsWritten(scope: Scope, module: string, at: number): void {
  const path = module.replaceAll(".", "/");
  for (const file of [`${path}.py`, `${path}/__init__.py`]) {
    const labels = [...scope.downloaded].find(([key]) => key === file || key.endsWith(`/${file}`));
    if (labels !== undefined) reach(scope, "exec", at, labels[1], undefined, `import ${module}`);
  }
}

function dotted(words: readonly string[], k: number): string {
  let out = words[k] ?? "";
  for (let j = k + 1; words[j] === "." && words[j + 1] !== undefined; j += 2) {
    out += "." + words[j + 1];
  }
  return out;
}

function splitCommas(words: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const w of words) {
    if (w === ",") out.push([]);
    else out.at(-1)!.push(w);
  }
  return out.filter((p) => p.length > 0);
}

/**
 * `import("node:child_process").then((cp) => cp.execSync(code))`, `.then(({ execSync }) => …)`:
 * the callback's parameter is the module (or its names), as an `import` statement makes them.
 * The alias stays for the statements after (a callback's block body is read as statements of
 * its own), until the name is bound again.
 */
function importedInCallback(scope: Scope, s: readonly Token[]): void {
  for (let k = 0; k + 7 < s.length; k++) {
    if (s[k]!.text !== "import" || s[k + 1]?.text !== "(" || s[k + 2]?.kind !== "string") continue;
    if (s[k + 3]?.text !== ")" || s[k + 4]?.text !== "." || s[k + 5]?.text !== "then") continue;
    const module = s[k + 2]!.text.replace(MODULE_PREFIX, "");
    const param = s[k + 6]?.text === "(" ? k + 7 : -1;
    if (param === -1) continue;
    const first = s[param]?.text === "(" ? param + 1 : param; // `((cp) => …)` or `(cp => …)`
    if (s[first]?.text === "{") {
      const close = s.findIndex((t, j) => j > first && t.text === "}");
      bindBraces(scope, s.slice(first + 1, close).map((t) => t.text), module, ":");
    } else if (s[first]?.kind === "name") scope.aliases.set(s[first]!.text, module);
  }
}

/**
 * `const { send, f: post } = { send: fetch, f: axios.post }`: each name the pattern binds and
 * the function the literal's entry of its key is.
 */
function pickedEntries(
  scope: Scope,
  left: readonly Token[],
  s: readonly Token[],
  value: number,
): Map<string, string> | undefined {
  const entries = containerEntries(scope, s, value, s.length);
  if (entries === undefined) return undefined;
  const picked = new Map<string, string>();
  for (const part of splitCommas(left.slice(1, -1).map((t) => t.text))) {
    const r = part.indexOf(":");
    const entry = entries.get(part[0]!);
    if (entry !== undefined) picked.set(r === -1 ? part[0]! : part[r + 1]!, entry);
  }
  return picked;
}

/** `{ a, b as c }` (import) or `{ a, b: c }` (destructuring) of `module`. */
function bindBraces(scope: Scope, inner: readonly string[], module: string, rename: string): void {
  if (inner.length === 0 || inner.includes("{")) return;
  for (const part of splitCommas(inner)) {
    const r = part.indexOf(rename);
    scope.aliases.set(r === -1 ? part[0]! : part[r + 1]!, `${module}.${part[0]}`);
  }
}

// --- values and labels -------------------------------------------------------------------

/** The value of tokens `[from, to)` when they are string constants joined by `+`. */
function constantOf(
  scope: Scope,
  tokens: readonly Token[],
  from: number,
  to: number,
): string | undefined {
  let out = "";
  let expectValue = true;
  for (let k = from; k < to; k++) {
    const t = tokens[k]!;
    if (expectValue) {
      const method = t.kind === "string" ? stringMethod(scope, tokens, k) : undefined;
      if (method !== undefined) {
        out += method.value;
        k = method.end - 1;
      } else if (t.kind === "string" && (t.holes === undefined || t.holes.length === 0)) {
        out += t.text;
      } else if (t.kind === "string") {
        const holes = t.holes!.map((h) =>
          h.length === 1 && h[0]!.kind === "name" ? scope.vars.get(h[0]!.text)?.value : undefined
        );
        if (holes.some((h) => h === undefined)) return undefined;
        let i = 0;
        out += t.text.replace(/\{\}/g, () => holes[i++]!);
      } else if (t.kind === "name" && scope.vars.get(t.text)?.value !== undefined) {
        out += scope.vars.get(t.text)!.value;
      } else return undefined;
      expectValue = false;
    } else if (t.text === "+") expectValue = true;
    else if (t.kind === "string") out += t.text; // Python's implicit concatenation
    else return undefined;
  }
  // (A value that doubles on each line, `x = x + x`, stops being folded: no string bomb.)
  return expectValue || out.length > MAX_VALUE ? undefined : out;
}

/**
 * A string literal's `join` of a literal list of constants, or its `format` of constants, at
 * `k` (`"".join(["https://", "drop", ".com"])`, `"https://{}.{}".format("drop", "com")`): the
 * text it makes, and the token after the call.
 */
function stringMethod(
  scope: Scope,
  tokens: readonly Token[],
  k: number,
): { value: string; end: number } | undefined {
  const method = tokens[k + 2]?.text;
  if (tokens[k + 1]?.text !== "." || tokens[k + 3]?.text !== "(") return undefined;
  if (method !== "join" && method !== "format") return undefined;
  const close = closeOf(tokens, k + 3);
  const list = method === "join" ? tokens[k + 4] : undefined;
  const ranges = list === undefined
    ? argumentRanges(tokens, k + 3, close)
    : /^[[(]$/.test(list.text) && closeOf(tokens, k + 4) === close - 1
    ? argumentRanges(tokens, k + 4, close - 1)
    : undefined;
  const values = ranges?.map(([a, b]) => constantOf(scope, tokens, a, b));
  if (values === undefined || values.some((v) => v === undefined)) return undefined;
  const parts = values as string[];
  let i = 0;
  const value = method === "join"
    ? parts.join(tokens[k]!.text)
    : tokens[k]!.text.replace(/\{(\d*)\}/g, (_, n: string) =>
      parts[n === "" ? i++ : Number(n)] ?? "");
  return { value, end: close + 1 };
}

const ENV_HEAD = /^(?:os|posix|process|Deno)\./;
const ENV_OBJECTS = /^(?:os\.environ|os\.environb|posix\.environ|process\.env|Deno\.env)$/;

/**
 * The constant keys of `x["KEY"]` or `x.get("KEY"…)`, the name ending at `end`: the string,
 * or what a variable given as the key holds (its value, or the constants a loop gives it).
 */
function keyRead(scope: Scope, tokens: readonly Token[], end: number): string[] | undefined {
  const open = tokens[end]?.text;
  if (open !== "[" && open !== "(") return undefined;
  // The whole first argument: `["OPENAI" + "_API_KEY"]` is one name, folded, not `OPENAI`.
  const [from, to] = argumentRanges(tokens, end, closeOf(tokens, end))[0] ?? [end + 1, end + 1];
  const key = tokens[from];
  if (to - from === 1 && key?.kind === "name") {
    const variable = scope.vars.get(key.text);
    return variable?.value !== undefined ? [variable.value] : variable?.values;
  }
  // A template's fixed text names what it reads (`f"{chain}_RPC_URL"`: some chain's RPC URL).
  if (to - from === 1 && key?.kind === "string") return [key.text];
  const folded = constantOf(scope, tokens, from, to);
  return folded === undefined ? undefined : [folded];
}

/**
 * `os.environ.get(name)` in `def get_env(name):`, `name` as the call bound it: the position of
 * the parameter, whose argument names the variable (`get_env("ES_API_KEY")`, returnLabels).
 */
function parameterKey(scope: Scope, tokens: readonly Token[], end: number): number | undefined {
  const key = tokens[end + 1];
  if (scope.current === undefined || key?.kind !== "name") return undefined;
  if (!/^[),\]]$/.test(opText(tokens[end + 2] ?? key))) return undefined;
  return scope.vars.get(key.text)?.parameter;
}

/** The environment labels a dotted name starting at `k` reads, the name ending at `end`. */
function envRead(scope: Scope, tokens: readonly Token[], name: string, end: number): Label[] {
  if (!ENV_HEAD.test(name)) return [];
  const call = tokens[end]?.text === "(";
  const bracket = tokens[end]?.text === "[";
  const keys = keyRead(scope, tokens, end);
  const parameter = keys === undefined ? parameterKey(scope, tokens, end) : undefined;
  const named = (vs: readonly string[] | undefined): Label[] =>
    vs !== undefined
      ? vs.filter(secretName).map((v): Label => `env:${v}`)
      : parameter !== undefined
      ? [`envparam:${parameter}`]
      : ["env:*"];
  if (/^os\.getenvb?$/.test(name) && call) return named(keys);
  // A getter handed as a value (`map(os.getenv, ["AWS_SECRET_ACCESS_KEY"])`): the variables the
  // strings after it in the same call name, or any.
  if (/^(?:os\.getenvb?|os\.environ\.get|Deno\.env\.get)$/.test(name) && !call) {
    const strings = tokens.slice(end, enclosingEnd(tokens, end)).filter((t) => t.kind === "string");
    return strings.length > 0 ? named(strings.map((t) => t.text)) : ["env:*"];
  }
  if (/^Deno\.env\.get$/.test(name) && call) return named(keys);
  if (/^Deno\.env\.toObject$/.test(name)) return ["env:*"];
  const member = /^process\.env\.(\w+)$/.exec(name);
  if (member !== null) return named([member[1]!]);
  if (/^(?:os\.environ|process\.env)\.get$/.test(name) && call) return named(keys);
  if (ENV_OBJECTS.test(name)) return bracket ? named(keys) : ["env:*"];
  if (/^(?:os\.environ|process\.env)\.\w+$/.test(name)) return ["env:*"]; // items(), copy(), …
  return [];
}

/**
 * The labels a read of `variable` (the dotted `name` ending at `end`) carries into `out`. One
 * key of a .env read by name (`config["X"]`, `config.get("X")`) is that variable, and so is
 * one member of a copy of the environment (`env.OPENAI_API_KEY`, `env["X"]`): what is read,
 * not everything it was read from.
 */
function readVariable(
  scope: Scope,
  variable: Variable,
  tokens: readonly Token[],
  name: string,
  end: number,
  out: Set<Label>,
): void {
  const parts = name.split(".");
  const keys = parts.length === 1 || name === `${parts[0]}.get`
    ? keyRead(scope, tokens, end)
    : undefined;
  // `env.X`, `env.X.trim()`: variable X (`env.items()` is a method of the copy, all of it).
  const member = parts.length > 2 || (parts.length === 2 && tokens[end]?.text !== "(")
    ? /^\w+$/.exec(parts[1]!)?.[0]
    : undefined;
  const read = keys ?? (member === undefined ? undefined : [member]);
  for (const l of variable.labels) {
    const ones = l === "env:*" && variable.environment
      ? read
      : isEnvFileLabel(l)
      ? keys
      : undefined;
    if (ones === undefined) out.add(l);
    else for (const one of ones.filter(secretName)) out.add(`env:${one}`);
  }
}

/**
 * Whether the name at `k` names a keyword argument (`requests.post(url, headers={…})`): the
 * parameter of the call, not a variable of the script that happens to share its name.
 */
function keywordName(scope: Scope, tokens: readonly Token[], k: number): boolean {
  return scope.language === "python" && tokens[k + 1]?.text === "=" &&
    (tokens[k - 1]?.text === "(" || tokens[k - 1]?.text === ",");
}

/**
 * The constants among a call's arguments (strings, variables holding one), for the path the
 * whole expression joins; returns the index of the call's closing bracket. For a call whose
 * result stands for its arguments — a request's response (which is not what was sent: the
 * send is judged at the call) and a function of the script (its summary maps each parameter
 * to what it returns) — the arguments' labels are not the result's.
 */
function argumentConstants(
  scope: Scope,
  tokens: readonly Token[],
  open: number,
  constants: string[],
): number {
  const close = closeOf(tokens, open);
  for (let a = open + 1; a < close; a++) {
    const value = constantText(scope, tokens[a]!);
    if (value !== undefined) constants.push(value);
  }
  return close;
}

/** An argument that is one constant token (`"X_API_KEY"`, a variable holding one): its text. */
function constantArgument(
  scope: Scope,
  s: readonly Token[],
  range: [number, number] | undefined,
): string | undefined {
  return range !== undefined && range[1] - range[0] === 1
    ? constantText(scope, s[range[0]]!)
    : undefined;
}

/** A token's constant text: a string's, or the value a variable holds. */
function constantText(scope: Scope, t: Token): string | undefined {
  return t.kind === "string"
    ? t.text
    : t.kind === "name"
    ? scope.vars.get(t.text)?.value
    : undefined;
}

/**
 * A file's text read at `k` (`open(p)`, `io.open(p)`, `Path(p).read_text()`,
 * `fs.readFileSync(p)`, a JavaScript function's own source): `filetext`, and what a download
 * the script wrote there holds.
 */
function fileTextLabels(scope: Scope, tokens: readonly Token[], k: number, out: Set<Label>): void {
  const t = tokens[k]!;
  if (t.kind === "name" && READ_CALLS.test(t.text) && tokens[k + 1]?.text === "(") {
    out.add("filetext");
    // A file the script wrote a download to, read back (`open(p)`, `Path(p).read_text()`).
    for (const at of [k + 2, k - 3]) {
      const path = tokens[at]?.kind === "string" ? fileKey(tokens[at]!.text) : "";
      for (const l of scope.downloaded.get(path) ?? []) out.add(l);
    }
  }
  if (t.kind === "name" && scope.language === "javascript" && functionText(scope, tokens, k)) {
    out.add("filetext");
  }
}

/** `[::-1]` at `k`: Python's slice that reads a sequence backwards. */
function reversedSlice(tokens: readonly Token[], k: number): boolean {
  if (tokens[k]?.text !== "[") return false;
  const texts = tokens.slice(k, k + 6).map((t) => t.text).join("");
  return texts.startsWith("[::-1]");
}

/** `.split("").reverse().join("")` from `k`: a method chain on a literal that reverses it. */
function reversedChain(tokens: readonly Token[], k: number): boolean {
  for (
    let j = k;
    tokens[j]?.text === "." && tokens[j + 2]?.text === "(";
    j = closeOf(tokens, j + 2) + 1
  ) {
    if (tokens[j + 1]!.text === "reverse") return true;
  }
  return false;
}

/**
 * The call of `name` at `k` (its `(` at `end`) decodes: base64, hex, rot13, character codes
 * handed to `map` (`map(chr, codes)`), a list reversed (`….reverse()`); "concealed" too when
 * what it decodes is the script's own constants.
 */
function decodedCall(
  scope: Scope,
  tokens: readonly Token[],
  name: string,
  k: number,
  end: number,
  out: Set<Label>,
): void {
  const short = name.replace(/^new /, "");
  const handed = name === "map" && tokens[end + 2]?.text === "," &&
    DECODE_CALLS.test(tokens[end + 1]?.text ?? "");
  const reversed = name.endsWith(".reverse") && tokens[end + 1]?.text === ")";
  if (
    !DECODE_CALLS.test(short) && !decodesBuffer(tokens, short, end) &&
    !codecDecode(name, tokens, end) && !handed && !reversed
  ) return;
  out.add("decoded");
  if (fromNowhere(scope, tokens, reversed ? k : end + 1, end)) out.add("concealed");
}

/**
 * Whether what is decoded, the tokens from `from` to the call's close (or to `to`), is the
 * script's own constants — literals, names bound to constants, a decoder handed on
 * (`map(chr, [100, 114])`) — written so that nobody reads them ("concealed"), not what the user
 * gives (a cloud ID from the environment, an argument).
 */
function fromNowhere(scope: Scope, tokens: readonly Token[], from: number, to: number): boolean {
  const close = tokens[to]?.text === "(" ? closeOf(tokens, to) : to;
  for (let k = from; k < close; k++) {
    const t = tokens[k]!;
    if (t.kind !== "name" || tokens[k - 1]?.text === "." || DECODE_CALLS.test(t.text)) continue;
    if (scope.vars.get(t.text)?.value === undefined) return false;
  }
  return true;
}

/**
 * `s.recv(4096)`, `conn.read()`, `ws.recv()`: what a connection of the script receives
 * (a variable holding one, {@link Variable.net}) is downloaded data.
 */
function receivesOnConnection(scope: Scope, name: string): boolean {
  const parts = name.split(".");
  return parts.length === 2 && RECEIVE_METHODS.test(parts[1]!) &&
    scope.vars.get(parts[0]!)?.net !== undefined;
}

/** The methods that read what a connection receives. */
const RECEIVE_METHODS =
  /^(?:recv|recvfrom|recv_into|recvmsg|read|readline|readlines|read_until|getresponse)$/;

/** `x.decode("rot13")`, `.decode("hex")`, `.decode("base64")`: Python 2's codecs by name. */
function codecDecode(name: string, tokens: readonly Token[], end: number): boolean {
  return /(?:^|\.)decode$/.test(name) && /rot.?13|hex|base64/.test(tokens[end + 1]?.text ?? "");
}

/** Every label the tokens `[from, to)` carry. */
function labelsOf(scope: Scope, tokens: readonly Token[], from: number, to: number): Set<Label> {
  const out = new Set<Label>();
  const constants: string[] = [];
  for (let k = from; k < to; k++) {
    const t = tokens[k]!;
    if (t.kind === "string") {
      constants.push(t.text);
      stringPathLabels(tokens, k, out);
      // A file the script wrote a secret to, named: what reads or uploads it by that name
      // (`sftp.put("/tmp/k", …)`, `fs.createReadStream("k.txt")`) carries the secret.
      if (scope.downloaded.size > 0) {
        for (const l of scope.downloaded.get(fileKey(t.text)) ?? []) if (isSecret(l)) out.add(l);
      }
      // Text spelt in escapes (`"\x63\x6f…"`), or a literal read backwards (`"…"[::-1]`).
      if (t.coded || reversedSlice(tokens, k + 1) || reversedChain(tokens, k + 1)) {
        out.add("decoded").add("concealed");
      }
      for (const hole of t.holes ?? []) {
        for (const l of labelsOf(scope, hole, 0, hole.length)) out.add(l);
      }
      continue;
    }
    fileTextLabels(scope, tokens, k, out);
    if (t.kind !== "name" || tokens[k - 1]?.text === "." || tokens[k - 1]?.text === "?.") continue;
    if (keywordName(scope, tokens, k)) continue;
    const { name, end } = dottedAt(scope, tokens, k);
    for (const l of envRead(scope, tokens, name, end)) out.add(l);
    if (scope.stdin.size > 0 && readsStdin(tokens, name, end)) {
      for (const l of scope.stdin) out.add(l);
    }
    const base = name.split(".")[0]!;
    if (readsParamField(scope, name)) out.add(RECEIVER);
    const method = base === "self" && tokens[end]?.text === "(" ? name.slice(5) : undefined;
    const selfFree = method !== undefined && scope.selfFree.has(`${scope.inClass}.${method}`);
    if (selfFree) {
      // A method that never reads `self`: its arguments (read on by this loop) and summary.
      const own = scope.functions.get(method);
      if (own !== undefined && own !== scope.current?.summary) {
        for (const l of returnLabels(scope, tokens, end, own)) out.add(l);
      }
    }
    const variable = selfFree
      ? undefined
      : attributeOf(scope, name) ?? variableAt(scope, tokens, k, base);
    if (variable !== undefined) {
      readVariable(scope, variable, tokens, name, end, out);
      if (variable.value !== undefined) constants.push(variable.value);
    } else if (!selfFree) {
      for (const l of callbackValue(scope, tokens, k, base)) out.add(l);
    }
    // Whether what the call returns stands for its arguments (its own labels say them).
    let returned = false;
    if (tokens[end]?.text === "(") {
      const own = scope.functions.get(name);
      if (own !== undefined && own !== scope.current?.summary) {
        for (const l of returnLabels(scope, tokens, end, own)) out.add(l);
        returned = positionalCall(tokens, end, own);
      }
      const short = name.replace(/^new /, "");
      if (
        FETCH_CALLS.test(short) || FETCH_CALLS.test(short.split(".").slice(-2).join(".")) ||
        receivesOnConnection(scope, name)
      ) {
        out.add("fetched");
        returned = true;
      }
      decodedCall(scope, tokens, name, k, end, out);
      if (PROCESS_CALLS.test(name) || SHELL_CALLS.test(name)) {
        processOutput(scope, tokens, end, out);
      }
    }
    if (returned) k = argumentConstants(scope, tokens, end, constants);
  }
  pathLabels(constants.join("/"), out);
  pathLabels(constants.join(""), out);
  return out;
}

/**
 * The shapes of an expression that is a copy of the whole environment and nothing else, its
 * tokens joined: a spread or `dict` of it alone, its `copy()`, or a caller's object with it as
 * the fallback (what the caller's object holds keeps its own labels).
 */
const ENVIRONMENT_COPY =
  /^(?:\{\.\.\.process\.env\}|Object\.assign\(\{\},process\.env\)|dict\(os\.environ\)|os\.environ\.copy\(\)|\{\*\*os\.environ\}|[\w$]+(?:\??\.[\w$]+)*(?:\?\?|\|\||\bor\b)process\.env)$/;

function isEnvironmentCopy(tokens: readonly Token[], from: number, to: number): boolean {
  return to - from <= 12 &&
    ENVIRONMENT_COPY.test(tokens.slice(from, to).map((t) => t.text).join(""));
}

function decodesBuffer(tokens: readonly Token[], name: string, open: number): boolean {
  if (name !== "Buffer.from") return false;
  const close = closeOf(tokens, open);
  return tokens.slice(open, close).some((t) =>
    t.kind === "string" && /^(?:base64|base64url|hex)$/.test(t.text)
  );
}

/** The labels of the path a string at `k` names, by itself and joined with the pieces after it. */
function stringPathLabels(tokens: readonly Token[], k: number, out: Set<Label>): void {
  pathLabels(tokens[k]!.text, out);
  const joined = joinedPath(tokens, k);
  if (joined !== undefined) pathLabels(joined, out);
}

/**
 * The path a string is the first written piece of, joined as the language joins it: Python's
 * `repo / ".claude" / "settings.json"`, a join call's arguments (`os.path.join(home, ".claude",
 * "settings.json")`, `path.join(…)`, `joinpath(…)`), pieces not written as strings `{}`. A
 * persistence or secret path named in pieces is still that path.
 */
function joinedPath(tokens: readonly Token[], k: number): string | undefined {
  const afterSlash = opText(tokens[k - 1] ?? tokens[k]!) === "/";
  // `a / "b" / "c"`: from the first string of the chain only, so it is read once.
  if (afterSlash && tokens[k - 2]?.kind === "string") return undefined;
  if (!afterSlash && opText(tokens[k + 1] ?? tokens[k]!) !== "/") return joinedArguments(tokens, k);
  const pieces = [tokens[k]!.text];
  for (
    let j = k + 1;
    opText(tokens[j] ?? tokens[k]!) === "/" && tokens[j + 1] && pieces.length < MAX_PIECES;
    j += 2
  ) {
    pieces.push(tokens[j + 1]!.kind === "string" ? tokens[j + 1]!.text : "{}");
  }
  return pieces.length > 1 ? pieces.join("/") : undefined;
}

/**
 * The pieces of a path read, and the tokens looked back for its join call: a path has a
 * handful, and a statement of thousands of strings (a data table) costs each a few steps.
 */
const MAX_PIECES = 16;

/** The first string argument of a path join call at `k`: every argument joined with `/`. */
function joinedArguments(tokens: readonly Token[], k: number): string | undefined {
  let open = -1;
  for (let j = k - 1, depth = 0; j >= Math.max(0, k - 2 * MAX_PIECES); j--) {
    const t = opText(tokens[j]!);
    if (t === ")" || t === "]" || t === "}") depth++;
    else if ((t === "(" || t === "[" || t === "{") && depth-- === 0) {
      open = j;
      break;
    }
  }
  if (
    tokens[open]?.text !== "(" || !/^(?:join|joinpath|resolve)$/.test(tokens[open - 1]?.text ?? "")
  ) {
    return undefined;
  }
  const ranges = argumentRanges(tokens, open, closeOf(tokens, open));
  const first = ranges.find(([a]) => tokens[a]?.kind === "string");
  if (first === undefined || first[0] !== k || ranges.length < 2) return undefined;
  return ranges.map(([a, b]) =>
    b - a === 1 && tokens[a]!.kind === "string" ? tokens[a]!.text : "{}"
  )
    .join("/");
}

function pathLabels(text: string, out: Set<Label>): void {
  // A process's environment as a file: all of it.
  if (/^\/proc\/(?:self|\d+|\$\w+|\{\})\/environ$/.test(text)) out.add("env:*");
  const secret = secretPath(text);
  if (secret !== undefined) out.add(`file:${secret}`);
  const persist = persistPath(text);
  if (persist !== undefined) out.add(`persist:${persist}`);
}

// --- statements --------------------------------------------------------------------------

/** Names of modules and globals: `os.environ["X"] = …` does not make `os` a variable. */
const MODULES = /^(?:os|sys|process|Deno|globalThis|window|module|exports|builtins|subprocess)$/;

const MUTATORS =
  /^(?:append|extend|update|add|push|set|set_content|set_payload|attach|insert|setdefault|write|writelines|put|unshift|concat|assign|add_header|add_unredirected_header|putheader|setHeader|setRequestHeader)$/;

/** Template tags that run their template as a command line: Bun's, zx's and execa's `$`. */
const SHELL_TAGS = /^(?:Bun\.\$|zx\.\$|execa\.\$)$/;

/** `` Bun.$`sh -c ${code}` ``, zx's `` $`…` ``: the template read as a shell line. */
function taggedShell(scope: Scope, s: readonly Token[], k: number): void {
  if (scope.language !== "javascript" || s[k - 1]?.text === ".") return;
  const { name, end } = dottedAt(scope, s, k);
  if (s[end]?.kind === "string" && SHELL_TAGS.test(name)) {
    shellArgument(scope, s, end - 1, end + 1, s[k]!.at, true);
  }
}

/** The methods that write a process's stdin (feedsStdin). */
const FEED_METHOD = /^(?:communicate|write|end|writelines)$/;

/** What a statement assigns, to each name it binds (an attribute and a class field too). */
function bindStatement(scope: Scope, s: readonly Token[]): void {
  const bound = bindingOf(scope, s);
  if (bound !== undefined) {
    const items = unpacked(s, bound);
    if (items === undefined) bind(scope, s, bound);
    else {
      items.forEach(([from, to], i) => {
        bind(scope, s, { targets: [bound.targets[i]!], from, to, augment: false });
      });
    }
    if (bound.attribute !== undefined) {
      // Its first assignment makes it (with a constant's value and host); later ones add to it.
      const augment = scope.vars.has(bound.attribute);
      bind(scope, s, { targets: [bound.attribute], from: bound.from, to: bound.to, augment });
    }
    // A JavaScript class field (`key = process.env.X;` in a class body, no declaration word):
    // what its methods read back as `this.key`.
    if (
      scope.language === "javascript" && s[0]?.kind === "name" && opText(s[1] ?? s[0]) === "=" &&
      bound.targets.length === 1 && bound.targets[0] === s[0].text
    ) {
      bind(scope, s, {
        targets: [`this.${s[0].text}`],
        from: bound.from,
        to: bound.to,
        augment: false,
      });
    }
  }
}

/**
 * At a method's name `k` after a call (`C().post(…)`, `new Up().post(…)`): the function the
 * class's attribute of that name is (`post = requests.post` in `class C:`), when the call
 * makes an object of a class the script defines; else undefined.
 */
function madeClassAttribute(scope: Scope, s: readonly Token[], k: number): string | undefined {
  const open = openOf(s, k - 2);
  const cls = s[open - 1];
  if (cls?.kind !== "name" || s[open - 2]?.text === "." || s[open - 2]?.text === "?.") {
    return undefined;
  }
  return scope.aliases.get(`${cls.text}.${s[k]!.text}`);
}

/** One statement: its assignment (or loop, or `with … as`), then its calls as sinks. */
function walkStatement(scope: Scope, s: readonly Token[]): void {
  bindStatement(scope, s);
  if (scope.language === "javascript") importedInCallback(scope, s);
  for (let k = 0; k < s.length; k++) {
    if (s[k]!.kind !== "name") continue;
    if (FEED_METHOD.test(s[k]!.text)) feedsStdin(scope, s, k);
    taggedShell(scope, s, k);
    if (s[k - 1]?.text === "." && s[k - 2]?.text === ")" && s[k + 1]?.text === "(") {
      // A method of a call's result: `Path(p).write_text(…)`, `open(p, "a").write(…)`.
      // And a path so made opened for writing: `(Path.home() / ".bashrc").open("a")`.
      const opened = s[k]!.text === "open" && writesMode(s, k + 1, closeOf(s, k + 1));
      if (WRITE_CALLS.test(s[k]!.text) || opened) {
        reach(scope, "persist", s[k]!.at, labelsOf(scope, s, 0, k), undefined, s[k]!.text);
        writeOfData(scope, s, k, s[k]!.text, k + 1);
      }
      if (EXEC_METHODS.test(s[k]!.text)) {
        const args = labelsOf(scope, s, k + 2, closeOf(s, k + 1));
        reach(scope, "exec", s[k]!.at, args, undefined, s[k]!.text);
      }
      if (s[k]!.text === "then") thenRuns(scope, s, k);
      // A method the script defines, on an object just made (`new Up().send(key)`).
      const method = definedMethod(scope, s[k]!.text);
      if (method !== undefined && method !== scope.current?.summary) {
        // Its object is what the statement made before it (`C(key)` of `C(key).send()`).
        callSummary(scope, s, k, method, k + 1, labelsOf(scope, s, 0, k - 1));
      }
      const attribute = madeClassAttribute(scope, s, k);
      if (attribute !== undefined) checkCall(scope, s, k, attribute, k + 1);
      if (SEND_METHODS.test(s[k]!.text)) connectionSend(scope, s, k);
      // A client's function handed to a method of a call's result, with what it is to be
      // called with: `ThreadPoolExecutor().submit(requests.post, url, data=key)`.
      else if (handsSendFunction(scope, s, k + 1)) checkCall(scope, s, k, s[k]!.text, k + 1);
      continue;
    }
    // `[].constructor.constructor(code)`: Function, reached from a literal's constructor.
    if (
      s[k]!.text === "constructor" && s[k - 1]?.text === "." &&
      s[k - 2]?.text === "constructor" && s[k + 1]?.text === "("
    ) {
      const args = labelsOf(scope, s, k + 2, closeOf(s, k + 1));
      reach(scope, "exec", s[k]!.at, args, undefined, "Function");
      continue;
    }
    if (s[k - 1]?.text === "." || s[k - 1]?.text === "?.") continue;
    if (s[k - 1]?.text === "new") continue; // read as `new X` at the `new`
    if (!callFollows(s, k)) continue; // names the dotted chain only for calls
    const { name, end } = dottedAt(scope, s, k);
    if (s[end]?.text === "(") {
      checkCall(scope, s, k, name, end);
      calledResult(scope, s, k, name, end);
    } else if (calledInParentheses(s, k, end) || s[end]?.text === "?.") {
      checkCall(scope, s, k, name, end + 1); // `fetch?.(url, init)`: an optional call
    }
  }
}

/**
 * What a call's result is called with: `operator.methodcaller("post", url, data=key)(requests)`
 * is `requests.post(url, data=key)`, and an object of a class the script gives a `__call__`
 * (`S()(key)`, `s(key)`) runs that method with the arguments.
 */
function calledResult(scope: Scope, s: readonly Token[], k: number, name: string, open: number) {
  const close = closeOf(s, open);
  const dunder = scope.functions.get("__call__");
  if (dunder !== undefined && !scope.functions.has(name) && !name.includes(".")) {
    // `S()(key)`, or `s(key)` with `s = S()`: a variable called is an object called.
    if (s[close + 1]?.text === "(") callSummary(scope, s, k, dunder, close + 1, new Set());
    else if (scope.vars.has(name)) callSummary(scope, s, k, dunder, open, new Set());
  }
  if (s[close + 1]?.text !== "(") return;
  if (name !== "operator.methodcaller" || s[close + 2]?.kind !== "name") return;
  const [first, ...rest] = argumentRanges(s, open, close);
  const method = first === undefined ? undefined : constantOf(scope, s, first[0], first[1]);
  const target = dottedAt(scope, s, close + 2);
  if (method === undefined || !/^\w+$/.test(method) || s[target.end]?.text !== ")") return;
  // The call it stands for, written out: `target(…the other arguments…)`.
  const args = rest.length === 0 ? [] : s.slice(rest[0]![0], rest.at(-1)![1]);
  const call = [s[close + 2]!, s[open]!, ...args, s[close]!];
  checkCall(scope, call, 0, `${target.name}.${method}`, 1);
}

/**
 * Whether the value `[k, end)` is called as the last item of the parentheses around it:
 * `(axios.post)(url, key)`, and the comma form bundlers write, `(0, axios.post)(url, key)`
 * or `(0, eval)(code)`, which calls the function without its object.
 */
function calledInParentheses(s: readonly Token[], k: number, end: number): boolean {
  if (s[end]?.text !== ")" || s[end + 1]?.text !== "(") return false;
  const open = openOf(s, end);
  return s[open]?.text === "(" && (open === k - 1 || (open < k && s[k - 1]?.text === ","));
}

/** The name an arrow function a factory returns is read under ({@link arrowMade}). */
const ARROW_MADE = "(arrow)";

/**
 * The arrow function of one expression that the tokens `[from, to)` are, read as a function of
 * its own (`(d) => fetch(…, { body: d })` returned by `const make = () => …` or `return …`): its
 * summary, for the factory's {@link FunctionSummary.made}.
 */
function arrowMade(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): FunctionSummary | undefined {
  const head = s[from]?.text === "async" ? from + 1 : from;
  if (scope.language !== "javascript" || s[head]?.text !== "(") return undefined;
  const arrow = closeOf(s, head) + 1;
  if (arrow >= to || opText(s[arrow]!) !== "=>" || s[arrow + 1]?.text === "{") return undefined;
  const at = s[from]!.at;
  const declared: Token[] = [
    { kind: "name", text: "const", at },
    { kind: "name", text: ARROW_MADE, at },
    { kind: "op", text: "=", at },
    ...s.slice(from, to),
  ];
  const outer = scope.current;
  const before = scope.functions.get(ARROW_MADE);
  const entered = enterFunction(scope, declared);
  const made = scope.functions.get(ARROW_MADE);
  if (before === undefined) scope.functions.delete(ARROW_MADE);
  else scope.functions.set(ARROW_MADE, before);
  if (typeof entered === "object") readExpressionBody(scope, declared, entered, outer);
  scope.current = outer;
  return entered === false ? undefined : made;
}

/** `send = make()`: the function a factory of the script's returns ({@link FunctionSummary.made}). */
function madeBy(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): FunctionSummary | undefined {
  if (s[from]?.kind !== "name" || s[from + 1]?.text !== "(" || closeOf(s, from + 1) !== to - 1) {
    return undefined;
  }
  return scope.functions.get(s[from]!.text)?.made;
}

/**
 * `gem, ant = os.environ.get("GEMINI_API_KEY"), os.environ.get("ANTHROPIC_API_KEY")`: as many
 * values as targets, each target bound to its own (not every target to all of them).
 */
function unpacked(s: readonly Token[], bound: Binding): [number, number][] | undefined {
  if (s[0]?.text === "for" || bound.augment) return undefined;
  // `const [a, send] = [1, fetch]`, `[send] = [requests.post]`: a list pattern from a list.
  const left = s.findIndex((t) => !/^(?:const|let|var)$/.test(t.text));
  if (
    s[left]?.text === "[" && s[bound.from]?.text === "[" &&
    closeOf(s, bound.from) === bound.to - 1
  ) {
    const items = argumentRanges(s, bound.from, bound.to - 1);
    return items.length === bound.targets.length ? items : undefined;
  }
  if (bound.targets.length < 2) return undefined;
  const items = argumentRanges(s, bound.from - 1, bound.to);
  return items.length === bound.targets.length ? items : undefined;
}

/**
 * `(async () => {}).constructor`, `(function* () {}).constructor`,
 * `Object.getPrototypeOf(async function () {}).constructor`: a function's constructor, which
 * builds a function from the code it is given, as `Function` does.
 */
function functionConstructor(s: readonly Token[], from: number, to: number): string | undefined {
  if (s[to - 1]?.text !== "constructor" || s[to - 2]?.text !== "." || s[to - 3]?.text !== ")") {
    return undefined;
  }
  const open = openOf(s, to - 3);
  const reached = s.slice(from, open).map((t) => t.text).join("");
  if (open < from || !/^(?:(?:Object|Reflect)\.getPrototypeOf)?$/.test(reached)) return undefined;
  const inner = s.slice(open + 1, to - 3);
  return inner.some((t) => opText(t) === "=>" || t.text === "function") ? "Function" : undefined;
}

/**
 * A read of stdin: `sys.stdin` (and its methods), `input()`, `process.stdin`, Node's
 * `readFileSync(0)` or of `/dev/stdin`.
 */
function readsStdin(tokens: readonly Token[], name: string, end: number): boolean {
  if (/^(?:sys\.stdin|process\.stdin)(?:\.|$)|^input$/.test(name)) return true;
  const arg = tokens[end + 1];
  return /(?:^|\.)readFileSync$/.test(name) && tokens[end]?.text === "(" &&
    (arg?.text === "0" || (arg?.kind === "string" && arg.text === "/dev/stdin"));
}

/** Binds `targets` to what the tokens `[from, to)` carry and hold. */
function bind(scope: Scope, s: readonly Token[], bound: Binding): void {
  const { targets, from, to, augment } = bound;
  const labels = labelsOf(scope, s, from, to);
  const value = constantOf(scope, s, from, to);
  const net = netOf(scope, s, from, to);
  const feeds = feedsOf(scope, s, from, to);
  const alias = to - from >= 1
    ? functionConstructor(s, from, to) ?? aliasOf(scope, s, from, to)
    : undefined;
  const entries = augment ? undefined : containerEntries(scope, s, from, to);
  const made = augment ? undefined : madeBy(scope, s, from, to);
  for (const target of targets) {
    if (made !== undefined) scope.functions.set(target, made);
    if (augment && (scope.aliases.has(target) || MODULES.test(target))) continue;
    const before = augment ? scope.vars.get(target) : undefined;
    const merged = new Set([...(before?.labels ?? []), ...kept(scope, target, labels)]);
    // `ws.onopen = …`, `x += …`: still the connection, process or file it was.
    const entry: Variable = {
      labels: merged,
      net: before?.net,
      feeds: before?.feeds,
      writes: before?.writes,
      host: before?.host,
    };
    if (
      value !== undefined && (!augment || before?.value !== undefined) &&
      (before?.value?.length ?? 0) + value.length <= MAX_VALUE
    ) {
      entry.value = (before?.value ?? "") + value;
    }
    if (net !== undefined) entry.net = net;
    else if (value === undefined && !augment && s[from] !== undefined) {
      const host = hostOf(constantText(scope, s[from]!) ?? "") ?? builtUrlHost(scope, s, from, to);
      if (host !== undefined) entry.host = host;
    }
    if (feeds !== undefined) entry.feeds = feeds;
    const writes = augment ? undefined : writtenPath(scope, s, from);
    if (writes !== undefined) entry.writes = writes;
    if (!augment && targets.length === 1) {
      Object.assign(entry, lineShape(scope, s, from, to));
      if (s[0]?.text === "for") {
        const values = loopConstants(scope, s, from, to);
        if (values !== undefined) entry.values = values;
      }
      if (isEnvironmentCopy(s, from, to)) entry.environment = true;
      // A list assigned is an argv; a loop's variable is one item of it.
      const argv = s[0]?.text !== "for" && s[from]?.text === "["
        ? literalItems(s, from, to)
        : undefined;
      if (argv !== undefined) {
        entry.argv = argv.map(([a, b]) => argvWord(scope, s, a, b));
        entry.list = true;
      }
    }
    scope.vars.set(target, entry);
    // A container that takes a value (`o.key = process.env.X`, `x += …`) stays what it was:
    // only a name assigned whole becomes another name for what it is given.
    if (augment) continue;
    const own = bound.picked?.get(target) ?? alias;
    if (own !== undefined) scope.aliases.set(target, own);
    else scope.aliases.delete(target);
    // A class's attribute (`post = requests.post` in `class C:`): `C.post`, and `self.post`
    // in its methods, is that function.
    if (alias !== undefined && scope.inClass !== "") {
      scope.aliases.set(`${scope.inClass}.${target}`, alias);
    }
    bindEntries(scope, target, entries);
    madeObject(scope, s, from, to, target);
  }
}

/**
 * An object the statement makes whole and binds to `target`: an object of a class of the
 * script's (`c = C()`, `const c = new C()`: instanceAttributes), or urllib's opener, whose
 * `open(url, data)` is `urlopen`'s (`opener = urllib.request.build_opener(handler)`).
 */
function madeObject(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
  target: string,
): void {
  const at = s[from]?.text === "new" ? from + 1 : from;
  if (s[at]?.kind !== "name") return;
  const { name, end } = dottedAt(scope, s, at);
  if (s[end]?.text !== "(" || closeOf(s, end) !== to - 1) return;
  if (OPENER_FACTORY.test(name)) scope.aliases.set(`${target}.open`, "urllib.request.urlopen");
  else if (end === at + 1) instanceAttributes(scope, s[at]!.text, target);
}

/** urllib's openers: `build_opener(…)` and `OpenerDirector()`, Python 3's and 2's. */
const OPENER_FACTORY = /^(?:urllib\.request\.|urllib2\.)?(?:build_opener|OpenerDirector)$/;

/**
 * `c = C()`: what each attribute of the class names (`C.post`, a client's function), the
 * object's attribute of that name does too (`c.post`).
 */
function instanceAttributes(scope: Scope, cls: string, target: string): void {
  const prefix = `${cls}.`;
  for (const [name, alias] of [...scope.aliases]) {
    if (name.startsWith(prefix)) scope.aliases.set(`${target}.${name.slice(prefix.length)}`, alias);
  }
}

/**
 * A dictionary, object or list of functions (`{"a": requests.post}`, `{ up: fetch }`,
 * `[os.system]`): each entry read by a constant key is its function (`senders.up`,
 * `senders["a"]`, `senders[0]`), and an entry read by a computed key is the first of them that
 * sends, runs or decodes, as it may be (`senders[name](…)`), else the first (kept as `[]`).
 */
function containerEntries(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): Map<string, string> | undefined {
  if (!/^[[{(]$/.test(s[from]?.text ?? "") || closeOf(s, from) !== to - 1) return undefined;
  const out = new Map<string, string>();
  let sinks = false;
  for (const [index, [a, b]] of argumentRanges(s, from, to - 1).entries()) {
    const colon = s[from]!.text === "{" ? splitAt(s, a, b, ":") : [];
    const [start, key] = colon.length === 2
      ? [colon[1]![0], constantOf(scope, s, a, colon[0]![1]) ?? s[a]!.text]
      : [a, String(index)];
    const alias = aliasOf(scope, s, start, b);
    if (alias === undefined) continue;
    out.set(key, alias);
    if (!sinks && isSink(alias)) {
      out.set("[]", alias);
      sinks = true;
    }
  }
  if (out.size > 0 && !out.has("[]")) out.set("[]", out.values().next().value!);
  return out.size > 0 ? out : undefined;
}

/** Records `target`'s entries that are functions ({@link containerEntries}), forgetting old ones. */
function bindEntries(scope: Scope, target: string, entries: Map<string, string> | undefined) {
  for (const key of scope.aliases.keys()) {
    if (key.startsWith(`${target}.`) || key === `${target}[]`) scope.aliases.delete(key);
  }
  for (const [key, alias] of entries ?? []) {
    scope.aliases.set(key === "[]" ? `${target}[]` : `${target}.${key}`, alias);
  }
}

/** Whether `a.b.c(` (or `getattr(…)(`, `require("m").x(`, `new X(`) starts at `k`. */
function callFollows(s: readonly Token[], k: number): boolean {
  let end = k + 1;
  if (s[k]!.text === "new") end++;
  while ((s[end]?.text === "." || s[end]?.text === "?.") && s[end + 1]?.text !== "(") end += 2;
  if (s[end]?.text === "?.") return true; // `fetch?.(…)`
  // `[`: a namespace's entry (`builtins.__dict__["exec"](src)`), read by dottedAt.
  return s[end]?.text === "(" || s[end]?.text === "." || s[end]?.text === "[" ||
    (s[end]?.text === ")" && s[end + 1]?.text === "(") || // `(0, axios.post)(…)`
    s[k]!.text === "getattr" || s[k]!.text === "require";
}

/**
 * The items of a list or tuple literal that is all of `[from, to)` (a `for`'s `:` aside), at
 * least one and at most MAX_ARGV_WORDS: an argv is short, and a data table is not read word by
 * word a second time.
 */
function literalItems(
  s: readonly Token[],
  from: number,
  to: number,
): [number, number][] | undefined {
  const end = s[to - 1]?.text === ":" ? to - 1 : to;
  if (!/^[([]$/.test(s[from]?.text ?? "") || closeOf(s, from) !== end - 1) return undefined;
  const items = argumentRanges(s, from, end - 1);
  return items.length > 0 && items.length <= MAX_ARGV_WORDS ? items : undefined;
}

/** The string constants a `for` walks over a literal list or tuple of them (`for var in ("A", "B"):`). */
function loopConstants(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): string[] | undefined {
  const values = literalItems(s, from, to)?.map(([a, b]) => constantOf(scope, s, a, b));
  return values?.every((v) => v !== undefined) ? values as string[] : undefined;
}

interface Binding {
  targets: string[];
  from: number;
  to: number;
  augment: boolean;
  /**
   * `self.key = …`, `obj.a.b = …`: the attribute itself, which takes what every assignment
   * to it gives (besides its container `self`): reading `self.key` back gives that, not all
   * that went into `self`.
   */
  attribute?: string;
  /** An object pattern's names and the literal's entries they take (`{ send } = { send: fetch }`). */
  picked?: ReadonlyMap<string, string>;
}

/** The names a statement binds and the tokens of what it binds them to. */
function bindingOf(scope: Scope, s: readonly Token[]): Binding | undefined {
  const head = s[0]?.text;
  if (
    head !== "for" && head !== "with" && head !== "async" &&
    !s.some((t) => opText(t) === "=" || opText(t) === "+=")
  ) {
    mutation(scope, s);
    return undefined;
  }
  const words = s.map((t) => t.text);
  if (words[0] === "for") {
    const sep = words.findIndex((w) => w === "in" || w === "of");
    if (sep === -1) return undefined;
    // JavaScript's declaration words are no targets; in Python `var` is a name like any.
    const targets = s.slice(1, sep).filter((t) =>
      t.kind === "name" && (scope.language === "python" || !/^(?:const|let|var)$/.test(t.text))
    );
    return { targets: targets.map((t) => t.text), from: sep + 1, to: s.length, augment: false };
  }
  const as = words.lastIndexOf("as");
  if ((words[0] === "with" || words[0] === "async") && as !== -1 && s[as + 1]?.kind === "name") {
    return { targets: [s[as + 1]!.text], from: 1, to: as, augment: false };
  }
  let depth = 0;
  for (let k = 0; k < s.length; k++) {
    const w = opText(s[k]!);
    if (w === "(" || w === "[" || w === "{") depth++;
    else if (w === ")" || w === "]" || w === "}") depth--;
    else if (depth === 0 && (w === "=" || w === "+=") && k > 0) {
      const left = s.slice(0, k).filter((t) => !/^(?:const|let|var|export|await)$/.test(t.text));
      const value = s[k + 1]?.text === "await" ? k + 2 : k + 1;
      if (left[0]?.text === "{" && s[value]?.kind === "name") {
        const source = dottedAt(scope, s, value);
        // `const { execSync } = await import("node:child_process")`: that module.
        const loaded = source.name === "import" && s[source.end]?.text === "(" &&
            s[source.end + 1]?.kind === "string" && closeOf(s, source.end) === source.end + 2
          ? s[source.end + 1]!.text.replace(MODULE_PREFIX, "")
          : undefined;
        if (loaded !== undefined || source.end === s.length || s[source.end]?.text !== "(") {
          // `const { execSync } = require("child_process")`: names of a module, not values.
          bindBraces(scope, left.slice(1, -1).map((t) => t.text), loaded ?? source.name, ":");
          return undefined;
        }
      }
      const { names, container } = targetsOf(left);
      const picked = left[0]?.text === "{" && s[value]?.text === "{" &&
          closeOf(s, value) === s.length - 1
        ? pickedEntries(scope, left, s, value)
        : undefined;
      const attribute = left.length >= 3 && left.every((t, j) =>
          j % 2 === 0 ? t.kind === "name" : t.text === "."
        )
        ? left.map((t) => t.text).join("")
        : undefined;
      return {
        targets: names,
        from: k + 1,
        to: s.length,
        augment: w === "+=" || container,
        ...(attribute === undefined ? {} : { attribute }),
        ...(picked === undefined ? {} : { picked }),
      };
    }
  }
  mutation(scope, s);
  return undefined;
}

/**
 * `x`, `a, b`, `[a, b]`: the variables an assignment's left side names; `x[k] = …` and
 * `x.attr = …` name the container `x`, which takes what went in along with what it had.
 */
function targetsOf(left: readonly Token[]): { names: string[]; container: boolean } {
  // `{ a, b: c, d = 1, ...e }`: an object pattern binds `a`, `c`, `d` and `e` (a flat one:
  // nested patterns are read as before, each name they hold).
  const inner = left.slice(1, -1);
  if (left[0]?.text === "{" && left.at(-1)?.text === "}" && !inner.some((t) => t.text === "{")) {
    const names = splitCommas(inner.map((t) => t.text)).map((part) => {
      const rename = part.indexOf(":");
      return rename !== -1 ? part[rename + 1]! : part[0] === "..." ? part[1]! : part[0]!;
    });
    return { names: names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name)), container: false };
  }
  const names = left.filter((t, k) =>
    t.kind === "name" && left[k - 1]?.text !== "." && left[k - 1]?.text !== ":"
  );
  if (left[1]?.text === "[" || left[1]?.text === ".") {
    return { names: names.slice(0, 1).map((t) => t.text), container: true };
  }
  return { names: names.map((t) => t.text), container: false };
}

/**
 * `x.append(y)`, `x.update(y)`, `m.set_content(y)`, `s.headers.update(y)`: `x` (and the
 * attribute changed) takes the labels of `y`.
 */
function mutation(scope: Scope, s: readonly Token[]): void {
  // `s.headers.update({...})`: an attribute's content changed, the object holding it too.
  if (
    s[0]?.kind === "name" && s[1]?.text === "." && s[2]?.kind === "name" && s[3]?.text === "." &&
    MUTATORS.test(s[4]?.text ?? "") && s[5]?.text === "("
  ) {
    const added = labelsOf(scope, s, 6, closeOf(s, 5));
    for (const name of [s[0].text, `${s[0].text}.${s[2].text}`]) {
      for (const l of added) scope.vars.get(name)?.labels.add(l);
    }
    return;
  }
  if (s[0]?.kind !== "name" || s[1]?.text !== "." || s[3]?.text !== "(") {
    const eq = s.findIndex((t) => opText(t) === "=");
    if (s[0]?.kind === "name" && s[1]?.text === "[" && eq !== -1) {
      const v = scope.vars.get(s[0].text);
      if (v !== undefined) {
        for (const l of labelsOf(scope, s, eq + 1, s.length)) v.labels.add(l);
        delete v.argv;
      }
    }
    return;
  }
  if (!MUTATORS.test(s[2]!.text)) return;
  const v = scope.vars.get(s[0].text);
  if (v === undefined) return;
  const added = labelsOf(scope, s, 4, closeOf(s, 3));
  for (const l of added) v.labels.add(l);
  delete v.argv;
  // `f.write(data)` on a file opened at a constant path: that file now holds the data.
  if (v.writes !== undefined) noteWritten(scope, v.writes, added);
}

/** `open("/tmp/x.sh", "wb")` at `from`: the constant path a file opened for writing writes. */
function writtenPath(scope: Scope, s: readonly Token[], from: number): string | undefined {
  const { name, end } = s[from]?.kind === "name" ? dottedAt(scope, s, from) : { name: "", end: 0 };
  if (!/^(?:io\.|codecs\.)?open$/.test(name) || s[end]?.text !== "(") return undefined;
  if (!writesMode(s, end, closeOf(s, end)) || !/^[,)]$/.test(opText(s[end + 2] ?? s[end]!))) {
    return undefined;
  }
  return constantText(scope, s[end + 1]!);
}

/**
 * A write of downloaded or decoded data at `k` (`open(p, "wb").write(data)`,
 * `Path(p).write_bytes(data)`, `fs.writeFileSync(p, data)`): the constant paths named there
 * hold that data now.
 */
function writeOfData(
  scope: Scope,
  s: readonly Token[],
  k: number,
  name: string,
  open: number,
): void {
  const close = closeOf(s, open);
  const chained = s[close + 1]?.text === "." && s[close + 2]?.text === "write" &&
    s[close + 3]?.text === "(";
  const path = chained ? writtenPath(scope, s, k) : undefined;
  if (path !== undefined) {
    noteWritten(scope, path, labelsOf(scope, s, close + 4, closeOf(s, close + 3)));
  }
  if (!WRITE_CALLS.test(name)) return;
  const labels = labelsOf(scope, s, open + 1, close);
  for (let j = Math.max(0, k - 12); j < close; j++) {
    if (s[j]!.kind === "string") noteWritten(scope, s[j]!.text, labels);
  }
}

/**
 * `urlretrieve(url, p)` saves a download at `p`; `runpy.run_path(p)`, `zipimporter(p)` (a zip
 * of modules), `spec_from_file_location(name, p)` and `SourceFileLoader(name, p)` run the file
 * at `p` —
 * downloaded data when it is one of those.
 */
function savedDownload(scope: Scope, s: readonly Token[], name: string, open: number, at: number) {
  const ranges = argumentRanges(s, open, closeOf(s, open));
  const path = (j: number) => constantArgument(scope, s, ranges[j]);
  if (/(?:^|\.)urlretrieve$/.test(name)) {
    const saved = path(1);
    if (saved !== undefined) noteWritten(scope, saved, new Set(["fetched"]));
  } else {
    // `runpy.run_path(p)` and `zipimporter(p)`, and the module loaders given a file's path
    // second.
    const first = /^runpy\.run_path$|zipimporter$/.test(name);
    const run = scope.downloaded.get(fileKey(path(first ? 0 : 1) ?? ""));
    if (run !== undefined) reach(scope, "exec", at, run, undefined, name);
  }
}

/**
 * A file opened for writing handed to a call (`json.dump(data, open("/tmp/c.json", "w"))`,
 * `pickle.dump(x, open(p, "wb"))`, `print(key, file=open(p, "w"))`): the call writes what else
 * it is given there.
 */
function handedWriter(scope: Scope, s: readonly Token[], open: number): void {
  const ranges = argumentRanges(s, open, closeOf(s, open));
  for (const [i, [a]] of ranges.entries()) {
    const at = s[a]?.kind === "name" && opText(s[a + 1] ?? s[a]!) === "=" ? a + 2 : a;
    const path = writtenPath(scope, s, at);
    if (path === undefined) continue;
    const others = ranges.filter((_, j) => j !== i);
    noteWritten(scope, path, new Set(others.flatMap(([x, y]) => [...labelsOf(scope, s, x, y)])));
  }
}

/** Calls that save a download to a path, or run (or load as a module) the file at one. */
const SAVES_OR_RUNS_FILE =
  /(?:^|\.)urlretrieve$|^runpy\.run_path$|^(?:zipimport\.)?zipimporter$|^(?:new )?importlib\.(?:util\.spec_from_file_location|machinery\.SourceFileLoader)$/;

/**
 * A file written with downloaded or decoded data, or a secret: a shell given its path runs that
 * data, and reading or uploading the file sends the secret.
 */
function noteWritten(scope: Scope, path: string, labels: ReadonlySet<Label>): void {
  const held = heldByFile(labels);
  if (held.size > 0) scope.downloaded.set(fileKey(path), held);
}

/**
 * `partial(f, …)`, `staticmethod(f)` with their arguments opening at `open`: the function `f`
 * when the first argument is one, by its name (aliases resolved), and the argument ranges bound
 * after it.
 */
function wrappedFunction(
  scope: Scope,
  s: readonly Token[],
  open: number,
): { name: string; bound: [number, number][] } | undefined {
  const [fn, ...bound] = argumentRanges(s, open, closeOf(s, open));
  if (fn === undefined || s[fn[0]]?.kind !== "name") return undefined;
  const inner = dottedAt(scope, s, fn[0]);
  return inner.end === fn[1] ? { name: inner.name, bound } : undefined;
}

/** A bare module or function reference (`u = urllib.request`, `f = getattr(os, "popen")`). */
function aliasOf(scope: Scope, s: readonly Token[], from: number, to: number): string | undefined {
  // `(None or requests.post)`: what the brackets hold.
  if (s[from]?.text === "(" && closeOf(s, from) === to - 1) {
    return aliasOf(scope, s, from + 1, to - 1);
  }
  let k = from;
  if (s[k]?.text === "await") k++;
  if (s[k]?.kind !== "name") {
    return literalEntry(scope, s, k, to) ?? chosenAlias(scope, s, from, to);
  }
  const { name, end } = dottedAt(scope, s, k);
  if (end === to) {
    const known = s[k]!.text === "require" || // `const cp = require("child_process")`
      /^(?:__builtins__|builtins|process|globalThis|libc)$/.test(name) ||
      EXEC_CALLS.test(name) || SHELL_CALLS.test(name) || SEND_CALLS.test(name) ||
      DECODE_CALLS.test(name); // `const run = eval`
    return name.includes(".") || scope.aliases.has(s[k]!.text) || known ? name : undefined;
  }
  // `axios.post.bind(axios)`, `functools.partial(requests.post, url)`: the function itself,
  // bound (what it was given then is read where it is given).
  if (name.endsWith(".bind") && s[end]?.text === "(" && closeOf(s, end) === to - 1) {
    const fn = name.slice(0, -".bind".length);
    if (isSink(fn)) return fn;
  }
  if (
    /^(?:(?:functools\.)?partial|staticmethod|classmethod)$/.test(name) && s[end]?.text === "(" &&
    closeOf(s, end) === to - 1
  ) {
    const wrapped = wrappedFunction(scope, s, end);
    if (wrapped !== undefined && isSink(wrapped.name)) return wrapped.name;
  }
  // `eval("requests.post")`: the function a constant expression names.
  if (
    name === "eval" && s[end]?.text === "(" && s[end + 1]?.kind === "string" &&
    closeOf(s, end) === to - 1 && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(s[end + 1]!.text)
  ) {
    const [head, ...rest] = s[end + 1]!.text.split(".");
    return [scope.aliases.get(head!) ?? head, ...rest].join(".");
  }
  // `await import("node:child_process")`
  if (
    name === "import" && s[end]?.text === "(" && s[end + 1]?.kind === "string" &&
    closeOf(s, end) === to - 1
  ) {
    return s[end + 1]!.text.replace(MODULE_PREFIX, "");
  }
  return chosenAlias(scope, s, from, to);
}

/**
 * An entry of a container literal read in place (`[requests.post][0]`,
 * `{"p": requests.post}["p"]`, `{"p": requests.post}.get("p")`, `{ f: fetch }.f`): that
 * entry, or by a key not known the first that sends, runs or decodes ({@link containerEntries}).
 */
function literalEntry(scope: Scope, s: readonly Token[], from: number, to: number) {
  if (s[from]?.text !== "[" && s[from]?.text !== "{") return undefined;
  const close = closeOf(s, from);
  const entries = containerEntries(scope, s, from, close + 1);
  if (entries === undefined) return undefined;
  const next = s[close + 1]?.text;
  let key: string | undefined;
  if (next === "[" && closeOf(s, close + 1) === to - 1) {
    key = constantOf(scope, s, close + 2, to - 1);
  } else if (next === "." && s[close + 2]?.kind === "name" && close + 3 === to) {
    key = s[close + 2]!.text;
  } else if (
    next === "." && s[close + 2]?.text === "get" && s[close + 3]?.text === "(" &&
    closeOf(s, close + 3) === to - 1
  ) {
    const [first] = argumentRanges(s, close + 3, to - 1);
    key = first === undefined ? undefined : constantOf(scope, s, first[0], first[1]);
  } else return undefined;
  return entries.get(key ?? "[]") ?? entries.get("[]");
}

/**
 * A value chosen between others (`undefined || fetch`, `c ? fetch : null`, `None or
 * requests.post`, `requests.post if c else None`): the first of them that is a client's
 * function, a code runner or a decoder, as it may be the one chosen.
 */
function chosenAlias(scope: Scope, s: readonly Token[], from: number, to: number) {
  const parts: [number, number][] = [];
  let start = from;
  for (let k = from; k < to; k++) {
    const t = opText(s[k]!);
    if (t === "(" || t === "[" || t === "{") {
      k = closeOf(s, k);
      continue;
    }
    const word = s[k]!.kind === "name" && scope.language === "python" &&
      /^(?:or|and|if|else)$/.test(s[k]!.text);
    if (word || (s[k]!.kind === "op" && /^(?:\|\||\?\?|&&|\?|:)$/.test(t))) {
      parts.push([start, k]);
      start = k + 1;
    }
  }
  if (parts.length === 0) return undefined;
  parts.push([start, to]);
  for (const [a, b] of parts) {
    const alias = b > a ? aliasOf(scope, s, a, b) : undefined;
    if (alias !== undefined && isSink(alias)) return alias;
  }
  return undefined;
}

/**
 * The host of an address built by a URL constructor from constants: `new URL(u)` and
 * `new URL(path, base)` (the base's host unless the path has its own), `urljoin(base, path)`.
 */
function builtUrlHost(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): string | undefined {
  const at = s[from]?.text === "new" ? from + 1 : from;
  const { name, end } = dottedAt(scope, s, at);
  if (s[end]?.text !== "(" || closeOf(s, end) !== to - 1) return undefined;
  if (!/^(?:URL|(?:urllib\.parse\.|parse\.)?urljoin)$/.test(name)) return undefined;
  const hosts = argumentRanges(s, end, closeOf(s, end)).map(([a, b]) =>
    b === a + 1 ? hostOf(constantText(scope, s[a]!) ?? "") : undefined
  );
  return name === "URL" ? hosts[0] ?? hosts[1] : hosts[0];
}

/** The connection a variable among the arguments of the call opened at `open` holds. */
function wrappedNet(scope: Scope, s: readonly Token[], open: number): Variable["net"] {
  for (let a = open + 1, close = closeOf(s, open); a < close; a++) {
    const net = s[a]!.kind === "name" && s[a - 1]?.text !== "."
      ? scope.vars.get(s[a]!.text)?.net
      : undefined;
    if (net !== undefined) return net;
  }
  return undefined;
}

/** Where a connection or request object made by this expression sends, when it is one. */
function netOf(scope: Scope, s: readonly Token[], from: number, to: number): Variable["net"] {
  for (let k = from; k < to; k++) {
    // `ctx.wrap_socket(raw, …)`, chained or not: TLS over a connection is that connection.
    if (s[k]!.text === "wrap_socket" && s[k + 1]?.text === "(") {
      const wrapped = wrappedNet(scope, s, k + 1);
      if (wrapped !== undefined) return wrapped;
    }
    if (s[k]!.kind !== "name" || s[k - 1]?.text === ".") continue;
    const { name, end } = dottedAt(scope, s, k);
    if (s[end]?.text === "(" && SEND_CALLS.test(name)) {
      const host = hostIn(scope, s, end, closeOf(s, end));
      return DATAGRAM_SOCKET.test(name) ? { host, datagram: true } : { host };
    }
    // `partial(requests.post, url)`: a send function bound to an address sends there.
    if (s[end]?.text === "(" && /^(?:functools\.)?partial$/.test(name)) {
      const wrapped = wrappedFunction(scope, s, end);
      if (wrapped !== undefined && SEND_CALLS.test(wrapped.name) && wrapped.bound.length > 0) {
        const { bound } = wrapped;
        return { host: hostIn(scope, s, bound[0]![0], bound.at(-1)![1]) };
      }
    }
    const v = scope.vars.get(name.split(".")[0]!);
    if (v?.net !== undefined && end === to) return v.net;
    // What a connection's method makes is on that connection (`sftp = ssh.open_sftp()`).
    if (
      v?.net !== undefined && name.includes(".") && s[end]?.text === "(" &&
      closeOf(s, end) === to - 1
    ) return v.net;
  }
  return undefined;
}

/**
 * The interpreter a process made by this expression runs on its stdin, when it is one: a
 * process call (`subprocess.Popen(["bash"], …)`, `spawn("sh")`), or a variable holding one.
 */
function feedsOf(scope: Scope, s: readonly Token[], from: number, to: number): Feed | undefined {
  for (let k = from; k < to; k++) {
    if (s[k]!.kind !== "name" || s[k - 1]?.text === ".") continue;
    const { name, end } = dottedAt(scope, s, k);
    if (s[end]?.text === "(" && PROCESS_CALLS.test(name)) return stdinProgram(scope, s, end);
    const v = scope.vars.get(name);
    if (v?.feeds !== undefined && end === to) return v.feeds;
    // `p.stdin`, `p.stdin.getWriter()`: the process's stdin, written to later.
    const [base, ...rest] = name.split(".");
    const feeds = scope.vars.get(base!)?.feeds;
    const tail = s[end]?.text === "(" ? closeOf(s, end) + 1 : end;
    if (feeds !== undefined && tail === to && /^stdin(?:\.getWriter)?$/.test(rest.join("."))) {
      return feeds;
    }
  }
  return undefined;
}

/** What the process the call whose `(` is at `open` starts does with its stdin ({@link Feed}). */
function stdinProgram(scope: Scope, s: readonly Token[], open: number): Feed | undefined {
  const words = launched(argvWords(scope, s, open, closeOf(s, open)));
  const program = (words[0]?.text ?? "").split("/").pop()!;
  if (words.length === 0) return undefined;
  if (runsStdin(program, words.map((w) => w.text ?? ""))) return { program };
  if (words.some((w) => w.text === undefined)) return undefined;
  return { program, line: words.map((w) => shellQuoted(w.text!)).join(" ") };
}

/**
 * `p.communicate(src)`, `p.stdin.write(src)`, `p.stdin.end(src)` of a process `p` that runs
 * its stdin ({@link Variable.feeds}), or of the call that started it
 * (`spawn("bash").stdin.end(src)`): its arguments run. `k` is the method's name.
 */
function feedsStdin(scope: Scope, s: readonly Token[], k: number): void {
  const method = s[k]!.text;
  if (s[k + 1]?.text !== "(" || s[k - 1]?.text !== ".") return;
  const viaStdin = s[k - 2]?.text === "stdin" && s[k - 3]?.text === ".";
  // A writer of its stdin held in a variable (`const w = p.stdin.getWriter(); w.write(src)`).
  const held = !viaStdin && s[k - 2]?.kind === "name" && s[k - 3]?.text !== "." &&
      /^(?:write|end|writelines)$/.test(method)
    ? scope.vars.get(s[k - 2]!.text)?.feeds
    : undefined;
  const writes = viaStdin || held !== undefined;
  if (writes ? !/^(?:write|end|writelines)$/.test(method) : method !== "communicate") return;
  const last = viaStdin ? k - 4 : k - 2;
  let program: Feed | undefined = held;
  if (program === undefined && s[last]?.text === ")") {
    const open = openOf(s, last);
    const { name, end } = dottedAt(scope, s, receiverStart(s, open - 1));
    if (end === open && PROCESS_CALLS.test(name)) program = stdinProgram(scope, s, open);
  } else if (program === undefined && s[last]?.kind === "name" && s[last - 1]?.text !== ".") {
    program = scope.vars.get(s[last]!.text)?.feeds;
  }
  if (program === undefined) return;
  const args = labelsOf(scope, s, k + 2, closeOf(s, k + 1));
  if (program.line === undefined) {
    return reach(scope, "exec", s[k]!.at, args, undefined, `${program.program}'s stdin`);
  }
  // What the command does with its stdin, read as the shell reads `… | command`.
  const piped = `printf %s "$${FED}" | ${program.line}`;
  for (const flow of analyzeShell(piped, new Map([[FED, args]]), scope.downloaded, INLINE_CODE)) {
    scope.sink.add({ ...flow, at: s[k]!.at });
  }
}

/** The variable that stands for what a script writes to a process's stdin ({@link feedsStdin}). */
const FED = "SKILLS_AUDIT_STDIN";

/**
 * The parameter of the function being read that a call's address is (`requests.post(url, …)`,
 * `fetch(url, …)`, `url=url`): its callers give the host.
 */
function addressParameter(
  scope: Scope,
  s: readonly Token[],
  open: number,
  close: number,
): number | undefined {
  if (scope.current === undefined) return undefined;
  for (const [a, b] of argumentRanges(s, open, close)) {
    const keyword = s[a]?.kind === "name" && opText(s[a + 1] ?? s[a]!) === "=";
    if (keyword && !DESTINATION_KEY.test(s[a]!.text)) continue;
    const from = keyword ? a + 2 : a;
    return b - from === 1 && s[from]?.kind === "name"
      ? scope.vars.get(s[from]!.text)?.parameter
      : undefined;
  }
  return undefined;
}

/**
 * Where a send call's request goes: its `url` argument by name (`url=…`, `{ url: … }`,
 * `hostname`, `host`, `baseURL`), else its first argument; undefined when neither names one.
 * An address elsewhere in the call (a header's `Origin`, a body's link, a keyword written
 * first) is not where it goes: naming the skill's declared host there hides nothing.
 */
function destinationHost(
  scope: Scope,
  s: readonly Token[],
  open: number,
  close: number,
  afterMethod = false,
): string | undefined {
  const args = argumentRanges(s, open, close);
  const named = (from: number, to: number, sep: string, key = DESTINATION_KEY) => {
    for (const [a, b] of splitAt(s, from, to, ",")) {
      if (key.test(unquoted(s[a]?.text ?? "")) && opText(s[a + 1] ?? s[a]!) === sep) {
        return hostIn(scope, s, a + 2, b);
      }
    }
    return undefined;
  };
  // A proxy the call names (`proxies={"https": "http://p.example:8080"}`, `proxy=`) carries
  // the request, headers and all, whatever its address says.
  const keyword = named(open + 1, close, "=", PROXY_KEY) ?? named(open + 1, close, "=");
  if (keyword !== undefined) return keyword;
  // The first positional argument; past a method's name when `afterMethod` (a pool's
  // `request("POST", url, …)`: a connection's `c.request("POST", url)` goes where `c` does).
  const positional = args.filter(([a]) =>
    !(s[a]?.kind === "name" && opText(s[a + 1] ?? s[a]!) === "=")
  );
  const method = afterMethod && positional[0] !== undefined &&
    positional[0][1] - positional[0][0] === 1 && s[positional[0][0]]?.kind === "string" &&
    HTTP_METHOD.test(s[positional[0][0]]!.text);
  const first = positional[method ? 1 : 0];
  if (first !== undefined) {
    const [a, b] = first;
    // `urlopen(Request(url=…, headers=…))`: where the request it is given goes.
    const inner = s[a]?.kind === "name" ? dottedAt(scope, s, a) : undefined;
    const request = inner !== undefined && s[inner.end]?.text === "(" &&
      closeOf(s, inner.end) === b - 1 && SEND_CALLS.test(inner.name);
    const host = s[a]?.text === "{"
      ? named(a + 1, closeOf(s, a), ":")
      : request
      ? destinationHost(scope, s, inner!.end, b - 1)
      : hostIn(scope, s, a, b);
    if (host !== undefined) return host;
  }
  return undefined;
}

/**
 * Whether a call of a client the vocabulary names sends, a function of the script's own not
 * shadowing it (`def fetch(series, key)` in Python sends what its body sends, read through its
 * summary): the client itself; called another way, its arguments shifted (`fetch.call(null,
 * url, init)`, `Reflect.apply(fetch, null, [url, init])`; `bound` is what `.call`/`.apply`
 * is called on); or handed as a value and called with what comes with it
 * (`Thread(target=requests.post, kwargs={"data": key})`, `pool.submit(requests.post, url,
 * data=key)`, `partial(requests.post, url)`).
 */
function sendsByName(
  scope: Scope,
  s: readonly Token[],
  name: string,
  bound: string,
  open: number,
): boolean {
  const applied = name === "Reflect.apply" ? s[open + 1]?.text ?? "" : bound;
  return SEND_CALLS.test(name) || SEND_CALLS.test(applied) || handsSendFunction(scope, s, open);
}

/** Whether an argument of the call opening at `open` is a send function, not called there. */
function handsSendFunction(scope: Scope, s: readonly Token[], open: number): boolean {
  for (const [a, b] of argumentRanges(s, open, closeOf(s, open))) {
    // A keyword's value (`target=requests.post`) or the argument itself.
    const from = s[a]?.kind === "name" && opText(s[a + 1] ?? s[a]!) === "=" ? a + 2 : a;
    if (s[from]?.kind !== "name") continue;
    const { name, end } = dottedAt(scope, s, from);
    if (end === b && SEND_CALLS.test(name)) return true;
  }
  return false;
}

/**
 * Whether the address a send call is given (its `url` keyword, or its first argument) is built
 * from the script's own constants decoded (`base64.b64decode("…")`, a string read backwards,
 * character codes): a destination the script hides from its reader. An address decoded from
 * what the user gives (a cloud ID from the environment) hides nothing.
 */
function hiddenDestination(scope: Scope, s: readonly Token[], open: number, close: number) {
  for (const [a, b] of argumentRanges(s, open, close)) {
    const keyword = s[a]?.kind === "name" && opText(s[a + 1] ?? s[a]!) === "=";
    if (keyword && !DESTINATION_KEY.test(s[a]!.text)) continue;
    return labelsOf(scope, s, keyword ? a + 2 : a, b).has("concealed");
  }
  return false;
}

/** The calls that print: Python's and JavaScript's ways to write to stdout. */
const PRINT_CALLS =
  /^(?:print|pprint|pprint\.pprint|sys\.stdout\.write|sys\.stdout\.buffer\.write|console\.(?:log|info|dir)|process\.stdout\.write)$/;

/** The names a request's destination is given by. */
const DESTINATION_KEY =
  /^(?:url|uri|hostname|host|href|baseURL|baseUrl|base_url|api_base|endpoint|endpoint_url|azure_endpoint)$/;
/**
 * The names a client's base address is given by: a client made with one (`OpenAI(api_key=key,
 * base_url="https://…")`, `new Anthropic({ apiKey, baseURL })`) sends what it is made with there.
 */
const BASE_URL_KEY = /^(?:baseURL|baseUrl|base_url|api_base|endpoint|endpoint_url|azure_endpoint)$/;
/** {@link BASE_URL_KEY} anywhere in a script's text: only then is a call's base address sought. */
const BASE_URL_WORD = new RegExp(`\\b${BASE_URL_KEY.source.slice(1, -1)}\\b`);

/** Whether the call opening at `open` names a constant base address for a client it makes. */
function namesBaseUrl(scope: Scope, s: readonly Token[], open: number): boolean {
  if (!scope.baseUrls) return false;
  const close = closeOf(s, open);
  const keyed = (from: number, to: number, sep: string): boolean =>
    splitAt(s, from, to, ",").some(([a, b]) =>
      BASE_URL_KEY.test(unquoted(s[a]?.text ?? "")) && opText(s[a + 1] ?? s[a]!) === sep &&
      hostIn(scope, s, a + 2, b) !== undefined
    );
  return keyed(open + 1, close, "=") ||
    argumentRanges(s, open, close).some(([a]) =>
      s[a]?.text === "{" && keyed(a + 1, closeOf(s, a), ":")
    );
}
/** An HTTP method's name, as a request call takes it first (`request("POST", url)`). */
const HTTP_METHOD = /^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/i;

/** The names a request's proxy is given by (requests' `proxies`, httpx's and aiohttp's `proxy`). */
const PROXY_KEY = /^(?:proxies|proxy)$/;

/** A key as written: a name, or a quoted one. */
function unquoted(text: string): string {
  return text.replace(/^(["'`])(.*)\1$/, "$2");
}

/** The first host the arguments name (a URL, a host name, a variable holding one). */
function hostIn(scope: Scope, s: readonly Token[], from: number, to: number): string | undefined {
  for (let k = from; k < to; k++) {
    const t = s[k]!;
    const text = constantText(scope, t);
    if (text === undefined) {
      const v = t.kind === "name" ? scope.vars.get(t.text) : undefined;
      const host = v?.net?.host ?? v?.host;
      if (host !== undefined) return host;
      continue;
    }
    const host = hostOf(text);
    if (host !== undefined) return host;
  }
  return undefined;
}

// --- sinks -------------------------------------------------------------------------------

/** The timers that run their first argument as code when it is a string. */
const TIMERS = /^(?:setTimeout|setInterval)$/;

/**
 * What a timer runs as code: its first argument, unless that is a function written inline
 * (`setInterval(() => poll(), 1e3)`, as every bundled app writes it), which is code the file
 * holds, not text; the delay and the callback's own arguments are data.
 */
function timerCode(
  scope: Scope,
  s: readonly Token[],
  open: number,
  close: number,
): Set<Label> | undefined {
  const first = argumentRanges(s, open, close)[0];
  if (first === undefined) return undefined;
  const [at, to] = first;
  // `function …`, `(a) => …`, `a => …`: the whole argument is one function.
  return inlineFunction(s, at, to) ? undefined : labelsOf(scope, s, at, to);
}

function checkCall(scope: Scope, s: readonly Token[], k: number, name: string, open: number): void {
  const receiver = scope.vars.get(name.split(".")[0]!);
  const method = name.split(".").pop()!;
  const short = name.replace(/^new /, "");
  // `xhr.open("POST", url)`, `sock.connect((host, 443))`, an SSH client's `connect(host)`:
  // where the request or connection made before it will send.
  if (receiver?.net !== undefined && /^(?:open|connect)$/.test(method) && name.includes(".")) {
    receiver.net = {
      ...receiver.net,
      host: hostIn(scope, s, open + 1, closeOf(s, open)) ?? receiver.net.host,
    };
  }
  const exact = scope.functions.get(
    name.startsWith("self.") || name.startsWith("this.") ? method : short,
  );
  // A method of the script's classes by its name alone (`u.send(…)`) may be that method: its
  // summary applies, but it shadows no client of the same name (`axios.post(…)` still sends
  // beside a class's own `post`).
  const own = exact ?? (name.includes(".") ? definedMethod(scope, method) : undefined);
  const bound = /^(?:call|apply)$/.test(method) ? name.slice(0, -method.length - 1) : "";
  const send = (exact === undefined && sendsByName(scope, s, name, bound, open)) ||
    (receiver?.net !== undefined && SEND_METHODS.test(method)) || namesBaseUrl(scope, s, open);
  // `open(p, "a")`, and a path object's own `p.open("a")` (`Path.home().joinpath(…)`).
  const opens = name === "open" || name === "io.open" || name === "codecs.open" ||
    (method === "open" && receiver !== undefined && name.split(".").length === 2);
  if (own !== undefined && own !== scope.current?.summary) {
    callSummary(scope, s, k, own, open, receiverLabels(scope, name));
  }
  // `eval.call(null, code)`, `[].constructor.constructor(code)`: the runner called another way.
  const runs = (EXEC_METHODS.test(method) && name.includes(".")) ||
    FUNCTION_CONSTRUCTOR.test(short) || runsItsArgument(bound);
  const sink = send || opens || runs || EXEC_CALLS.test(short) || SHELL_CALLS.test(name) ||
    PROCESS_CALLS.test(name) || WRITE_CALLS.test(name);
  if (SAVES_OR_RUNS_FILE.test(name)) {
    savedDownload(scope, s, name, open, s[k]!.at);
  }
  if (method === "then" && name.includes(".")) thenRuns(scope, s, open - 1);
  if (scope.writesFiles) handedWriter(scope, s, open);
  if (scope.printed !== undefined && PRINT_CALLS.test(name)) {
    for (const l of labelsOf(scope, s, open + 1, closeOf(s, open))) scope.printed.add(l);
  }
  handedCodeRunner(scope, s, open, s[k]!.at);
  if (!sink) return; // most calls: nothing to work out
  const close = closeOf(s, open);
  const args = labelsOf(scope, s, open + 1, close);
  const at = s[k]!.at;
  if (send) {
    const host = sentTo(scope, s, k, receiver, method, open);
    // A session's own headers and credentials go with each request it makes
    // (`s.headers.update({...key})`, `s.auth = (u, key)`, then `s.get(url)`).
    const carried = receiver?.net !== undefined && name.includes(".") ? receiver.labels : [];
    const hidden = host === undefined && hiddenDestination(scope, s, open, close);
    const to = host === undefined ? addressParameter(scope, s, open, close) : undefined;
    reach(scope, "send", at, new Set([...args, ...carried]), host, name, hidden, to);
  }
  if (EXEC_CALLS.test(name) || EXEC_CALLS.test(short) || runs) {
    const code = TIMERS.test(short) ? timerCode(scope, s, open, close) : args;
    if (code !== undefined) reach(scope, "exec", at, code, undefined, name);
  }
  if (SHELL_CALLS.test(name)) shellArgument(scope, s, open, close, at);
  if (PROCESS_CALLS.test(name)) processCall(scope, s, open, close, at, args, name);
  if (opens && writesMode(s, open, close)) {
    const path = name.includes(".") && receiver !== undefined ? receiver.labels : [];
    reach(scope, "persist", at, new Set([...args, ...path]), undefined, name);
  }
  if (opens || WRITE_CALLS.test(name)) writeOfData(scope, s, k, name, open);
  if (WRITE_CALLS.test(name)) {
    reach(scope, "persist", at, writtenPathLabels(scope, s, k, name, open), undefined, name);
  }
}

/**
 * The labels of where a write call writes, not of what it writes: a text that names
 * `~/.gitconfig` is no write to it. `p.write_text(data)`: the path before the call;
 * `writeFileSync(p, data)`, `Deno.writeTextFile(p, data)`: its first argument; a copy, a move, a
 * rename or a link: every argument (each is a path).
 */
function writtenPathLabels(
  scope: Scope,
  s: readonly Token[],
  k: number,
  name: string,
  open: number,
): Set<Label> {
  // The object it is called on (`p` of `p.write_text`) and what leads to it on the line.
  const receiver = labelsOf(scope, s, Math.max(0, k - 12), open);
  if (/(?:^|\.)write_(?:text|bytes)$/.test(name)) return receiver;
  const ranges = argumentRanges(s, open, closeOf(s, open));
  const paths = /(?:copy|move|rename|symlink)\w*$/i.test(name) ? ranges : ranges.slice(0, 1);
  return new Set([...receiver, ...paths.flatMap(([a, b]) => [...labelsOf(scope, s, a, b)])]);
}

function writesMode(s: readonly Token[], open: number, close: number): boolean {
  return s.slice(open + 1, close).some((t) =>
    t.kind === "string" && /^[rwabxt+]{1,3}$/.test(t.text) && /[wax]/.test(t.text)
  );
}

/** The tokens of one argument: `[from, to)` of each comma-separated piece at depth 0. */
function argumentRanges(s: readonly Token[], open: number, close: number): [number, number][] {
  return splitAt(s, open + 1, close, ",");
}

/** The `[from, to)` ranges of the tokens `[from, to)` split at `sep` outside brackets. */
function splitAt(s: readonly Token[], from: number, to: number, sep: string): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = from;
  for (let k = from; k < to; k++) {
    const t = opText(s[k]!);
    if (t === "(" || t === "[" || t === "{") depth++;
    else if (t === ")" || t === "]" || t === "}") depth--;
    else if (t === sep && depth === 0) {
      out.push([start, k]);
      start = k + 1;
    }
  }
  if (start < to) out.push([start, to]);
  return out;
}

/** `subprocess.run([...])`, `spawn("sh", ["-c", …])`, a Deno `Command("bash", {args})`. */
function processCall(
  scope: Scope,
  s: readonly Token[],
  open: number,
  close: number,
  at: number,
  args: Set<Label>,
  name: string,
): void {
  const shell = s.slice(open, close).some((t, j) =>
    t.text === "shell" && /^(?:True|true)$/.test(s[open + j + 2]?.text ?? "")
  );
  if (shell) return shellArgument(scope, s, open, close, at);
  const words = launched(execFamilyArgv(name, argvWords(scope, s, open, close)));
  if (words.length === 0) return reach(scope, "exec", at, args, undefined, "process");
  if (listsArgv(scope, s, open, close)) {
    // A program a file names (an interpreter read off a shebang, a tool a config names), first
    // in a list whose other words the script gives: that text is a path here, not code.
    words[0] = {
      ...words[0]!,
      labels: new Set([...words[0]!.labels].filter((l) => l !== "filetext")),
    };
  }
  const program = (words[0]!.text ?? "").split("/").pop()!;
  const c = words.findIndex((w) => w.text === "-c" || w.text === "-e");
  if (
    INTERPRETER.test(program) && c !== -1 &&
    words[c + 1] !== undefined
  ) {
    const script = words[c + 1]!;
    reach(scope, "exec", at, script.labels, undefined, program);
    if (script.text !== undefined && /sh$/.test(program)) {
      for (const flow of analyzeShell(script.text, new Map(), scope.downloaded, INLINE_CODE)) {
        scope.sink.add({ ...flow, at });
      }
    }
    // `["python3", "-c", "…"]`: code in that language, as a shell's `python3 -c` is read.
    const language = inlineLanguage(program);
    if (script.text !== undefined && language !== undefined) {
      const stdin = stdinOf(scope, s, open, close);
      for (const flow of INLINE_CODE(language, script.text, stdin).flows) {
        scope.sink.add({ ...flow, at });
      }
    }
    return;
  }
  if (runsStdin(program, words.map((w) => w.text ?? ""))) {
    reach(scope, "exec", at, stdinOf(scope, s, open, close), undefined, program);
  }
  // A word's holes all stand for the word's labels; its literal text (a URL's host) is kept.
  const line = words.map((w, j) =>
    w.text ?? w.template?.replaceAll("{}", `\${__w${j}}`) ?? `\${__w${j}}`
  ).join(" ");
  const bindings = new Map(words.map((w, j) => [`__w${j}`, w.labels]));
  for (const flow of analyzeShell(line, bindings, scope.downloaded, INLINE_CODE)) {
    scope.sink.add({ ...flow, at });
  }
}

/**
 * The argv of Python's `os.exec*`, `os.spawn*` and `os.posix_spawn*` as a command line: the
 * program they are given, then its arguments past the name it is told it has (`argv[0]`):
 * `os.execv("/bin/sh", ["sh", "x.sh"])` runs `/bin/sh x.sh`. The mode of `os.spawn*` and the
 * environment the `e` forms end with are no words of the command.
 */
function execFamilyArgv(name: string, words: ArgvWord[]): ArgvWord[] {
  const family = /^os\.(exec|spawn|posix_spawn)(\w*)$/.exec(name);
  if (family === null) return words;
  const [, kind, form] = family;
  const rest = words.slice(
    kind === "spawn" ? 1 : 0,
    /e$/.test(form!) || kind === "posix_spawn" ? -1 : undefined,
  );
  // A constant argv[0] dropped; a computed one may be the program's words.
  return rest.length >= 2 && rest[1]!.text !== undefined ? [rest[0]!, ...rest.slice(2)] : rest;
}

/** What a process a call starts prints, by its command (the call's `(` at `open`). */
function processOutput(scope: Scope, tokens: readonly Token[], open: number, out: Set<Label>) {
  const words = tokens.slice(open, closeOf(tokens, open)).filter((t) => t.kind === "string")
    .map((t) => t.text).join(" ");
  // A keychain or cloud-CLI command that prints a secret.
  const store = secretCommand(words);
  if (store !== undefined) out.add(store);
  // A downloader: `subprocess.run(["curl", url], capture_output=…)`.
  if (/^(?:curl|wget)$/.test(programOf(scope, tokens, open) ?? "")) out.add("fetched");
  // `env`, `printenv`, `set` or `export -p`: the whole environment; `printenv X`: that one.
  if (DUMPS_ENVIRONMENT.test(words.trim())) out.add("env:*");
  const printed = /^(?:\S*\/)?printenv((?:\s+\w+)+)$/.exec(words.trim());
  for (const name of printed?.[1]?.trim().split(/\s+/) ?? []) {
    if (secretName(name)) out.add(`env:${name}`);
  }
}

/** A command line that prints the whole environment. */
const DUMPS_ENVIRONMENT = /^(?:\S*\/)?(?:env|printenv|set|export -p|declare -p?x|declare -p)$/;

/** Shells and interpreters that read a program from `-c`, a file or stdin. */
const INTERPRETER = /^(?:ba|z|da|k)?sh$|^python[\d.]*$|^perl$|^node$|^ruby$/;

/** The program a process call starts, when its first word is a constant (`["curl", …]`). */
function programOf(scope: Scope, s: readonly Token[], open: number): string | undefined {
  const [first] = argumentRanges(s, open, closeOf(s, open));
  if (first === undefined) return undefined;
  const at = s[first[0]]?.text === "[" ? first[0] + 1 : first[0];
  const word = s[at]?.kind === "name" && first[1] - first[0] === 1
    ? scope.vars.get(s[at]!.text)?.argv?.[0]?.text
    : constantText(scope, s[at]!);
  return word?.split(/\s+/)[0]?.split("/").pop();
}

/**
 * `env bash -c …`, `sudo -u ci sh -c …`, `["timeout", "5", "bash"]`: the words from the
 * interpreter a launcher or a runner starts, past their own options (`words`, changed).
 */
function launched(words: ArgvWord[]): ArgvWord[] {
  for (;;) {
    const inner = interpreterAfterRunner(words.map((w) => w.text ?? ""));
    if (inner > 0) words.splice(0, inner);
    else if (words.length > 1 && LAUNCHERS.test((words[0]!.text ?? "").split("/").pop()!)) {
      words.shift();
    } else return words;
  }
}

/** Programs that start the command their other words name (`env`, `command`, `exec`). */
const LAUNCHERS = /^(?:env|sudo|nohup|nice|command|exec)$/;

/**
 * Whether `program` with `words` (its own name first) runs what it is given on stdin: a shell
 * or an interpreter with no script — unless told only to check it (`bash -n`, `node --check`).
 */
function runsStdin(program: string, words: readonly string[]): boolean {
  const checks = words.some((w, j) =>
    j > 0 && (/^-[a-zA-Z]*n[a-zA-Z]*$/.test(w) && /sh$/.test(program) ||
      /^(?:--check|-c)$/.test(w) && program === "node")
  );
  return INTERPRETER.test(program) && !checks && words.every((w, j) => j === 0 || /^-/.test(w));
}

/**
 * What a call hands a process on stdin: its `input=` (Python) or `input:` (Node's options)
 * argument's labels — a shell or an interpreter given no script runs it.
 */
function stdinOf(scope: Scope, s: readonly Token[], open: number, close: number): Set<Label> {
  for (let k = open + 1; k < close; k++) {
    const t = s[k]!;
    if (t.kind !== "name" || t.text !== "input" || !/^[=:]$/.test(opText(s[k + 1] ?? t))) continue;
    return labelsOf(
      scope,
      s,
      k + 2,
      outsideBrackets(s, k + 2, close, (x) => /^[,)\]}]$/.test(opText(x))),
    );
  }
  return new Set();
}

/** Whether the call's first argument is a list: a literal, `{ args: [...] }` or a list variable. */
function listsArgv(scope: Scope, s: readonly Token[], open: number, close: number): boolean {
  const [first] = argumentRanges(s, open, close);
  if (first === undefined) return false;
  const [from, to] = first;
  return s[from]?.text === "[" || s[from]?.text === "{" ||
    (to - from === 1 && scope.vars.get(s[from]!.text)?.list === true);
}

/**
 * The argv a process call names: the elements of a list argument (`["bash", "-c", x]`,
 * `{ args: [...] }`), or the arguments themselves (`spawn("sh", …)`), each with its value
 * when constant and its labels; keyword arguments (`check=True`, `env=…`) are not argv.
 */
function argvWords(
  scope: Scope,
  s: readonly Token[],
  open: number,
  close: number,
): ArgvWord[] {
  const out: ArgvWord[] = [];
  const element = (from: number, to: number) => {
    // A variable bound to a list literal: its words, as if written here.
    const listed = to - from === 1 && s[from]!.kind === "name"
      ? scope.vars.get(s[from]!.text)?.argv
      : undefined;
    if (listed !== undefined) out.push(...listed);
    else out.push(argvWord(scope, s, from, to));
  };
  for (const [from, to] of argumentRanges(s, open, close)) {
    if (s[from + 1]?.text === "=" || s[from + 1]?.text === ":") {
      if (s[from]?.text !== "args" || s[from + 2]?.text !== "[") continue;
      for (const [a, b] of argumentRanges(s, from + 2, closeOf(s, from + 2))) element(a, b);
    } else if (s[from]?.text === "[" || s[from]?.text === "{") {
      // An options object's `args: [...]` (Deno's Command); its other lists (`stdio: [...]`)
      // are no words of the command.
      const inner = s[from]!.text === "{"
        ? s.findIndex((t, j) =>
          j > from && t.text === "args" && opText(s[j + 1] ?? t) === ":" && s[j + 2]?.text === "["
        ) + 2
        : from;
      if (inner < from || inner >= to) continue;
      for (const [a, b] of argumentRanges(s, inner, closeOf(s, inner))) element(a, b);
    } else element(from, to);
  }
  return out;
}

function argvWord(scope: Scope, s: readonly Token[], from: number, to: number): ArgvWord {
  const named = s.slice(from, to).map((t) => t.text).join("");
  // The interpreter running the script, by the name it has at run time.
  const self = named === "sys.executable"
    ? "python3"
    : named === "process.execPath"
    ? "node"
    : undefined;
  const word: ArgvWord = {
    text: self ?? constantOf(scope, s, from, to),
    labels: labelsOf(scope, s, from, to),
  };
  if (to - from === 1 && s[from]!.kind === "string" && s[from]!.holes?.length) {
    word.template = s[from]!.text;
  } else if (word.text === undefined) {
    // `"https://drop.example/?k=" + key`, `"https://" + key + "@drop.example/r.git"`: the
    // pieces known, the address among them.
    const pieces = splitAt(s, from, to, "+");
    if (pieces.length > 1) {
      word.template = pieces.map(([a, b]) =>
        b - a === 1 ? constantText(scope, s[a]!) ?? "{}" : "{}"
      ).join("");
    }
  }
  return word;
}

/**
 * A shell line as code writes it, for analyzeShell: its pieces joined with `+`, each string its
 * text (an f-string's holes, or the `%s`/`{}` of a string formatted with `%` or `.format(…)`, a
 * word bound to what fills them), each other piece (`process.env.X`, a call, a variable of no
 * constant value) one word bound to its labels.
 */
function shellLine(
  scope: Scope,
  s: readonly Token[],
  from: number,
  to: number,
): { text: string; bindings: Map<string, Set<Label>> } {
  const bindings = new Map<string, Set<Label>>();
  const hole = (labels: Set<Label>) => {
    const key = `__h${bindings.size}`;
    bindings.set(key, labels);
    return `\${${key}}`;
  };
  let text = "";
  for (const [a, b] of splitAt(s, from, to, "+").filter(([a, b]) => b > a)) {
    const t = s[a]!;
    const formatted = t.kind === "string" &&
      (opText(s[a + 1] ?? t) === "%" || (s[a + 1]?.text === "." && s[a + 2]?.text === "format"));
    if (t.kind === "string" && (b - a === 1 || formatted)) {
      const filling = formatted ? labelsOf(scope, s, a + 1, b) : undefined;
      let i = 0;
      text += t.text.replace(/\{\}|%[sdr]/g, (m) => {
        const inner = m === "{}" ? t.holes?.[i++] : undefined;
        if (inner !== undefined) return hole(labelsOf(scope, inner, 0, inner.length));
        return filling === undefined ? m : hole(filling);
      });
    } else if (b - a === 1 && t.kind === "name" && scope.vars.has(t.text)) {
      const v = scope.vars.get(t.text)!;
      text += v.value ?? hole(v.labels);
    } else text += hole(labelsOf(scope, s, a, b));
  }
  return { text, bindings };
}

/** A string given to a shell: its labels run (an exec sink), its text is shell code. */
function shellArgument(
  scope: Scope,
  s: readonly Token[],
  open: number,
  close: number,
  at: number,
  quoted = false,
): void {
  const [first] = argumentRanges(s, open, close);
  if (first === undefined) return;
  // Text put into a shell line is code there, but for a template tag that quotes what it is
  // given (Bun's, zx's, execa's `$`): each hole one word.
  if (!quoted) {
    reach(scope, "exec", at, labelsOf(scope, s, first[0], first[1]), undefined, "shell");
  }
  // `execSync("bash", { input: code })`: a shell line that is an interpreter reading stdin.
  const line = constantOf(scope, s, first[0], first[1])?.trim().split(/\s+/);
  if (line !== undefined && runsStdin(line[0]!.split("/").pop()!, line)) {
    reach(scope, "exec", at, stdinOf(scope, s, open, close), undefined, line[0]!);
  }
  const { text, bindings } = shellLine(scope, s, first[0], first[1]);
  if (text !== "") {
    for (const flow of analyzeShell(text, bindings, scope.downloaded, INLINE_CODE)) {
      scope.sink.add({ ...flow, at });
    }
  }
}
