/**
 * Data flow in PowerShell: statements in order (powershell_statements.ts; a script block's
 * statements read in place, as shell_flow.ts reads control flow), `$variables` carrying labels
 * through assignments and pipelines, and calls: a function of the script, a script block
 * (`& $block $x`, `$block.Invoke($x)`, `… | ForEach-Object { … }`, `Invoke-Command { … }
 * -ArgumentList $x`, a job's) or a class's method read with what it is given (`$args` too). Sources: a download (`Invoke-WebRequest`, `iwr`, `irm`,
 * `.DownloadString(…)`), a decode (`[Convert]::FromBase64String(…)`), a secret variable
 * (`$env:AWS_SECRET_ACCESS_KEY`), the whole environment (`Get-ChildItem env:`), a credential
 * file read (`Get-Content ~\.aws\credentials`). Sinks: `Invoke-Expression`/`iex`,
 * `[scriptblock]::Create(…)`, `powershell -Command …`, `& $x`, a downloaded file run; a web
 * request or an upload given a secret; a write to the profile (`$PROFILE`), a Run key or a
 * scheduled task.
 */

import { type Flow, FlowSink } from "./flow_model.ts";
import {
  blockFunction,
  closeOf,
  type Piece,
  type PsFunction,
  type Statement,
  statements,
  unquote,
  variableName,
  variablesIn,
} from "./powershell_statements.ts";
import {
  fileKey as keptPath,
  hostOf,
  isSecret,
  type Label,
  persistPath,
  secretName,
  secretPath,
} from "./vocabulary.ts";

interface State {
  vars: Map<string, Set<Label>>;
  /** Files a download was saved to (`-OutFile x.ps1`, `.DownloadFile(u, "x.ps1")`). */
  downloaded: Set<string>;
  /**
   * Files the script wrote a secret to (`$env:K | Out-File k.txt`, `Set-Content k.txt $env:K`),
   * by path: a command naming one (`-InFile k.txt`, `curl.exe -T k.txt`) is given the secret.
   */
  held: Map<string, Set<Label>>;
  /** Variables assigned one constant string (`$u = "https://…"`): their text, for hosts. */
  values: Map<string, string>;
  /**
   * Variables assigned a string with expansions (`$u = "https://h.example/x?k=$env:K"`): the
   * host its literal start names.
   */
  hosts: Map<string, string>;
  /**
   * Variables holding a socket (`New-Object Net.Sockets.TcpClient("h", 443)`), or a stream or
   * writer over one (`$c.GetStream()`, `New-Object IO.StreamWriter($s)`): the host it reaches.
   */
  sockets: Map<string, string | undefined>;
  /** Aliases the script makes (`Set-Alias run iex`): the command each stands for. */
  aliases: Map<string, string>;
  /** The script's functions, by name in lower case. */
  functions: Map<string, PsFunction>;
  /** Variables assigned a script block (`$run = { param($c) … }`): the block. */
  blocks: Map<string, PsFunction>;
  /**
   * The methods of the script's classes, by name in lower case (a class's constructor as
   * `new`): every class's method of that name, since `$x.Go()` does not say whose it is; and
   * by `class::name`, for `[Class]::Go()`.
   */
  methods: Map<string, PsFunction[]>;
  /** What a call of a function did, by function and its arguments' labels: read once each. */
  calls: Map<string, { flows: Flow[]; out: Set<Label> }>;
  /** Function calls open, one inside another (at most MAX_CALLS). */
  calling: number;
  /**
   * How many more statements calls may read (bodies read again for their calls, a call one
   * more): a bound in proportion to the script, so that blocks nested in blocks, each run
   * where it stands, or methods of one name in many classes, cannot make the reading
   * quadratic.
   */
  budget: number;
  sink: FlowSink;
}

/** The flows of a PowerShell script whose comments are blanked (audit_code.ts's codeOnly). */
export function analyzePowerShell(code: string): Flow[] {
  const state: State = {
    vars: new Map(),
    downloaded: new Set(),
    held: new Map(),
    values: new Map(),
    hosts: new Map(),
    sockets: new Map(),
    aliases: new Map(),
    functions: new Map(),
    blocks: new Map(),
    methods: new Map(),
    calls: new Map(),
    calling: 0,
    budget: 0,
    sink: new FlowSink(),
  };
  const list = statements(code);
  state.budget = list.length * CALL_BUDGET + 4_096;
  for (const [i, statement] of list.entries()) {
    defineFunction(statement, list[i + 1], state);
    readStatement(statement.pieces, state);
  }
  return state.sink.flows;
}

/** Downloaders: cmdlets, their aliases, and a web client's methods. */
const DOWNLOAD =
  /^(?:invoke-webrequest|iwr|invoke-restmethod|irm|curl|wget|curl\.exe|wget\.exe|start-bitstransfer)$/i;
const DOWNLOAD_METHOD = /^(?:downloadstring|downloaddata|downloadfile|getstringasync|getasync)$/i;
/** Sends: the same cmdlets with a body or headers, and a web client's uploads. */
const UPLOAD_METHOD = /^(?:uploadstring|uploaddata|uploadvalues|postasync|putasync|sendasync)$/i;
const RUNNERS = /^(?:invoke-expression|iex)$/i;
/** A name looked up is sent to the resolvers on the way (`Resolve-DnsName "$k.example.org"`). */
const DNS_LOOKUPS = /^(?:resolve-dnsname|nslookup)$/i;
const SHELLS = /^(?:powershell|pwsh|cmd)(?:\.exe)?$/i;
const READERS = /^(?:get-content|gc|cat|type)$/i;

/**
 * The host a hashtable's `Uri` (`Url`) key names (`$p = @{ Uri = "https://…"; Body = $k }`):
 * where a command it is splatted into (`Invoke-RestMethod @p`) sends.
 */
function splatHost(rhs: readonly Piece[], state: State): string | undefined {
  const key = rhs.findIndex((p, i) =>
    p.kind === "word" && /^(?:uri|url)$/i.test(p.text) && rhs[i + 1]?.text === "="
  );
  const value = key === -1 ? undefined : rhs[key + 2];
  return value === undefined ? undefined : hostOf(pieceText(value, state));
}

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
  // `foreach ($x in <expression>) { … }`: the loop's variable holds what the expression gives.
  if (
    /^foreach$/i.test(s[0]?.text ?? "") && s[1]?.text === "(" && s[2]?.kind === "variable" &&
    /^in$/i.test(s[3]?.text ?? "")
  ) vars.set(variableName(s[2].text), argumentLabels(s.slice(3, closeOf(s, 1) + 1), state));
  let input = new Set<Label>();
  for (const [a, b] of stages(s, assigns ? eq + 1 : 0)) {
    input = readStage(s.slice(a, b), input, state);
  }
  if (target !== undefined) {
    vars.set(target, new Set([...(adds ? vars.get(target) ?? [] : []), ...input]));
    const rhs = s.slice(eq + 1);
    if (rhs.length === 1 && rhs[0]!.kind === "block") {
      state.blocks.set(target, blockFunction(rhs[0]!));
    } else state.blocks.delete(target);
    // One constant string, or constant strings joined with `+` (`"ie" + "x"`).
    const constant = !adds && rhs.length % 2 === 1 &&
      rhs.every((p, i) => i % 2 === 1 ? p.text === "+" : /^(?:'[^]*'|"[^$`]*")$/.test(p.text));
    if (constant) {
      state.values.set(
        target,
        rhs.filter((p) => p.kind === "string").map((p) => unquote(p.text)).join(""),
      );
    } else state.values.delete(target);
    const start = rhs.length === 1 && rhs[0]!.kind === "string"
      ? hostOf(unquote(rhs[0]!.text))
      : rhs[0]?.text === "@{"
      ? splatHost(rhs, state)
      : undefined;
    if (start !== undefined) state.hosts.set(target, start);
    else state.hosts.delete(target);
    const socket = socketOf(rhs, state);
    if (socket !== undefined) state.sockets.set(target, socket.host);
    else state.sockets.delete(target);
  }
  return target === undefined ? input : new Set();
}

/**
 * `function Name($a, $b) { … }`, `function Name { param($a) … }` (the block on the line after
 * it, too): its parameters and its block's statements, kept for its calls ({@link callFunction}).
 */
function defineFunction(statement: Statement, next: Statement | undefined, state: State): void {
  const [keyword, name, after] = statement.pieces;
  const kind = keyword?.text.toLowerCase();
  if (!/^(?:function|filter|class)$/.test(kind ?? "") || name?.kind !== "word") return;
  const block = statement.pieces.find((p) => p.kind === "block") ??
    (next?.pieces[0]?.kind === "block" ? next.pieces[0] : undefined);
  if (block === undefined) return;
  if (kind === "class") return defineMethods(name.text, block, state);
  const key = name.text.toLowerCase();
  const { params, body } = blockFunction(block);
  const declared = after?.text === "("
    ? variablesIn(statement.pieces.slice(2, closeOf(statement.pieces, 2)))
    : params;
  state.functions.set(key, { key, params: declared, body });
}

/**
 * A class's methods and constructor: `[type] Name([type]$a) { … }`, `static`/`hidden` before;
 * the constructor (named as the class) kept as `new` (`[Name]::new($x)`).
 */
function defineMethods(className: string, block: Piece, state: State): void {
  for (const { pieces } of blockFunction(block).body) {
    let k = 0;
    for (
      let t = pieces[0]?.text;
      t === "[" || /^(?:static|hidden)$/i.test(t ?? "");
      t = pieces[k]?.text
    ) {
      const type = t === "[" ? pieces.findIndex((p, j) => j > k && p.text === "]") : k;
      if (type === -1) break;
      k = type + 1;
    }
    const [name, open] = [pieces[k], pieces[k + 1]];
    const close = open?.text === "(" ? closeOf(pieces, k + 1) : -1;
    const body = pieces[close + 1];
    if (name?.kind !== "word" || close === -1 || body?.kind !== "block") continue;
    const method = name.text.toLowerCase() === className.toLowerCase()
      ? "new"
      : name.text.toLowerCase();
    const fn = { ...blockFunction(body), params: variablesIn(pieces.slice(k + 2, close)) };
    for (const key of [method, `${className.toLowerCase()}::${method}`]) {
      state.methods.set(key, [...state.methods.get(key) ?? [], fn]);
    }
  }
}

/**
 * A call of a function of the script or of a script block (`Run $code`, `Run -Command $code`,
 * `$x | Run`, `& $block $code`): its body read with its parameters bound to the arguments (by
 * name, then in order; the rest are `$args`; what is piped in is `$_`, `$PSItem` and
 * `$input`), its flows at the call, its output what its statements output.
 */
function callFunction(
  fn: PsFunction,
  args: readonly Piece[][],
  input: Set<Label>,
  at: number | undefined,
  state: State,
): Set<Label> {
  // The budget spent: no more calls are read (a hostile script's, by construction).
  if (state.budget <= 0) return new Set();
  const bound = new Map<string, Set<Label>>([["_", input], ["psitem", input], ["input", input]]);
  const rest = new Set<Label>();
  for (let j = 0; j < args.length; j++) {
    const named = args[j]!.length === 1
      ? /^-(\w+)$/.exec(args[j]![0]!.text)?.[1]?.toLowerCase()
      : undefined;
    // A switch or a common parameter (`-Verbose`): no value of the function's.
    if (named !== undefined && !fn.params.includes(named)) continue;
    const value = named !== undefined ? args[++j] : args[j];
    if (value === undefined) continue;
    const labels = argumentLabels(value, state);
    const target = named ?? fn.params.find((q) => !bound.has(q));
    if (target !== undefined) bound.set(target, labels);
    else for (const l of labels) rest.add(l);
  }
  bound.set("args", rest);
  const key = `${fn.key}\n${[...bound].map(([n, l]) => `${n}=${[...l].sort()}`).join(";")}`;
  const known = state.calls.get(key);
  state.budget--;
  if (known !== undefined || state.calling >= MAX_CALLS || fn.body.length > state.budget) {
    for (const flow of known?.flows ?? []) {
      state.sink.add(at === undefined ? flow : { ...flow, at });
    }
    return known?.out ?? new Set();
  }
  state.calls.set(key, { flows: [], out: new Set() }); // a call of itself: nothing more
  state.budget -= fn.body.length;
  return replay(fn, bound, key, at, state);
}

/**
 * A command's arguments: each a piece, or a bracketed expression (`(irm $u)`), whose
 * commands are read for what they bring; `[type]` casts and commas are no arguments.
 */
function argumentsOf(pieces: readonly Piece[]): Piece[][] {
  const out: Piece[][] = [];
  for (let j = 0; j < pieces.length; j++) {
    const p = pieces[j]!;
    if (p.text === "(") {
      const close = closeOf(pieces, j);
      out.push(pieces.slice(j, close + 1));
      j = close;
    } else if (p.text === "[") {
      while (j < pieces.length && pieces[j]!.text !== "]") j++;
    } else if (p.kind !== "op") out.push([p]);
  }
  return out;
}

/** What an argument carries: a piece's labels, or what a bracketed expression outputs. */
function argumentLabels(arg: readonly Piece[], state: State): Set<Label> {
  if (arg.length === 1) return piecesLabels(arg[0]!, state.vars);
  const inner = arg.slice(1, -1);
  let out = new Set<Label>();
  for (const [a, b] of stages(inner, 0)) out = readStage(inner.slice(a, b), out, state);
  return out;
}

/**
 * How many function calls deep a reading follows (wrappers of wrappers of `iex`): each function
 * is read once per set of its arguments' labels, so a deep chain costs one reading a link.
 */
const MAX_CALLS = 64;

/** Statements calls may read again, for each statement of the script ({@link State.budget}). */
const CALL_BUDGET = 8;

/** Reads a function's body with `bound` as its parameters; keeps what it did under `key`. */
function replay(
  fn: PsFunction,
  bound: Map<string, Set<Label>>,
  key: string,
  at: number | undefined,
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
    for (const flow of flows) outer.add(at === undefined ? flow : { ...flow, at });
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
  for (const piece of stage) {
    for (const l of piecesLabels(piece, state.vars)) carried.add(l);
    if (piece.kind !== "op") {
      for (const l of state.held.get(fileKey(piece.text)) ?? []) carried.add(l);
    }
  }
  const commands = commandsOf(stage);
  const names = commands.map((k) => stage[k]!.text.toLowerCase());
  const sources = sourcesOf(stage, names);
  const all = new Set([...input, ...carried, ...sources]);
  const sent = new Set([...input, ...carried]);
  const textOf = (p: Piece) => pieceText(p, state);
  const host = stageHost(stage, textOf);
  const texts = stage.map((p) => unquote(p.text).toLowerCase());
  for (const k of commands) {
    const piece = stage[k]!;
    const name = state.aliases.get(texts[k]!) ?? texts[k]!;
    const fn = piece.kind === "word" ? state.functions.get(name) : blockAt(piece, state);
    if (fn !== undefined) {
      const args = argumentsOf(stage.slice(k + 1));
      const at = piece.kind === "block" ? undefined : piece.at;
      for (const l of callFunction(fn, args, input, at, state)) all.add(l);
      continue;
    }
    const at = stage[k]!.at;
    const runs = RUNNERS.test(name) || stage[k]!.kind === "variable" ||
      (SHELLS.test(name) || name === "start-process") && texts.some((t) => INLINE.test(t)) &&
        texts.some((t) => SHELLS.test(t));
    if (runs) sink.exec(at, all, name);
    else if (DOWNLOAD.test(name) || DNS_LOOKUPS.test(name)) sink.send(at, sent, host, name);
    else persistence(stage, name, at, sink);
    holdsWritten(stage, k, name, all, state);
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
  blocksRun(stage, input, all, state);
  const create = memberAt(stage, /^create$/i, "::");
  if (create !== -1 && /scriptblock$/i.test(stage[create - 3]?.text ?? "")) {
    sink.exec(stage[create]!.at, all, "[scriptblock]::Create");
  }
  const invoke = memberAt(stage, /^(?:invokescript|newscriptblock)$/i, ".");
  if (invoke !== -1) sink.exec(stage[invoke]!.at, all, stage[invoke]!.text.split(".").pop()!);
  const upload = memberAt(stage, UPLOAD_METHOD, ".");
  if (upload !== -1) sink.send(stage[upload]!.at, sent, host, stage[upload]!.text);
  socketSend(stage, sent, host, state);
  savedDownloads(stage, names, state);
  return all;
}

/** A piece's text: a string unquoted, a variable's constant value or the host it holds. */
function pieceText(p: Piece, state: State): string {
  if (p.kind !== "variable") return unquote(p.text);
  const name = variableName(p.text);
  return state.values.get(name) ?? state.hosts.get(name) ?? "";
}

/** A socket's type, made with `New-Object` or `[…]::new`. */
const SOCKET_TYPE = /(?:^|\.)(?:TcpClient|UdpClient|Socket|ClientWebSocket)$/i;
/** What sends through a socket, its stream or a writer over it; `Connect` names its host. */
const SOCKET_SEND =
  /^(?:write|writeline|writeasync|writelineasync|send|sendasync|sendto|connect)$/i;

/** The socket this expression makes, or one a variable in it holds: the host it reaches. */
function socketOf(rhs: readonly Piece[], state: State): { host: string | undefined } | undefined {
  if (rhs.some((p) => p.kind === "word" && SOCKET_TYPE.test(p.text))) {
    const host = rhs.map((p) =>
      p.kind === "string" || p.kind === "variable" ? hostOf(pieceText(p, state)) : undefined
    )
      .find((h) => h !== undefined);
    return { host };
  }
  const over = rhs.find((p) => p.kind === "variable" && state.sockets.has(variableName(p.text)));
  return over === undefined ? undefined : { host: state.sockets.get(variableName(over.text)) };
}

/**
 * `$w.Write($key)`, `$u.Send($b, $b.Length, "h", 53)` on a socket or what writes to one: a
 * send to its host (or the one the call names); `$c.Connect("h", 443)` names the host.
 */
function socketSend(
  stage: readonly Piece[],
  sent: Set<Label>,
  host: string | undefined,
  state: State,
): void {
  const method = memberAt(stage, SOCKET_SEND, ".");
  const receiver = stage[method - 2];
  if (method === -1 || receiver?.kind !== "variable") return;
  const name = variableName(receiver.text);
  if (!state.sockets.has(name)) return;
  if (/^connect$/i.test(stage[method]!.text) && host !== undefined) state.sockets.set(name, host);
  const to = host ?? state.sockets.get(name);
  state.sink.send(stage[method]!.at, sent, to, `${receiver.text}.${stage[method]!.text}`);
}

/**
 * Where a stage's request goes: its `-Uri` (`-Url`), else the first address written as an
 * argument of its own, outside any hashtable, block or parentheses (`-Headers @{ Origin =
 * "https://…" }` names no destination), else the first host any piece names.
 */
function stageHost(stage: readonly Piece[], textOf: (p: Piece) => string): string | undefined {
  const uri = stage.findIndex((p) => p.kind === "word" && /^-(?:uri|url):?$/i.test(p.text));
  const named = uri === -1 || stage[uri + 1] === undefined
    ? undefined
    : hostOf(textOf(stage[uri + 1]!));
  if (named !== undefined) return named;
  let depth = 0;
  for (const p of stage) {
    if (/^@?[({[]$/.test(p.text)) depth++;
    else if (/^[)}\]]$/.test(p.text)) depth = Math.max(0, depth - 1);
    else if (depth === 0 && p.kind !== "op" && /^[a-z][\w+.-]*:\/\//i.test(textOf(p))) {
      const host = hostOf(textOf(p));
      if (host !== undefined) return host;
    }
  }
  return stage.map((p) => p.kind === "op" ? undefined : hostOf(textOf(p)))
    .find((h) => h !== undefined);
}

/** Pipeline commands that run a script block on each input: `… | % { iex $_ }`. */
const EACH = /^(?:foreach-object|%|foreach|where-object|where|\?)$/;
/** Commands that run a script block they are given, with `-ArgumentList`'s values. */
const BLOCK_RUNNERS = /^(?:invoke-command|icm|start-job|sajb|start-threadjob)$/;
/** A script block's own methods that run it: `$block.Invoke($x)`. */
const BLOCK_METHODS = /^invoke(?:returnasis|withcontext)?$/i;

/** A script block, written in place or held by a variable (`$run = { … }`). */
function blockAt(piece: Piece | undefined, state: State): PsFunction | undefined {
  if (piece?.kind === "block") return blockFunction(piece);
  return piece?.kind === "variable" ? state.blocks.get(variableName(piece.text)) : undefined;
}

/**
 * The script blocks a stage runs, read with what they are given (their output joins the
 * stage's): a `ForEach-Object`'s on its input, an `Invoke-Command`'s or a job's with its
 * `-ArgumentList`, a block's `.Invoke(…)` with the call's arguments.
 */
function blocksRun(stage: readonly Piece[], input: Set<Label>, all: Set<Label>, state: State) {
  const run = (fn: PsFunction, args: Piece[][], from: Set<Label>, by: Piece) => {
    // A block written in place keeps its flows where they are; a held one's are at the call.
    const at = by.kind === "block" ? undefined : by.at;
    for (const l of callFunction(fn, args, from, at, state)) all.add(l);
  };
  const first = unquote(stage[0]?.text ?? "").toLowerCase();
  const command = state.aliases.get(first) ?? first;
  // (`foreach ($x in $list) { … }` is the loop statement, read in readStatement.)
  if (EACH.test(command) && stage[1]?.text !== "(") {
    for (const p of stage) if (p.kind === "block") run(blockFunction(p), [], input, p);
  }
  if (BLOCK_RUNNERS.test(command)) {
    const named = stage.findIndex((p) => /^-scriptblock$/i.test(p.text));
    const given = named === -1 ? stage.find((p) => p.kind === "block") : stage[named + 1];
    const fn = blockAt(given, state);
    const valuesOf = (flag: RegExp) => {
      const at = stage.findIndex((p) => flag.test(p.text));
      let end = at + 1;
      while (end < stage.length && !/^-[a-z]/i.test(stage[end]!.text)) end++;
      return at === -1 ? [] : argumentsOf(stage.slice(at + 1, end));
    };
    const piped = new Set(input);
    for (const arg of valuesOf(/^-inputobject$/i)) {
      for (const l of argumentLabels(arg, state)) piped.add(l);
    }
    const by = given?.kind === "block" ? given : stage[0]!;
    if (fn !== undefined) run(fn, valuesOf(/^-(?:argumentlist|args)$/i), piped, by);
  }
  for (let k = 0; k + 3 < stage.length; k++) {
    const fn = stage[k + 1]!.text === "." && BLOCK_METHODS.test(stage[k + 2]!.text) &&
        stage[k + 3]!.text === "("
      ? blockAt(stage[k], state)
      : undefined;
    if (fn !== undefined) {
      run(fn, argumentsOf(stage.slice(k + 4, closeOf(stage, k + 3))), input, stage[k]!);
    }
  }
  // A method of the script's classes: `[Runner]::Go($c)`, `$r.Go($c)`, `[Runner]::new($c)`.
  for (let k = 1; k + 1 < stage.length; k++) {
    const piece = stage[k]!;
    if (piece.kind !== "word" || stage[k + 1]!.text !== "(") continue;
    const parts = piece.text.split(".");
    const member = parts.length > 1 || /^(?:::|\.)$/.test(stage[k - 1]!.text);
    const method = parts.at(-1)!.toLowerCase();
    // `[Runner]::Go(…)` names its class (a class not the script's is .NET's); `$r.Go(…)`
    // could be any class's Go.
    const fns = !member
      ? undefined
      : stage[k - 1]!.text === "::" && stage[k - 2]?.text === "]"
      ? state.methods.get(`${stage[k - 3]?.text.toLowerCase()}::${method}`)
      : state.methods.get(method);
    for (const fn of state.budget > 0 ? fns ?? [] : []) {
      run(fn, argumentsOf(stage.slice(k + 2, closeOf(stage, k + 1))), input, piece);
    }
  }
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
    const called = stage[k]!.kind === "variable" || stage[k]!.kind === "block";
    if (stage[k]!.kind === "word" || (called && k === 1 && /^[&.]$/.test(stage[0]!.text))) {
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
  // `Get-Item env:NAME`, `Get-Content env:NAME`, `[Environment]::GetEnvironmentVariable("NAME")`:
  // that variable (`env:*` and `env:` alone: all of them).
  const envItems = names.some((n) =>
    /^(?:get-item|gi|get-content|gc|cat|type|get-childitem|gci|dir|ls)$/.test(n)
  );
  const getter = memberAt(stage, /^getenvironmentvariable$/i, "::");
  for (const p of envItems ? stage : getter === -1 ? [] : stage.slice(getter + 2, getter + 3)) {
    const named = envItems ? /^env:\\?(\w+)$/i.exec(unquote(p.text))?.[1] : unquote(p.text);
    if (named !== undefined && p.kind !== "op" && secretName(named.toUpperCase())) {
      out.add(`env:${named.toUpperCase()}`);
    }
  }
  const listsEnv = names.some((n) => /^(?:get-childitem|gci|dir|ls|get-item|gi)$/.test(n)) &&
    stage.some((p) => /^env:(?:\\|\\?\*)?$/i.test(unquote(p.text)));
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

/** The commands that write their input, or their `-Value`, to a file. */
const FILE_WRITERS = /^(?:add-content|set-content|out-file|ac|sc|tee-object|tee)$/i;

/**
 * A file a writer at `k` writes a secret to (`-Path`, `-FilePath`, `-LiteralPath`, or its first
 * word that is no option), kept with the secret (State.held).
 */
function holdsWritten(
  stage: readonly Piece[],
  k: number,
  name: string,
  labels: ReadonlySet<Label>,
  state: State,
): void {
  if (!FILE_WRITERS.test(name)) return;
  const secrets = [...labels].filter(isSecret);
  if (secrets.length === 0) return;
  const rest = stage.slice(k + 1).filter((p) => p.kind !== "op");
  const flag = rest.findIndex((p) => /^-(?:path|filepath|literalpath)$/i.test(p.text));
  const target = flag !== -1 ? rest[flag + 1] : rest.find((p) => !p.text.startsWith("-"));
  if (target !== undefined) state.held.set(fileKey(target.text), new Set(secrets));
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

/** A Windows path as the secret and persistence tables read paths (`~/.aws/credentials`). */
function windowsPath(text: string): string {
  return text.replace(/\\/g, "/").replace(/^(?:\$env:USERPROFILE|\$env:HOME|\$HOME)(?=\/)/i, "~");
}
