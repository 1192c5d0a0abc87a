/**
 * Data flow in PowerShell: statements in order (lines and `;`, script blocks' braces read as
 * separators, as shell_flow.ts reads control flow), `$variables` carrying labels through
 * assignments and pipelines. Sources: a download (`Invoke-WebRequest`, `iwr`, `irm`,
 * `.DownloadString(…)`), a decode (`[Convert]::FromBase64String(…)`), a secret variable
 * (`$env:AWS_SECRET_ACCESS_KEY`), the whole environment (`Get-ChildItem env:`), a credential
 * file read (`Get-Content ~\.aws\credentials`). Sinks: `Invoke-Expression`/`iex`,
 * `[scriptblock]::Create(…)`, `powershell -Command …`, `& $x`, a downloaded file run; a web
 * request or an upload given a secret; a write to the profile (`$PROFILE`), a Run key or a
 * scheduled task.
 */

import { powershellStringEnd } from "./audit_code.ts";
import { type Flow, FlowSink } from "./flow_model.ts";
import {
  fileKey as keptPath,
  hostOf,
  type Label,
  persistPath,
  secretName,
  secretPath,
} from "./vocabulary.ts";

interface Piece {
  text: string;
  at: number;
  kind: "word" | "string" | "variable" | "op";
}

/** A statement's pieces, and how many script blocks (`{ … }`) are open around it. */
interface Statement {
  pieces: Piece[];
  depth: number;
}

/** A function of the script: its parameters' names, in order, and its body's statements. */
interface PsFunction {
  params: string[];
  body: Statement[];
}

interface State {
  vars: Map<string, Set<Label>>;
  /** Files a download was saved to (`-OutFile x.ps1`, `.DownloadFile(u, "x.ps1")`). */
  downloaded: Set<string>;
  /** Variables assigned one constant string (`$u = "https://…"`): their text, for hosts. */
  values: Map<string, string>;
  /** Aliases the script makes (`Set-Alias run iex`): the command each stands for. */
  aliases: Map<string, string>;
  /** The script's functions, by name in lower case. */
  functions: Map<string, PsFunction>;
  /** What a call of a function did, by function and its arguments' labels: read once each. */
  calls: Map<string, { flows: Flow[]; out: Set<Label> }>;
  /** Function calls open, one inside another (at most MAX_CALLS). */
  calling: number;
  sink: FlowSink;
}

/** The flows of a PowerShell script whose comments are blanked (audit_code.ts's codeOnly). */
export function analyzePowerShell(code: string): Flow[] {
  const state: State = {
    vars: new Map(),
    downloaded: new Set(),
    values: new Map(),
    aliases: new Map(),
    functions: new Map(),
    calls: new Map(),
    calling: 0,
    sink: new FlowSink(),
  };
  const list = statements(code);
  for (const [i, statement] of list.entries()) {
    defineFunction(list, i, state);
    readStatement(statement.pieces, state);
  }
  return state.sink.flows;
}

/**
 * Pieces of each statement: split at line ends, `;`, `{` and `}` outside strings and outside a
 * hashtable (`@{ … }`, whose entries are one value); a line that ends in `|` or a backtick goes
 * on on the next. Linear in the text: a string is skipped to its end by
 * {@link powershellStringEnd} (an unterminated one ends the text), never matched by a
 * backtracking expression.
 */
function statements(code: string): Statement[] {
  const out: Statement[] = [];
  let current: Piece[] = [];
  let depth = 0;
  const end = () => {
    if (current.length > 0) out.push({ pieces: current, depth });
    current = [];
  };
  /** The open braces: `h` a hashtable's, `b` a script block's. */
  const braces: string[] = [];
  const lexer = new RegExp(LEXER.source, "g");
  for (let m = lexer.exec(code); m !== null; m = lexer.exec(code)) {
    let text = m[0];
    if (/^@?["']$/.test(text)) {
      lexer.lastIndex = powershellStringEnd(code, m.index, text);
      text = code.slice(m.index, lexer.lastIndex);
    }
    if (/^`\r?\n$/.test(text)) continue;
    const inTable = braces.at(-1) === "h";
    if (text === "@{") braces.push("h");
    else if (text === "{") braces.push("b");
    else if (text === "}" && braces.pop() !== "h") {
      end();
      continue;
    }
    if (text === "{" || (!inTable && /^(?:\r?\n|;)$/.test(text))) {
      if (!(text.endsWith("\n") && current.at(-1)?.text === "|")) end();
      continue;
    }
    if (/^(?:\r?\n|;)$/.test(text)) continue;
    if (current.length === 0) depth = braces.filter((b) => b === "b").length;
    current.push({ text, at: m.index, kind: kindOf(text) });
  }
  end();
  return out;
}

/**
 * PowerShell's pieces: line ends, separators, a string's opening quote (its end is found by
 * {@link powershellStringEnd}), `${…}` and `$name` variables, `::`, `@{`, operators, and
 * words (a word may hold dots and colons: a URL, a type, `env:`; a dot that starts one is a
 * member access, but for a relative path: `.\x.ps1`).
 */
const LEXER =
  /`?\r?\n|[;{}]|@\{|@?["']|\$\{[^}\n]{0,200}\}|\$[\w:]+|::|\.{1,2}[\\/][^\s;{}|=(),[\]&+"'$]*|[|=(),.[\]&+]|[^\s;{}|=(),.[\]&+"'$][^\s;{}|=(),[\]&+"'$]*/g;

function kindOf(text: string): Piece["kind"] {
  if (/^[@"']/.test(text) && text !== "@{") return "string";
  if (text.startsWith("$")) return "variable";
  return /^(?:::|@\{|[|=(),.[\]&+])$/.test(text) ? "op" : "word";
}

/** Downloaders: cmdlets, their aliases, and a web client's methods. */
const DOWNLOAD = /^(?:invoke-webrequest|iwr|invoke-restmethod|irm|curl|wget|start-bitstransfer)$/i;
const DOWNLOAD_METHOD = /^(?:downloadstring|downloaddata|downloadfile|getstringasync|getasync)$/i;
/** Sends: the same cmdlets with a body or headers, and a web client's uploads. */
const UPLOAD_METHOD = /^(?:uploadstring|uploaddata|uploadvalues|postasync|putasync|sendasync)$/i;
const RUNNERS = /^(?:invoke-expression|iex)$/i;
const SHELLS = /^(?:powershell|pwsh|cmd)(?:\.exe)?$/i;
const READERS = /^(?:get-content|gc|cat|type)$/i;

/** One statement: its assignment, then each pipeline stage's sinks, in order. */
function readStatement(s: Piece[], state: State): Set<Label> {
  const { vars } = state;
  // `$x = …`, `$x += …`, `[string]$x = …`: a variable after nothing but a type.
  const eq = s.findIndex((p) => p.text === "=");
  const adds = eq > 1 && s[eq - 1]!.text === "+";
  const at = adds ? eq - 2 : eq - 1;
  const assigns = eq > 0 && s[at]?.kind === "variable" &&
    s.slice(0, at).every((p) => p.kind === "word" || /^[[\].]$/.test(p.text));
  const target = assigns ? variableName(s[at]!.text) : undefined;
  let input = new Set<Label>();
  for (const [a, b] of stages(s, assigns ? eq + 1 : 0)) {
    input = readStage(s.slice(a, b), input, state);
  }
  if (target !== undefined) {
    vars.set(target, new Set([...(adds ? vars.get(target) ?? [] : []), ...input]));
    // One constant string, or constant strings joined with `+` (`"ie" + "x"`).
    const rhs = s.slice(eq + 1);
    const constant = !adds && rhs.length % 2 === 1 &&
      rhs.every((p, i) => i % 2 === 1 ? p.text === "+" : /^(?:'[^]*'|"[^$`]*")$/.test(p.text));
    if (constant) {
      state.values.set(
        target,
        rhs.filter((p) => p.kind === "string").map((p) => unquote(p.text)).join(""),
      );
    } else state.values.delete(target);
  }
  return target === undefined ? input : new Set();
}

/**
 * `function Name($a, $b) { … }`, `function Name { param($a) … }` at statement `i`: its
 * parameters and the statements inside its braces, kept for its calls ({@link callFunction}).
 */
function defineFunction(list: readonly Statement[], i: number, state: State): void {
  const head = list[i]!;
  const [keyword, name] = head.pieces;
  if (!/^(?:function|filter)$/i.test(keyword?.text ?? "") || name?.kind !== "word") return;
  let end = i + 1;
  while (end < list.length && list[end]!.depth > head.depth) end++;
  const body = list.slice(i + 1, end);
  const declared = head.pieces[2]?.text === "("
    ? head.pieces
    : /^param$/i.test(body[0]?.pieces[0]?.text ?? "")
    ? body[0]!.pieces
    : [];
  const params = declared.filter((p) => p.kind === "variable").map((p) => variableName(p.text));
  state.functions.set(name.text.toLowerCase(), { params, body });
}

/**
 * A call of a function of the script (`Run $code`, `Run -Command $code`, `$x | Run`): its body
 * read with its parameters bound to the arguments (by name, then in order; what is piped in is
 * `$_` and `$input`), its flows at the call, its output what its statements output.
 */
function callFunction(
  fn: PsFunction,
  name: string,
  stage: readonly Piece[],
  k: number,
  input: Set<Label>,
  state: State,
): Set<Label> {
  const bound = new Map<string, Set<Label>>([["_", input], ["input", input]]);
  const positional = [...fn.params];
  const args = stage.slice(k + 1);
  for (let j = 0; j < args.length; j++) {
    const p = args[j]!;
    if (p.kind === "op") continue;
    const named = /^-(\w+)$/.exec(p.text)?.[1]?.toLowerCase();
    const param = named !== undefined && fn.params.includes(named) ? named : undefined;
    const value = param !== undefined ? args[++j] : p;
    const target = param ?? positional.find((q) => !bound.has(q));
    if (value === undefined || target === undefined) continue;
    bound.set(target, piecesLabels(value, state.vars));
  }
  const key = `${name}\n${[...bound].map(([n, l]) => `${n}=${[...l].sort()}`).join(";")}`;
  const at = stage[k]!.at;
  const known = state.calls.get(key);
  if (known !== undefined || state.calling >= MAX_CALLS) {
    for (const flow of known?.flows ?? []) state.sink.add({ ...flow, at });
    return known?.out ?? new Set();
  }
  state.calls.set(key, { flows: [], out: new Set() }); // a call of itself: nothing more
  return replay(fn, bound, key, at, state);
}

/**
 * How many function calls deep a reading follows (wrappers of wrappers of `iex`): each function
 * is read once per set of its arguments' labels, so a deep chain costs one reading a link.
 */
const MAX_CALLS = 64;

/** Reads a function's body with `bound` as its parameters; keeps what it did under `key`. */
function replay(
  fn: PsFunction,
  bound: Map<string, Set<Label>>,
  key: string,
  at: number,
  state: State,
): Set<Label> {
  const saved = new Map([...bound.keys()].map((n) => [n, state.vars.get(n)]));
  for (const [n, labels] of bound) state.vars.set(n, labels);
  const outer = state.sink;
  state.sink = new FlowSink();
  state.calling++;
  const out = new Set<Label>();
  try {
    for (const statement of fn.body) {
      for (const l of readStatement(statement.pieces, state)) out.add(l);
    }
  } finally {
    state.calling--;
    const flows = state.sink.flows;
    state.sink = outer;
    for (const flow of flows) outer.add({ ...flow, at });
    state.calls.set(key, { flows, out });
    for (const [n, v] of saved) v === undefined ? state.vars.delete(n) : state.vars.set(n, v);
  }
  return out;
}

/** The ranges of a pipeline's stages from `from` on (`|` outside brackets). */
function stages(s: readonly Piece[], from: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = from;
  for (let k = from; k < s.length; k++) {
    const t = s[k]!.text;
    if (t === "(" || t === "[") depth++;
    else if (t === ")" || t === "]") depth--;
    else if (t === "|" && depth <= 0) {
      out.push([start, k]);
      start = k + 1;
    }
  }
  out.push([start, s.length]);
  return out;
}

/** One stage: its sinks, and what it outputs (what it reads, what its words carry, more). */
function readStage(stage: Piece[], input: Set<Label>, state: State): Set<Label> {
  const { sink } = state;
  const carried = new Set<Label>();
  for (const piece of stage) for (const l of piecesLabels(piece, state.vars)) carried.add(l);
  const commands = commandsOf(stage);
  const names = commands.map((k) => stage[k]!.text.toLowerCase());
  const sources = sourcesOf(stage, names);
  const all = new Set([...input, ...carried, ...sources]);
  const sent = new Set([...input, ...carried]);
  const textOf = (p: Piece) =>
    p.kind === "variable" ? state.values.get(variableName(p.text)) ?? "" : unquote(p.text);
  const host = stage.map((p) => p.kind === "op" ? undefined : hostOf(textOf(p)))
    .find((h) => h !== undefined);
  const texts = stage.map((p) => unquote(p.text).toLowerCase());
  for (const k of commands) {
    const name = state.aliases.get(texts[k]!) ?? texts[k]!;
    const fn = stage[k]!.kind === "word" ? state.functions.get(name) : undefined;
    if (fn !== undefined) {
      for (const l of callFunction(fn, name, stage, k, input, state)) all.add(l);
      continue;
    }
    const at = stage[k]!.at;
    const runs = RUNNERS.test(name) || stage[k]!.kind === "variable" ||
      (SHELLS.test(name) || name === "start-process") && texts.some((t) => INLINE.test(t)) &&
        texts.some((t) => SHELLS.test(t));
    if (runs) sink.exec(at, all, name);
    else if (DOWNLOAD.test(name)) sink.send(at, sent, host, name);
    else persistence(stage, name, at, sink);
    // A file a download was saved to, run: `& ./x.ps1`, `.\x.ps1`, `powershell -File x.ps1`,
    // `Start-Process x.exe` (`Get-Content x` reads it, and runs nothing).
    const launches = SHELLS.test(name) ||
      /^(?:start-process|saps|start|invoke-item|ii)$/.test(name);
    const file = launches ? stage.slice(k + 1) : [stage[k]!];
    if (file.some((p) => p.kind !== "op" && state.downloaded.has(fileKey(p.text)))) {
      sink.exec(at, new Set<Label>(["fetched"]), name);
    }
  }
  computedCommand(stage, all, state);
  const create = memberAt(stage, /^create$/i, "::");
  if (create !== -1 && /scriptblock$/i.test(stage[create - 3]?.text ?? "")) {
    sink.exec(stage[create]!.at, all, "[scriptblock]::Create");
  }
  const invoke = memberAt(stage, /^(?:invokescript|newscriptblock)$/i, ".");
  if (invoke !== -1) sink.exec(stage[invoke]!.at, all, stage[invoke]!.text.split(".").pop()!);
  const upload = memberAt(stage, UPLOAD_METHOD, ".");
  if (upload !== -1) sink.send(stage[upload]!.at, sent, host, stage[upload]!.text);
  savedDownloads(stage, names, state);
  return all;
}

/**
 * `& ("ie" + "x") $c`, `& $name $c`: a command computed where it runs runs what it is given,
 * and a name put together from pieces that makes a runner, a downloader or a shell is said as
 * such. `Set-Alias run iex` makes `run` stand for `iex` in the statements after it.
 */
function computedCommand(stage: readonly Piece[], all: Set<Label>, state: State): void {
  const words = stage.map((p) => unquote(p.text).toLowerCase());
  if (/^(?:set-alias|new-alias|sal|nal)$/.test(words[0] ?? "")) {
    const [alias, target] = stage.slice(1).filter((p) =>
      !p.text.startsWith("-") && p.kind !== "op"
    );
    if (alias !== undefined && target !== undefined) {
      state.aliases.set(unquote(alias.text).toLowerCase(), unquote(target.text).toLowerCase());
    }
    return;
  }
  if (!/^[&.]$/.test(stage[0]?.text ?? "")) return;
  const named = stage[1]?.text === "("
    ? stage.slice(2, closeOf(stage, 1)).filter((p) => p.kind === "string").map((p) =>
      unquote(p.text)
    ).join("")
    : stage[1]?.kind === "variable"
    ? state.values.get(variableName(stage[1].text)) ?? ""
    : "";
  const at = stage[0]!.at;
  // A name computed from strings (a script block made in the brackets is its own sink).
  if (stage[1]?.text === "(" && named !== "") state.sink.exec(at, all, "& (…)");
  const name = named.toLowerCase();
  if (RUNNERS.test(name) || DOWNLOAD.test(name) || SHELLS.test(name)) {
    state.sink.add({
      kind: "assembled-name",
      at,
      detail: `a command name built from pieces runs ${name}`,
      secrets: [],
    });
  }
}

/** The `)` that closes the `(` at `open` (the stage's end when none does). */
function closeOf(stage: readonly Piece[], open: number): number {
  let depth = 0;
  for (let k = open; k < stage.length; k++) {
    if (stage[k]!.text === "(") depth++;
    else if (stage[k]!.text === ")" && --depth === 0) return k;
  }
  return stage.length;
}

/** `-Command`, `-c`, `-EncodedCommand` of powershell, `/c` of cmd: code given inline. */
const INLINE = /^(?:-(?:c|command|e|enc|encodedcommand)|\/c)$/i;

/** Notes the files a download stage saves to: `-OutFile x`, `.DownloadFile(u, "x")`. */
function savedDownloads(stage: readonly Piece[], names: readonly string[], state: State): void {
  const out = stage.findIndex((p) => /^-outfile$/i.test(p.text));
  if (out !== -1 && names.some((n) => DOWNLOAD.test(n)) && stage[out + 1] !== undefined) {
    state.downloaded.add(fileKey(stage[out + 1]!.text));
  }
  const file = memberAt(stage, /^downloadfile$/i, ".");
  if (file !== -1) {
    const last = stage.slice(file + 2).findLast((p) => p.kind === "string" || p.kind === "word");
    if (last !== undefined) state.downloaded.add(fileKey(last.text));
  }
}

/** A path as written files are kept by (vocabulary's fileKey): unquoted, `\` as `/`, any case. */
function fileKey(text: string): string {
  return keptPath(unquote(text).replace(/\\/g, "/").toLowerCase());
}

/** Where a stage names a command: its first piece, past `&`/`.`, and the first after `(`. */
function commandsOf(stage: readonly Piece[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < stage.length; k++) {
    const before = stage[k - 1]?.text;
    const starts = k === 0 || before === "(" || (k === 1 && /^[&.]$/.test(stage[0]!.text));
    if (!starts || stage[k]!.kind === "string") continue;
    if (
      stage[k]!.kind === "word" ||
      (stage[k]!.kind === "variable" && k === 1 && /^[&.]$/.test(stage[0]!.text))
    ) {
      out.push(k);
    }
  }
  return out;
}

/**
 * A member `name` called after `sep` (`.DownloadString(`, `::FromBase64String(`), or -1; a
 * word holds a chain's dots (`.InvokeCommand.InvokeScript(`), so its last part is the member.
 */
function memberAt(stage: readonly Piece[], name: RegExp, sep: "." | "::"): number {
  return stage.findIndex((p, k) => {
    if (p.kind !== "word" || stage[k + 1]?.text !== "(") return false;
    const parts = p.text.split(".");
    const after = parts.length > 1 ? sep === "." : stage[k - 1]?.text === sep;
    return after && name.test(parts.at(-1)!);
  });
}

/**
 * What a stage brings in: a download, a decode, a credential file, the environment (`names`:
 * the commands it names, in lower case).
 */
function sourcesOf(stage: readonly Piece[], names: readonly string[]): Set<Label> {
  const out = new Set<Label>();
  if (names.some((n) => DOWNLOAD.test(n)) || memberAt(stage, DOWNLOAD_METHOD, ".") !== -1) {
    out.add("fetched");
  }
  if (memberAt(stage, /^frombase64string$/i, "::") !== -1) out.add("decoded");
  if (
    names.some((n) => READERS.test(n)) ||
    memberAt(stage, /^readall(?:text|bytes|lines)$/i, "::") !== -1
  ) {
    for (const p of stage) {
      const secret = p.kind === "op" ? undefined : secretPath(windowsPath(unquote(p.text)));
      if (secret !== undefined) out.add(`file:${secret}`);
    }
  }
  const listsEnv = names.some((n) => /^(?:get-childitem|gci|dir|ls)$/.test(n)) &&
    stage.some((p) => /^env:\\?$/i.test(unquote(p.text)));
  if (listsEnv || stage.some((p) => /^getenvironmentvariables$/i.test(p.text))) out.add("env:*");
  return out;
}

/** What a piece carries: a variable's labels, a secret variable, a string's expansions. */
function piecesLabels(piece: Piece, vars: Map<string, Set<Label>>): Set<Label> {
  const out = new Set<Label>();
  const names = piece.kind === "variable"
    ? [piece.text]
    : piece.kind === "string" && !piece.text.startsWith("'") && !piece.text.startsWith("@'")
    ? piece.text.match(/\$\{[^}]*\}|\$[\w:]+/g) ?? []
    : [];
  for (const raw of names) {
    const name = variableName(raw);
    const env = /^env:(\w+)$/i.exec(name);
    if (env !== null && secretName(env[1]!.toUpperCase())) out.add(`env:${env[1]!.toUpperCase()}`);
    for (const l of vars.get(name) ?? []) out.add(l);
  }
  return out;
}

/** Writes to the profile, a Run key or a scheduled task. */
function persistence(stage: readonly Piece[], name: string, at: number, sink: FlowSink): void {
  const texts = stage.map((p) => unquote(p.text));
  const writes = /^(?:add-content|set-content|out-file|ac|sc|copy-item|cp|copy|move-item|mv|move)$/i
    .test(name);
  if (writes) {
    if (texts.some((t) => /^\$profile\b/i.test(t))) {
      sink.persist(at, new Set<Label>(["persist:$PROFILE"]), name);
    }
    for (const t of texts.slice(1)) {
      const path = persistPath(windowsPath(t));
      if (path !== undefined) sink.persist(at, new Set<Label>([`persist:${path}`]), name);
    }
  }
  if (
    /^(?:set-itemproperty|new-itemproperty|sp)$/i.test(name) &&
    texts.some((t) => /\\currentversion\\run(?:once)?\b/i.test(t))
  ) {
    sink.persist(at, new Set<Label>(["persist:the Run key"]), name);
  }
  const creates = /^schtasks(?:\.exe)?$/i.test(name) && texts.some((t) => /^[/-]create$/i.test(t));
  if (/^register-scheduledtask$/i.test(name) || creates) {
    sink.persist(at, new Set<Label>(["persist:a scheduled task"]), name);
  }
}

/** `$env:X`, `${env:X}`, `$script:x`: the variable's name, scopes but `env:` dropped. */
function variableName(text: string): string {
  const bare = text.replace(/^\$\{?|\}$/g, "");
  return /^env:/i.test(bare)
    ? bare
    : bare.replace(/^(?:script|global|local|private):/i, "").toLowerCase();
}

function unquote(text: string): string {
  return text.replace(/^@?["']|["']@?$/g, "");
}

/** A Windows path as the secret and persistence tables read paths (`~/.aws/credentials`). */
function windowsPath(text: string): string {
  return text.replace(/\\/g, "/").replace(/^(?:\$env:USERPROFILE|\$env:HOME|\$HOME)(?=\/)/i, "~");
}
