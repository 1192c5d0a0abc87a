/**
 * Data flow in shell: commands in order, variables folded to their values (`$c$r` is
 * `curl` when `c=cu; r=rl`), labels carried along pipes, `$(…)` and process substitution
 * into the next command. Sinks: a network command (curl, wget, nc, dig, …) or `/dev/tcp`
 * given a secret; a shell, `eval` or interpreter given downloaded or decoded data (on stdin,
 * as `-c`, or as a file that was downloaded); a write to a persistence location; a command
 * name assembled from pieces that names a downloader or a shell.
 */

import { type Flow, FlowSink } from "./flow_model.ts";
import { type Command, MAX_VALUE, ShellReader, type ShellVars, type Word } from "./shell_words.ts";
import {
  decodesInShell,
  EXEC_COMMANDS,
  fileKey,
  heldByFile,
  hostOf,
  inlineLanguage,
  instructionFile,
  interpreterAfterRunner,
  ipHost,
  isSecret,
  type Label,
  NET_COMMANDS,
  persistPath,
  secretCommand,
  secretName,
  secretPath,
  SENSITIVE_COMMANDS,
  shellQuoted,
  unreviewedCode,
} from "./vocabulary.ts";
import { codeOnly, readCode } from "./audit_code.ts";

interface Value {
  value?: string;
  /** Its text where part of it is unknown, `$NAME` kept there (`"$HOME/.bashrc"`). */
  partial?: string;
  labels: Set<Label>;
  assembled: boolean;
  /** What `${!name}` reads through it: a `for` loop's variable over names written out. */
  indirect?: ReadonlySet<Label>;
}

interface State {
  vars: Map<string, Value>;
  bindings: ReadonlyMap<string, Set<Label>>;
  /** Files written with downloaded or decoded data (`curl -o F`, `base64 -d > F`): labels. */
  downloaded: Map<string, Set<Label>>;
  /**
   * Folders a download filled (`git clone URL DIR`, `tar -xzf x.tgz -C DIR` of a downloaded
   * archive), each ending in `/`: every file under one holds what was downloaded. At most
   * MAX_FOLDERS, so a lookup stays cheap.
   */
  folders: string[];
  /** Whether the script has `cd`-ed into such a folder: its relative paths are under it. */
  inFolder: boolean;
  sink: FlowSink;
  depth: number;
  /** The reader of code handed to an interpreter on its command line (`python3 -c "…"`). */
  inline?: InlineCode;
  /**
   * Each such code's reading, by the word that holds it: a command's output (what the code
   * prints) and its flows come from one reading.
   */
  readings: WeakMap<Word, InlineReading>;
  /** Descriptors `exec` opened for reading (`exec 3< <(curl …)`): what reading them gives. */
  fds: Map<number, Set<Label>>;
  /** The script's functions (`f() { …; }`): their bodies' commands, `{` to `}`. */
  functions: Map<string, Command[]>;
  /**
   * What a call of a function did, by function and the labels of its stdin: a script that calls
   * one a thousand times reads its body once per kind of input, not once per call.
   */
  calls: Map<string, { flows: Flow[]; out: Set<Label> }>;
  /** Function calls open, one inside another: each (function, input) is read once, so deep is cheap. */
  calling: number;
}

/**
 * A subshell or `{ …; }` group: what is piped into it reaches each of its commands that has
 * no pipe of its own (`curl … | (cd /tmp && sh)`), and what its commands print is its output
 * (`(curl …; echo) | sh`).
 */
interface Group {
  stdin: Set<Label>;
  out: Set<Label>;
  /** A loop's body (`do` … `done`). */
  loop?: boolean;
}

/**
 * Reads code given to an interpreter inline: its flows, in that language; `stdin`, what the
 * interpreter reads on stdin (a pipe's download, which the code may read and run).
 */
export type InlineCode = (
  language: "python" | "javascript",
  text: string,
  stdin?: ReadonlySet<Label>,
) => InlineReading;

/** Code handed to an interpreter inline, read: its flows, and what it prints (its output). */
interface InlineReading {
  flows: Flow[];
  printed: Set<Label>;
}

/**
 * The flows of a shell script (or a string handed to a shell); `bindings` label `${__h0}`, and
 * `downloaded` names the files the code around it wrote downloaded or decoded data to.
 */
export function analyzeShell(
  text: string,
  bindings: ReadonlyMap<string, Set<Label>> = new Map(),
  downloaded: ReadonlyMap<string, Set<Label>> = new Map(),
  inline?: InlineCode,
): Flow[] {
  const state: State = {
    vars: new Map(),
    bindings,
    downloaded: new Map(downloaded),
    folders: [],
    inFolder: false,
    sink: new FlowSink(),
    depth: 0,
    inline,
    readings: new WeakMap(),
    fds: new Map(),
    functions: new Map(),
    calls: new Map(),
    calling: 0,
  };
  const reading = readCode("shell", text);
  // A message that prints a variable (`echo "$TOKEN"`) is read: printed on the terminal it
  // sends nothing, but inside a group or loop whose output is piped on (`{ echo "$TOKEN"; } |
  // curl …`) it is what is sent. Its words still count as a message for the pattern rules.
  const inert = reading.inert.filter(([start, end]) =>
    !(text[start] === '"' && text.slice(start, end).includes("$"))
  );
  run(state, codeOnly(text, { ...reading, inert }), 0);
  return state.sink.flows;
}

/** Runs the commands of `text`; returns the labels (and known text) of the last output. */
function run(state: State, text: string, offset: number): { labels: Set<Label>; text?: string } {
  if (state.depth > 8) return { labels: new Set() };
  state.depth++;
  const vars: ShellVars = { get: (name) => state.vars.get(name) ?? bindingOf(state, name) };
  const reader = new ShellReader(
    text,
    vars,
    (inner, at) => run(state, inner, offset + at),
    envLabel,
  );
  const definitions = new FunctionDefinitions(state);
  const last = runCommands(state, () => definitions.see(reader.next()), offset, []);
  state.depth--;
  return last;
}

/** The commands `next` gives, in order, inside the groups `groups` opened before them. */
function runCommands(
  state: State,
  next: () => Command & { assignments: [string, Word][] } | undefined,
  offset: number,
  groups: Group[],
): { labels: Set<Label>; text?: string } {
  let stdin = new Set<Label>();
  let last: { labels: Set<Label>; text?: string } = { labels: new Set() };
  for (let command = next(); command !== undefined; command = next()) {
    stdin = passGroups(groups, command.groups, stdin);
    for (const [name, value] of command.assignments) {
      state.vars.set(name, valueOf(value, value.text));
    }
    const words = command.words.map((w) => w.text);
    if (words.length === 1 && words[0] === "}") {
      const closed = groups.pop();
      stdin = command.piped && closed !== undefined ? closed.out : new Set();
      continue;
    }
    // No pipe of its own: the group's stdin, or what `exec <` made the script's.
    const input = stdin.size > 0 ? stdin : groups.at(-1)?.stdin ?? state.fds.get(0) ?? stdin;
    // A loop's body is a group too: `for …; do env; done | curl …` pipes what it printed.
    const loopEnd = words[0] === "done" && words.length === 1 && groups.at(-1)?.loop === true;
    const body = loopEnd ? groups.pop() : undefined;
    if (words[0] === "{") groups.push({ stdin: input, out: new Set() });
    if (words[0] === "do") groups.push({ stdin: input, out: new Set(), loop: true });
    let out = command.words.length === 0
      ? { labels: new Set<Label>() }
      : evaluate(state, command, input, offset);
    if (body !== undefined) out = { labels: new Set([...out.labels, ...body.out]) };
    for (const group of groups) for (const label of out.labels) group.out.add(label);
    stdin = command.piped ? out.labels : new Set();
    last = out;
  }
  return last;
}

/**
 * The script's function definitions as its commands go by: `f() { …; }`, `function f { …; }`,
 * `function f() { …; }`. A body's commands are run where they are written too, with no input.
 */
class FunctionDefinitions {
  #previous: string[] = [];
  #current: { name: string; commands: Command[]; braces: number } | undefined;
  constructor(readonly state: State) {}

  see<C extends Command>(command: C | undefined): C | undefined {
    if (command === undefined) return undefined;
    const words = command.words.map((w) => w.text);
    if (this.#current === undefined) {
      const name = words[0] === "function" && words.includes("{")
        ? words[1]
        : command.groups === "()" && words[0] === "{"
        ? this.#previous.at(-1)
        : undefined;
      if (name !== undefined) this.#current = { name, commands: [], braces: 0 };
    }
    const current = this.#current;
    if (current !== undefined) {
      current.commands.push(command);
      current.braces += words.filter((w) => w === "{").length -
        (words.length === 1 && words[0] === "}" ? 1 : 0);
      if (current.braces <= 0) {
        this.state.functions.set(current.name, current.commands);
        this.#current = undefined;
      }
    }
    this.#previous = words;
    return command;
  }
}

/**
 * A call of a function of the script: its body run on the call's stdin (each of its commands
 * without a pipe of its own reads it), its flows at the call, its output what its commands print.
 */
function callFunction(
  state: State,
  name: string,
  stdin: Set<Label>,
  at: number,
  args: readonly Word[],
): { labels: Set<Label> } {
  // What each argument carries: the body's `$1`, `"${2}"`, `$@` carry it where they are used.
  const positional = args.map((w) => [...wordLabels(w), ...heldSecret(state, w)]);
  const key = `${name}\n${[...stdin].sort().join("\n")}\n${JSON.stringify(positional)}`;
  const known = state.calls.get(key);
  if (known !== undefined) {
    for (const flow of known.flows) state.sink.add({ ...flow, at });
    return { labels: known.out };
  }
  if (state.calling >= MAX_CALLS) return { labels: new Set() };
  state.calling++;
  state.calls.set(key, { flows: [], out: new Set() }); // a call of itself: nothing more
  const before = state.sink.flows.length;
  const body = state.functions.get(name)!;
  const group: Group = { stdin, out: new Set() };
  const commands = body.map((command, i) => {
    const open = i === 0 ? command.words.findIndex((w) => w.text === "{") : -1;
    return {
      ...command,
      at: 0,
      assignments: [],
      groups: i === 0 ? "" : command.groups,
      words: command.words.slice(open + 1).flatMap((w) => withArguments(w, args, positional)),
    };
  });
  let i = 0;
  runCommands(state, () => commands[i++], at, [group]);
  state.calling--;
  state.calls.set(key, { flows: state.sink.flows.slice(before), out: group.out });
  return { labels: group.out };
}

/** A positional parameter the body of a function reads as written: `$1`, `${2}`, `$@`, `$*`. */
const POSITIONAL = String.raw`\$\{?([1-9]|[@*])\}?`;
const POSITIONAL_IN = new RegExp(POSITIONAL, "g");
const POSITIONAL_WORD = new RegExp(`^${POSITIONAL}$`);

/** The items of `list` the parameter `n` (`1`…`9`, `@`, `*`) stands for; `missing` past its end. */
function named<T>(list: readonly T[], n: string, missing: T[] = []): T[] {
  if (n === "@" || n === "*") return [...list];
  const item = list[Number(n) - 1];
  return item === undefined ? missing : [item];
}

/**
 * `w` with the call's arguments where it reads them: a word that is one of them (`"$1"`, `"$@"`)
 * is those words, as written at the call; within a word (`"X-Key: $1"`), what they carry.
 */
function withArguments(w: Word, args: readonly Word[], positional: readonly Label[][]): Word[] {
  if (args.length === 0 || !w.text.includes("$")) return [w];
  const whole = POSITIONAL_WORD.exec(w.text)?.[1];
  if (whole !== undefined) return named(args, whole, [w]);
  const labels = new Set(w.labels);
  for (const [, n] of w.text.matchAll(POSITIONAL_IN)) {
    for (const l of named(positional, n!).flat()) labels.add(l);
  }
  return [labels.size === w.labels.size ? w : { ...w, labels }];
}

/**
 * A variable's value from the word assigned to it (`text`: the word's text after `NAME=`). A
 * path to a secret keeps its label when part of it is unknown (`"$PWD/.env"`,
 * `"$HOME/.ssh/id_rsa"`): the word's text keeps `$NAME` where it could not fold.
 */
function valueOf(word: Word, text: string): Value {
  return {
    labels: wordLabels(word),
    assembled: word.assembled,
    ...(text.length > MAX_VALUE ? {} : word.known ? { value: text } : { partial: text }),
  };
}

/** How many function calls deep a reading follows (wrappers of wrappers of `sh`). */
const MAX_CALLS = 64;

/**
 * Opens and closes the subshells between two commands (Command.groups); returns the stdin of
 * the next: a subshell's own, empty, or, piped on after its close, what the subshell printed.
 */
function passGroups(open: Group[], groups: string, stdin: Set<Label>): Set<Label> {
  let closed: Group | undefined;
  for (const c of groups) {
    if (c === "(") {
      open.push({ stdin: stdin.size > 0 ? stdin : open.at(-1)?.stdin ?? stdin, out: new Set() });
    } else if (c === ")") {
      closed = open.pop();
      stdin = new Set();
    } else stdin = closed?.out ?? new Set();
  }
  return stdin;
}

function bindingOf(state: State, name: string): Value | undefined {
  const labels = state.bindings.get(name);
  return labels === undefined ? undefined : { labels, assembled: false };
}

function envLabel(name: string): Label | undefined {
  if (!/^[A-Z][A-Z0-9_]*$/.test(name) || !secretName(name)) return undefined;
  return `env:${name}`;
}

const PREFIXES = new Set([
  "sudo",
  "command",
  "exec",
  "nohup",
  "time",
  "nice",
  "then",
  "do",
  "else",
  "if",
  "while",
  "until",
  "!",
  "{",
]);

/** `declare -p`, `typeset -px`, `export -p`: every variable printed, names and values. */
function printsVariables(name: string, args: readonly string[]): boolean {
  return /^(?:declare|typeset|export)$/.test(name) && args.length > 0 &&
    args.every((a) => /^-[a-zA-Z]*p[a-zA-Z]*$/.test(a));
}

/**
 * `timeout 5 sh`, `nice -n 10 bash`, `busybox sh`, `xargs -0 bash -c`: a program that runs the
 * rest of its arguments runs the interpreter named among them, on the same stdin (xargs hands
 * what it reads to it as arguments: the script of `bash -c`). The words from that interpreter
 * on; `words` as they are otherwise.
 */
function throughRunner(words: readonly Word[], stdin: ReadonlySet<Label>): readonly Word[] {
  const inner = interpreterAfterRunner(words.map((w) => w.text));
  if (words[0]?.text.split("/").pop() === "xargs") return xargsCommand(words, stdin, inner);
  return inner <= 0 ? words : words.slice(inner);
}

/**
 * `xargs [options] command args…`: the command (from `inner` when an interpreter was found
 * there), run with what xargs reads as arguments — in the place `-I X` names
 * (`xargs -I{} curl -F f=@{} …`), else after its own. `words` when xargs names no command.
 */
function xargsCommand(
  words: readonly Word[],
  stdin: ReadonlySet<Label>,
  inner: number,
): readonly Word[] {
  let k = 1;
  let replace: string | undefined;
  while (k < words.length && words[k]!.text.startsWith("-")) {
    const option = words[k]!.text;
    if (option === "-I") replace = words[k + 1]?.text;
    else if (option.startsWith("-I")) replace = option.slice(2);
    k += /^-[IndPLsaEe]$/.test(option) ? 2 : 1;
  }
  if (inner > 0) k = inner;
  if (k >= words.length) return words;
  const read = (w: Word): Word => ({ ...w, labels: new Set([...w.labels, ...stdin]) });
  const command = words.slice(k);
  return replace === undefined || replace === ""
    ? [...command, read({ text: "", known: false, assembled: false, labels: new Set() })]
    : command.map((w) => w.text.includes(replace!) ? read(w) : w);
}

/**
 * `for v in items`: v holds what the items carry; `${!v}` reads the variables they name
 * (`for v in GITHUB_TOKEN NPM_TOKEN`), any at all where a name is data (`$(compgen -v)`).
 */
function loopVariable(state: State, name: string, items: readonly Word[]): void {
  const labels = new Set(items.flatMap((w) => [...wordLabels(w)]));
  const indirect = new Set<Label>(
    items.flatMap((w) =>
      !w.known ? ["env:*" as const] : w.text.split(/\s+/).flatMap((n) => envLabel(n) ?? [])
    ),
  );
  state.vars.set(name, { labels, assembled: false, indirect });
}

/** One command with what it reads on stdin: its flows, and what it writes to stdout. */
function evaluate(
  state: State,
  command: Command,
  stdin: Set<Label>,
  offset: number,
): { labels: Set<Label>; text?: string } {
  stdin = inputOf(state, command, stdin);
  let words = throughRunner(command.words, stdin);
  while (
    words.length > 1 &&
    (PREFIXES.has(words[0]!.text) || (words[0]!.text === "env" && /=/.test(words[1]!.text)))
  ) {
    words = words.slice(words[0]!.text === "env" ? 1 : 1).filter((w, k) =>
      k > 0 || !/^\w+=/.test(w.text)
    );
  }
  if (words[0]?.text === "for" && words[2]?.text === "in") {
    loopVariable(state, words[1]!.text, words.slice(3));
    return { labels: new Set() };
  }
  if (
    /^(?:export|local|declare|typeset|readonly)$/.test(words[0]?.text ?? "") &&
    !printsVariables(words[0]!.text, words.slice(1).map((w) => w.text)) &&
    !(words[0]!.text === "export" && words.length === 1)
  ) {
    // `export URL=https://…`, `local key="$1"`: assignments, as written without the word.
    for (const word of words.slice(1)) {
      const assign = /^([A-Za-z_]\w*)=/.exec(word.text);
      if (assign !== null) {
        state.vars.set(assign[1]!, valueOf(word, word.text.slice(assign[0].length)));
      }
    }
    return { labels: new Set() };
  }
  const at = offset + command.at;
  const head = words[0];
  // `(( $(…) >= 90 ))` computes a number: no word of it is a command to run.
  if (head === undefined || command.arithmetic) return { labels: new Set() };
  if (state.functions.has(head.text)) {
    return callFunction(state, head.text, stdin, at, words.slice(1));
  }
  // `$SHELL`, `$BASH`: the user's shell, whichever it is.
  const name = /^\$\{?(?:SHELL|BASH)\}?$/.test(head.text) ? "sh" : head.text.split("/").pop() ?? "";
  const args = words.slice(1);
  const argLabels = new Set(args.flatMap((w) => [...wordLabels(w), ...heldSecret(state, w)]));
  if (head.assembled && SENSITIVE_COMMANDS.has(name)) {
    state.sink.add({
      kind: "assembled-name",
      at,
      detail: `a command name built from pieces runs ${name}`,
      secrets: [],
    });
  }
  // A command's name is a file's path only with a slash in it (`./x`; `x` is looked up on PATH).
  const file = head.text.includes("/") ? downloadedFile(state, head.text) : undefined;
  state.sink.exec(at, file ?? state.downloaded.get(fileKey(head.text)) ?? new Set(), head.text);
  // A command line that is itself data: `$(curl …)`, `$(echo … | base64 -d)`.
  state.sink.exec(at, head.labels, "a command read from data");
  const out = outputOf(state, name, args, argLabels, stdin, command);
  // `curl … | tee x.sh`: the files tee writes hold what it read.
  if (name === "tee" && heldByFile(stdin).size > 0) {
    const held = heldByFile(stdin);
    for (const w of args) {
      if (!/^(?:-|\/dev\/)/.test(w.text)) state.downloaded.set(fileKey(w.text), held);
    }
  }
  netCommand(state, name, args, argLabels, stdin, at);
  noteFolder(state, name, args, stdin);
  if (EXEC_COMMANDS.has(name)) execCommand(state, name, args, stdin, at, command);
  if (AWKS.test(name)) awkRuns(state, name, args, stdin, at);
  // What the command `find` runs prints is what find prints.
  if (name === "find") { for (const l of findExec(state, args, at)) out.labels.add(l); }
  writeRedirects(state, command, out.labels, name, at);
  persistCommand(state, name, args, at);
  return out;
}

/**
 * Where a command's output redirects write (`> f`, `>> f`, `> /dev/tcp/host/80`): a connection
 * is sent what it prints, a persistence path is written, and a file keeps what it prints.
 */
function writeRedirects(
  state: State,
  command: Command,
  printed: ReadonlySet<Label>,
  name: string,
  at: number,
): void {
  for (const r of command.redirects) {
    // `2>&1`, `>&2`, `>&-`: a descriptor duplicated or closed, no file (`>& log` is one).
    if (!r.op.startsWith(">") || (r.op === ">&" && /^(?:\d+|-)$/.test(r.target.text))) continue;
    const dev = /^\/dev\/(?:tcp|udp)\/([^/]+)/.exec(r.target.text);
    if (dev !== null) state.sink.send(at, printed, dev[1], "/dev/tcp");
    persistTo(state, at, r.target.text, name);
    // What the command prints goes to the file its stdout is sent to (`> f`, `1>> f`), not to
    // one its stderr is (`2> f`); a device keeps nothing (`> /dev/null`).
    if ((r.fd ?? 1) !== 1 || r.target.text.startsWith("/dev/")) continue;
    const held = heldByFile(printed);
    if (held.size > 0) state.downloaded.set(fileKey(r.target.text), held);
  }
}

/**
 * A command that reaches the network sends its arguments and what it reads on stdin (a DNS
 * lookup only its arguments) to the host its words name; `openssl s_client -connect host:443`
 * is a TLS client writing its stdin there, and a cloud CLI's upload sends the files it names
 * (`aws s3 cp ~/.ssh/id_rsa s3://…`). A downloader's saved file is noted.
 */
function netCommand(
  state: State,
  name: string,
  args: readonly Word[],
  argLabels: Set<Label>,
  stdin: Set<Label>,
  at: number,
): void {
  const client = name === "openssl" && args[0]?.text === "s_client";
  const upload = CLOUD_CLIS.test(name) &&
    CLOUD_UPLOAD.test(`${name} ${args.map((w) => w.text).join(" ")}`);
  if (!NET_COMMANDS.has(name) && !client && !upload) return;
  // git reaches the network only to fetch, push or clone (`git log -- '*.env'` sends nothing).
  // (Any word: `git -C repo push …` names its subcommand after a global option's value.)
  if (name === "git" && !args.some((w) => GIT_NETWORK.test(w.text))) return;
  const sent = new Set([
    ...argLabels,
    ...(/^(?:dig|nslookup|host|drill)$/.test(name) ? [] : stdin),
  ]);
  // The addresses it is given as words of their own (`curl -H "Origin: https://a" https://b`
  // goes to b): each of them, since curl sends to every URL it is given; else the first host
  // any word names.
  const hostIn = (text: string) => hostOf(text) ?? ipHost(text) ?? socketHost(text);
  const ownWord = (text: string) => !/:\/\//.test(text) || /^[a-z][\w+.-]*:\/\//i.test(text);
  // A word after a flag is that flag's value (`-u user@company.com:$TOKEN`, `--data-binary
  // @test.wav`): an address of its own only when it says so (`-x http://proxy:8080`).
  const flagValue = (i: number) =>
    args[i - 1]?.text.startsWith("-") === true && !/:\/\//.test(args[i]!.text);
  // curl's `--connect-to a:443:b:443` and `--resolve a:443:addr` keep `a` in the URL and the
  // TLS name but take the connection to b or addr: that is where the bytes go.
  const redirects = name === "curl" ? curlRedirects(args.map((w) => w.text)) : undefined;
  const hosts = new Set(
    args.filter((w, i) => ownWord(w.text) && !flagValue(i) && !redirects?.values.has(i))
      .map((w) => hostIn(w.text)).filter((h) => h !== undefined),
  );
  for (const [from, to] of redirects?.hosts ?? []) {
    // (`--connect-to ::drop.example:443` takes every host's connection there.)
    if (from === "") hosts.clear();
    if (from === "" || hosts.delete(from)) hosts.add(to);
  }
  // A proxy the script set in its environment (`export https_proxy=http://relay:8080`, or
  // `HTTPS_PROXY=… curl …`) carries each request a downloader makes, headers and all.
  if (hosts.size > 0 && (name === "curl" || name === "wget")) {
    for (const proxy of PROXY_VARIABLES) {
      const value = state.vars.get(proxy)?.value;
      const host = value === undefined ? undefined : hostOf(value) ?? ipHost(value);
      if (host !== undefined) hosts.add(host);
    }
  }
  if (hosts.size === 0) {
    const named = args.map((w) => hostIn(w.text)).find((h) => h !== undefined);
    state.sink.send(at, sent, named ?? CLOUD_HOSTS[name], name);
  }
  for (const host of hosts) state.sink.send(at, sent, host, name);
  noteDownload(state, name, args);
}

/**
 * Where curl's `--connect-to HOST:PORT:TO:PORT` and `--resolve HOST:PORT:ADDR` send the
 * connections for a host a URL names: [that host, where its bytes go], and the indices of the
 * words that are these flags' values, not addresses of their own.
 */
function curlRedirects(
  words: readonly string[],
): { hosts: [string, string][]; values: Set<number> } | undefined {
  const out: [string, string][] = [];
  const values = new Set<number>();
  for (let i = 0; i < words.length; i++) {
    const flag = /^--(connect-to|resolve)(?:=(.*))?$/.exec(words[i]!);
    if (flag === null) continue;
    if (flag[2] === undefined) i++;
    values.add(i);
    const value = flag[2] ?? words[i] ?? "";
    const fields = value.replace(/^\+/, "").split(":");
    const from = (fields[0] ?? "").toLowerCase();
    // connect-to's target host may be empty (the same host, another port); resolve's is an
    // address list, `[v6]` or `v4`, of which curl tries each.
    const to = flag[1] === "connect-to" ? fields[2] : fields.slice(2).join(":").split(",")[0];
    const target = (to ?? "").replace(/^\[|\]$/g, "").toLowerCase();
    if (target !== "" && target !== from) out.push([from, target]);
  }
  return values.size === 0 ? undefined : { hosts: out, values };
}

/** git's subcommands that reach a remote. */
const GIT_NETWORK =
  /^(?:clone|fetch|pull|push|ls-remote|submodule|remote|archive|send-email|request-pull)$/;

/** The environment variables curl and wget take a proxy from. */
const PROXY_VARIABLES = ["http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"];

/** Cloud and hosting CLIs, and their uploads: the files those are given leave the machine. */
const CLOUD_CLIS = /^(?:aws|gsutil|gcloud|az|rclone|gh)$/;
const CLOUD_UPLOAD =
  /^(?:aws s3 (?:cp|mv|sync)|gsutil (?:cp|mv|rsync)|gcloud storage (?:cp|mv|rsync)|az storage (?:blob|file) upload|rclone (?:copy|copyto|move|sync)|gh (?:gist create|release upload|api))\b/;

/** Where a cloud CLI sends what it uploads, when its words name no host. */
const CLOUD_HOSTS: Readonly<Record<string, string>> = {
  aws: "s3.amazonaws.com",
  gsutil: "storage.googleapis.com",
  gcloud: "storage.googleapis.com",
  az: "blob.core.windows.net",
  gh: "api.github.com",
};

/** The host of a socat-style address (`TCP:host:443`, `OPENSSL:host:443`, `UDP4:host:53`). */
function socketHost(text: string): string | undefined {
  const m = /^(?:TCP|UDP|SCTP|OPENSSL|SSL)[46]?(?:-CONNECT|-SENDTO)?:([^:,\s]+):\d+/i.exec(text);
  return m === null ? undefined : hostOf(m[1]!) ?? ipHost(m[1]!);
}

/**
 * `find ~ -name .env -exec curl -F f=@{} https://… \;`: the command after `-exec` runs on each
 * file found, `{}` standing for a path the `-name` pattern (or any name) names under the folder
 * searched.
 */
function findExec(state: State, args: readonly Word[], at: number): Set<Label> {
  const exec = args.findIndex((w) => /^-(?:exec|execdir|ok|okdir)$/.test(w.text));
  if (exec === -1) {
    // What find prints: the paths it found, a credential file's when its test names one
    // (`find ~ -name 'id_*' | xargs -I{} curl -F f=@{} …`), at any depth below its root.
    const secret = secretPath(foundPath(args, true));
    return new Set(secret === undefined ? [] : [`file:${secret}` as const]);
  }
  const end = args.findIndex((w, j) => j > exec && /^(?:;|\+)$/.test(w.text));
  // `{}` as the file it stands for, a downloaded one by its path (`find /tmp -name x.sh`).
  const found = foundPath(args, false);
  const words = args.slice(exec + 1, end === -1 ? undefined : end)
    .map((w) => shellQuoted(w.text.replaceAll("{}", found)));
  return words.length > 0 ? run(state, words.join(" "), at).labels : new Set();
}

/**
 * The paths `find <args>` finds, as one glob: its root and its `-name` or `-path` test; with
 * `deep`, a `-name` matched at any depth below the root, else right under it.
 */
function foundPath(args: readonly Word[], deep: boolean): string {
  const named = args.findIndex((w) => /^-i?(?:name|path|wholename)$/.test(w.text));
  const root = args[0] !== undefined && !args[0].text.startsWith("-") ? args[0].text : ".";
  const pattern = named === -1 ? undefined : args[named + 1]?.text;
  // `-name` tests a file's name at any depth under the root.
  const depth = deep && named !== -1 && /name$/.test(args[named]!.text) ? "**/" : "";
  return `${root.replace(/\/+$/, "")}/${depth}${pattern ?? "*"}`;
}

/** awk and its kin. */
const AWKS = /^(?:awk|gawk|mawk|nawk)$/;
/** An awk program that runs commands: `system(…)`, or what it prints piped to a shell. */
const AWK_RUNS = /\bsystem\s*\(|\|\s*"\s*(?:\S*\/)?(?:ba|z|da|k)?sh\b/;

/**
 * `curl … | awk '{ system($0) }'`: an awk program that runs commands runs what it reads, on
 * stdin or from the files it is given (one a download wrote). A program read from a file
 * (`-f`) is not seen here.
 */
function awkRuns(state: State, name: string, args: readonly Word[], stdin: Set<Label>, at: number) {
  let program = 0;
  while (program < args.length && args[program]!.text.startsWith("-")) {
    if (args[program]!.text === "-f") return;
    program += /^-[vF]$/.test(args[program]!.text) ? 2 : 1;
  }
  if (program >= args.length || !AWK_RUNS.test(args[program]!.text)) return;
  const input = new Set(stdin);
  for (const w of args.slice(program + 1)) {
    for (const l of downloadedFile(state, w.text) ?? []) input.add(l);
  }
  state.sink.exec(at, input, name);
}

/**
 * What a command reads on stdin: its pipe's, and what its input redirects give (`< file`, a
 * downloaded file's code; `<<< word`; `< <(…)`; `<&3`, a descriptor `exec` opened). `exec`
 * alone keeps the descriptors it opens for the commands after it.
 */
function inputOf(state: State, command: Command, stdin: Set<Label>): Set<Label> {
  const keeps = command.words.length === 1 && command.words[0]!.text === "exec";
  let input = stdin;
  for (const r of command.redirects) {
    const labels = r.op === "<&"
      ? state.fds.get(parseInt(r.target.text, 10))
      : r.op === "<" || r.op === "<>"
      ? new Set([
        ...wordLabels(r.target),
        ...downloadedFile(state, r.target.text) ?? [],
        // `exec 3<>/dev/tcp/host/80`: what is read from a connection is downloaded data.
        ...(/^\/dev\/(?:tcp|udp)\//.test(r.target.text) ? ["fetched" as const] : []),
      ])
      : r.op === "<<<"
      ? wordLabels(r.target)
      : undefined;
    if (labels === undefined) continue;
    if (keeps) state.fds.set(r.fd ?? 0, labels);
    else if ((r.fd ?? 0) === 0) input = new Set([...input, ...labels]);
  }
  return input;
}

/** The path a word names as a file: itself, or an option's or a form field's (`-F f=@p`). */
function wordPath(w: Word): string {
  return w.text.replace(/^(?:-\w+=?|[\w-]+=)?@?/, "");
}

/**
 * The secret a file the script wrote holds, when a word names that file (`curl -T /tmp/k`,
 * `-d @/tmp/k`, `scp /tmp/k host:`): what a command given it reads or uploads.
 */
function heldSecret(state: State, w: Word): Label[] {
  return [...downloadedFile(state, wordPath(w)) ?? []].filter(isSecret);
}

function wordLabels(w: Word): Set<Label> {
  const out = new Set(w.labels);
  const path = wordPath(w);
  // A URL's path names a file on that server (`http://target/.ssh/id_rsa`), not one here.
  const secret = /^[a-z][\w+.-]*:\/\//i.test(path)
    ? undefined
    : secretPath(path) ?? secretPath(w.text);
  if (secret !== undefined) out.add(`file:${secret}`);
  // `/proc/self/environ`, also as a file an option or a form field names (`-F f=@…`).
  if (/^\/proc\/[^/]+\/environ$/.test(path) || /^\/proc\/[^/]+\/environ$/.test(w.text)) {
    out.add("env:*");
  }
  return out;
}

/** Commands that print the text of the files they are given. */
const FILE_READERS = /^(?:cat|tac|head|tail|nl|less|more|strings|cut|sort|uniq|rev|fold)$/;
/** The same with a program or pattern first: `sed -n 2p f`, `awk 'NR==2' f`, `grep -v x f`. */
const FILE_FILTERS = /^(?:sed|gsed|awk|gawk|mawk|grep|egrep|fgrep|perl)$/;

/**
 * Whether a command prints a file's text (`sed -n 2p "$me"`, `cat notes.txt`): its output,
 * run, runs what that file holds — the script's own comments by way of any name for `$0`.
 */
function readsFileText(name: string, texts: readonly string[]): boolean {
  const operands = texts.filter((t) => !t.startsWith("-")).length;
  return (FILE_READERS.test(name) && operands > 0) || (FILE_FILTERS.test(name) && operands > 1);
}

/** What a command writes to stdout, by its kind. */
function outputOf(
  state: State,
  name: string,
  args: readonly Word[],
  argLabels: Set<Label>,
  stdin: Set<Label>,
  command: Command,
): { labels: Set<Label>; text?: string } {
  const texts = args.map((w) => w.text);
  if (
    ((name === "env" || name === "printenv" || name === "set" || name === "export") &&
      args.length === 0) || printsVariables(name, texts)
  ) {
    return { labels: new Set<Label>(["env:*"]) };
  }
  // `printenv AWS_SECRET_ACCESS_KEY`: the variables it is given.
  if (name === "printenv") {
    return { labels: new Set(texts.map(envLabel).filter((l) => l !== undefined)) };
  }
  if (name === "curl" || name === "wget") {
    return { labels: new Set<Label>(["fetched"]) };
  }
  const labels = new Set([...stdin, ...argLabels, ...inlinePrinted(state, name, args, stdin)]);
  if (decodesInShell(name, texts)) labels.add("decoded");
  if (readsFileText(name, texts)) labels.add("filetext");
  const store = secretCommand([name, ...texts].join(" "));
  if (store !== undefined) labels.add(store);
  if (command.heredoc !== undefined) {
    const secret = secretPath(command.heredoc.trim());
    if (secret !== undefined) labels.add(`file:${secret}`);
  }
  // `printf '%s' cu rl`, `echo curl`: known text for constant folding.
  if (args.every((w) => w.known) && !args.some((w) => w.fileOf)) {
    if (name === "echo") {
      return {
        labels,
        text: texts.filter((t) => !/^-[neE]+$/.test(t)).join(" "),
      };
    }
    if (name === "printf" && /^%s$/.test(texts[0] ?? "")) {
      return { labels, text: texts.slice(1).join("") };
    }
  }
  void state;
  return { labels };
}

/**
 * What code handed to an interpreter inline prints (`python3 -c 'print(os.environ["K"])'`,
 * `node -e '…'`), read as a script of its language; an awk program prints the variables it
 * reads from ENVIRON (`ENVIRON["K"]`; all of them when it walks or computes the name).
 */
function inlinePrinted(
  state: State,
  name: string,
  args: readonly Word[],
  stdin: ReadonlySet<Label>,
): Label[] {
  if (AWKS.test(name)) {
    const program = args.find((w) => !w.text.startsWith("-"))?.text ?? "";
    if (!program.includes("ENVIRON")) return [];
    const named = [...program.matchAll(/ENVIRON\[\s*"(\w+)"\s*\]/g)];
    const all = program.replace(/ENVIRON\[\s*"\w+"\s*\]/g, "").includes("ENVIRON");
    return all ? ["env:*"] : named.flatMap((m) => envLabel(m[1]!) ?? []);
  }
  return [...inlineReading(state, name, args, stdin)?.printed ?? []];
}

/** The word of an interpreter's command line holding code given inline (`-c`, `-e`, `-Command`). */
function inlineScript(args: readonly Word[]): Word | undefined {
  const c = args.findIndex((w) => w.text === "-c" || w.text === "-e" || w.text === "-Command");
  return c === -1 ? undefined : args[c + 1];
}

/**
 * The reading of the code `python3 -c`, `node -e` is given inline, in its language, on the
 * command's stdin: once per command, for its output and its flows (State.readings).
 */
function inlineReading(
  state: State,
  name: string,
  args: readonly Word[],
  stdin: ReadonlySet<Label>,
): InlineReading | undefined {
  const script = inlineScript(args);
  const language = inlineLanguage(name);
  if (script === undefined || !script.known || language === undefined) return undefined;
  if (state.inline === undefined) return undefined;
  let reading = state.readings.get(script);
  if (reading === undefined) {
    reading = state.inline(language, script.text, stdin);
    state.readings.set(script, reading);
  }
  return reading;
}

function noteDownload(state: State, name: string, args: readonly Word[]): void {
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!.text;
    const file = /^-[a-zA-Z]*[oO]$|^--output$|^--output-document$/.test(a)
      ? args[k + 1]?.text
      : /^--output(?:-document)?=(.+)$/.exec(a)?.[1];
    if (file !== undefined && file !== "-") {
      state.downloaded.set(fileKey(file), new Set<Label>(["fetched"]));
    }
  }
  void name;
}

/** How many downloaded folders a script's reading keeps (State.folders). */
const MAX_FOLDERS = 64;

/**
 * What the file at `path` holds, when a download or a decode wrote it: itself, or a file under
 * a folder a download filled.
 */
function downloadedFile(state: State, path: string): Set<Label> | undefined {
  const key = fileKey(path);
  const written = state.downloaded.get(key);
  if (written !== undefined || state.folders.length === 0) return written;
  const relative = !/^[/~$]/.test(key);
  return state.folders.some((folder) => key.startsWith(folder)) || (state.inFolder && relative)
    ? new Set<Label>(["fetched"])
    : undefined;
}

/**
 * Folders a command fills with downloaded files: `git clone <remote> [DIR]` (DIR, or the
 * repository's name), `tar -x … -C DIR` of a downloaded archive (or one piped in), `unzip
 * <downloaded> -d DIR`; and whether a `cd` enters one (State.inFolder).
 */
function noteFolder(state: State, name: string, args: readonly Word[], stdin: Set<Label>) {
  const texts = args.map((w) => w.text);
  const operands = (from: number, valued: RegExp) => {
    const out: string[] = [];
    for (let k = from; k < texts.length; k++) {
      if (valued.test(texts[k]!)) k++;
      else if (!texts[k]!.startsWith("-")) out.push(texts[k]!);
    }
    return out;
  };
  let folder: string | undefined;
  if (name === "cd") {
    state.inFolder = texts[0] !== undefined && downloadedFile(state, `${texts[0]}/`) !== undefined;
    return;
  }
  if (name === "git" && texts.includes("clone")) {
    const [url, dir] = operands(
      texts.indexOf("clone") + 1,
      /^-(?:b|o|c|j|-branch|-origin|-depth|-config|-filter|-jobs|-reference|-template|-separate-git-dir)$/,
    );
    const remote = url !== undefined && /^(?:https?|ssh|git):\/\/|^[\w.-]+@[\w.-]+:/.test(url);
    if (remote) folder = dir ?? url.replace(/\/+$/, "").split(/[/:]/).pop()!.replace(/\.git$/, "");
  } else if (
    name === "tar" && /^-?[a-z]*x/.test(texts[0] ?? "") ||
    name === "tar" && texts.includes("--extract")
  ) {
    const f = texts.findIndex((t) => /^-?[a-z]*f$/.test(t) || t === "--file");
    const archive = f === -1 ? "-" : texts[f + 1] ?? "-";
    const fetched = archive === "-"
      ? unreviewedCode(stdin).size > 0
      : unreviewedCode(downloadedFile(state, archive) ?? []).size > 0;
    const c = texts.findIndex((t) => t === "-C" || t === "--directory");
    const dir = c !== -1
      ? texts[c + 1]
      : texts.find((t) => t.startsWith("--directory="))?.slice(12);
    if (fetched && dir !== undefined) folder = dir;
  } else if (name === "unzip") {
    const [archive] = operands(0, /^-d$/);
    const d = texts.indexOf("-d");
    if (
      archive !== undefined && d !== -1 &&
      unreviewedCode(downloadedFile(state, archive) ?? []).size > 0
    ) {
      folder = texts[d + 1];
    }
  }
  if (folder === undefined || folder === "" || state.folders.length >= MAX_FOLDERS) return;
  const key = fileKey(folder).replace(/\/*$/, "/");
  if (key !== "/" && !state.folders.includes(key)) state.folders.push(key);
}

/** A shell or interpreter: what it runs comes from stdin, `-c`, `eval`'s words or a file. */
function execCommand(
  state: State,
  name: string,
  args: readonly Word[],
  stdin: Set<Label>,
  at: number,
  command: Command,
): void {
  if (name === "eval") {
    const labels = new Set(args.flatMap((w) => [...w.labels]));
    state.sink.exec(at, labels, "eval");
    if (args.every((w) => w.known)) run(state, args.map((w) => w.text).join(" "), at);
    return;
  }
  const script = inlineScript(args);
  if (script !== undefined) {
    state.sink.exec(at, script.labels, `${name} -c`);
    if (script.known && /sh$/.test(name)) run(state, script.text, at);
    // `python3 -c "…"`, `node -e '…'`: code in that language, read as a script of it is.
    for (const flow of inlineReading(state, name, args, stdin)?.flows ?? []) {
      state.sink.add({ ...flow, at });
    }
    return;
  }
  const file = args.find((w) => !w.text.startsWith("-"));
  // `source /dev/stdin`, `bash /dev/fd/0`: the file named is the command's stdin.
  const readsStdin = file !== undefined &&
    /^\/(?:dev\/(?:stdin|fd\/0)|proc\/self\/fd\/0)$/.test(file.text);
  if (file === undefined || file.text === "-" || readsStdin || args.some((w) => w.text === "-s")) {
    state.sink.exec(at, stdin, name);
    if (command.heredoc !== undefined && /sh$/.test(name)) run(state, command.heredoc, at);
    return;
  }
  if (file.fileOf) state.sink.exec(at, file.labels, `${name} <(…)`);
  // The file written with downloaded data, by its path or by the file object it was written
  // through (`f.write(data)` … `bash f.name`).
  const written = downloadedFile(state, file.text) ?? [];
  state.sink.exec(at, new Set([...written, ...unreviewedCode(file.labels)]), name);
}

function persistTo(state: State, at: number, target: string, via: string): void {
  const path = persistPath(target) ?? instructionFile(target);
  if (path !== undefined) state.sink.persist(at, new Set<Label>([`persist:${path}`]), via);
}

/**
 * `npm config set registry …`, `pip config set global.index-url …`, `yarn config set
 * npmRegistryServer …`, conda's channels: where every later install fetches from.
 */
const PACKAGE_INDEX_SETTING =
  /^(?:npm|pnpm|yarn|pip3?|conda|bun) config (?:set|--set)\b.*?(?:registry|npmRegistryServer|index-url|channels)\b/i;

/** `tee`, `cp`/`mv`/`install`/`ln` into a persistence location, `crontab -`, unit enabling. */
function persistCommand(state: State, name: string, args: readonly Word[], at: number): void {
  const texts = args.map((w) => w.text);
  if (name === "tee") {
    for (const t of texts) {
      if (!t.startsWith("-")) persistTo(state, at, t, name);
    }
  }
  if (/^(?:cp|mv|install|ln|rsync)$/.test(name) && texts.length >= 2) {
    persistTo(state, at, texts.at(-1)!, name);
  }
  if (name === "crontab" && texts.length > 0 && !texts.some((t) => /^-[lr]$/.test(t))) {
    state.sink.persist(at, new Set<Label>(["persist:crontab"]), "crontab");
  }
  // The settings whose value is a program git runs on its own: hooks, the file-system monitor
  // every `git status` starts, the SSH command every fetch and push starts.
  const runs = name === "git" && texts[0] === "config"
    ? texts.find((t) => /^core\.(?:hooksPath|fsmonitor|sshCommand)$/i.test(t))
    : undefined;
  if (runs !== undefined) state.sink.persist(at, new Set<Label>([`persist:${runs}`]), "git config");
  // A git alias that runs a shell (`alias.st '!curl … | sh'`), a package manager's index or
  // registry set for every later install: each runs or fetches what the next command asks.
  if (
    name === "git" && texts[0] === "config" && texts.some((t) => /^alias\./i.test(t)) &&
    texts.some((t) => t.startsWith("!"))
  ) {
    state.sink.persist(at, new Set<Label>(["persist:a git alias that runs a shell"]), "git config");
  }
  const setting = PACKAGE_INDEX_SETTING.exec(`${name} ${texts.join(" ")}`);
  if (setting !== null) {
    state.sink.persist(
      at,
      new Set<Label>(["persist:the package index of every later install"]),
      `${name} config`,
    );
  }
  // A package's install script (`npm pkg set scripts.postinstall=…`): run by every later
  // `npm install` of it, in the user's project.
  if (
    /^(?:npm|pnpm)$/.test(name) && texts[0] === "pkg" && texts[1] === "set" &&
    texts.some((t) => /^scripts\.(?:pre|post)?(?:install|prepare)\b/.test(t))
  ) {
    state.sink.persist(at, new Set<Label>(["persist:a package's install script"]), `${name} pkg`);
  }
  // A file edited in place (`sed -i '$a …' ~/.bashrc`, `perl -pi -e … ~/.zshrc`).
  if (/^(?:sed|gsed|perl)$/.test(name) && texts.some((t) => /^-[a-zA-Z]*i/.test(t))) {
    for (const t of texts.slice(1)) if (!t.startsWith("-")) persistTo(state, at, t, name);
  }
}
