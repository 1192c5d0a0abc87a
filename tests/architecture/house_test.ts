/**
 * The house rules of ARCHITECTURE.md, checked on the source tree: the layers import only
 * downwards, runtime subsystems form no circle, `core/` never touches `Deno.*`, subsystem
 * folders (every folder of src/) stay small with a mod.ts header, a folder that declares a
 * stack of modules (runtime/git) keeps to it, CLI commands leave the install protocol to the
 * lifecycle, cli/ holds commands and rendering only (no filesystem, process or network call
 * of its own, no low-level os/store module), a command is two files: its spec and its module
 * (help, parse and run from the spec), a function over 80 lines says why (`long because:`)
 * and no such reason stands above a function that is not, and a test helper is written once
 * (tests/helpers/).
 */

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const SRC = join(ROOT, "src");

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) walk(path, out);
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.\.?\/[^"']+)["']/gm;

/** Every source file with the source files it imports (relative specifiers only). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of walk(SRC)) {
    const text = Deno.readTextFileSync(file);
    const targets = [...text.matchAll(SPECIFIER)].map((m) =>
      relative(ROOT, resolve(dirname(file), m[1]!))
    );
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** `src/runtime/git/fetch.ts` → `runtime/git`; `src/cli/x.ts` → `cli`; `mod.ts` → `mod`. */
function unitOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] !== "src") return parts[0]!;
  if (parts[1] === "runtime" || parts[1] === "cli") {
    return parts.length > 3 ? `${parts[1]}/${parts[2]}` : parts[1]!;
  }
  return parts.length > 2 ? parts[1]! : "entry";
}

/** Which units each unit may import (besides itself), as each folder's mod.ts declares. */
async function layers(): Promise<Map<string, readonly string[]>> {
  const allowed = new Map<string, readonly string[]>();
  for (const file of walk(SRC).filter((f) => f.endsWith("/mod.ts"))) {
    const { LAYER } = await import(`file://${file}`);
    // A subject folder inside a unit (core/manifest, agent/chat) documents itself only:
    // the unit's own mod.ts declares the layer for all of it.
    if (LAYER === undefined) continue;
    assert.equal(LAYER.owns, unitOf(relative(ROOT, file)), `${file} names its own folder`);
    allowed.set(LAYER.owns, LAYER.mayImport);
  }
  return allowed;
}

Deno.test("every import goes down the layers: core ← runtime ← agent/mcp ← cli", async () => {
  const allowedBy = await layers();
  for (const folder of ["core", "agent", "mcp", "runtime/os", "runtime/exec", "runtime/audit"]) {
    assert.ok(allowedBy.has(folder), `${folder} declares its layer`);
  }
  const violations: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = unitOf(file);
    const allowed = allowedBy.get(from);
    if (allowed === undefined) continue; // cli, entry points: may import anything below
    for (const target of targets) {
      const to = unitOf(target);
      if (to !== from && !allowed.includes(to)) violations.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(violations, []);
});

/** Each folder whose mod.ts declares `LAYER.stack` (its modules, bottom first), by folder path. */
async function stacks(): Promise<Map<string, readonly string[]>> {
  const declared = new Map<string, readonly string[]>();
  for (const file of walk(SRC).filter((f) => f.endsWith("/mod.ts"))) {
    const { LAYER } = await import(`file://${file}`);
    if (LAYER?.stack !== undefined) declared.set(relative(ROOT, dirname(file)), LAYER.stack);
  }
  return declared;
}

/**
 * Where the imports inside `folder` break its declared stack (bottom first): a module that
 * imports one at or above itself, or a module the stack does not place.
 */
function stackViolations(
  folder: string,
  stack: readonly string[],
  graph: ReadonlyMap<string, readonly string[]>,
): string[] {
  const inFolder = (path: string) => dirname(path) === folder && !path.endsWith("/mod.ts");
  const levelOf = (path: string) => stack.indexOf(path.slice(folder.length + 1, -".ts".length));
  const violations: string[] = [];
  for (const [file, targets] of graph) {
    if (!inFolder(file)) continue;
    const level = levelOf(file);
    if (level === -1) {
      violations.push(`${file} is not in ${folder}'s stack`);
      continue;
    }
    for (const target of targets.filter(inFolder)) {
      if (levelOf(target) >= level) violations.push(`${file} → ${target} (not below it)`);
    }
  }
  return violations.sort();
}

Deno.test("a declared stack holds: runtime/git is command ← fetch ← local_read", async () => {
  const declared = await stacks();
  assert.deepEqual(declared.get("src/runtime/git"), ["command", "fetch", "local_read"]);
  const graph = importGraph();
  const violations = [...declared].flatMap(([folder, stack]) =>
    stackViolations(folder, stack, graph)
  );
  assert.deepEqual(violations, []);
});

Deno.test("the stack rule refuses a planted upward import and a module out of the stack", () => {
  const git = "src/runtime/git";
  const stack = ["command", "fetch", "local_read"];
  const layered = new Map([
    [`${git}/command.ts`, ["src/core/errors.ts"]],
    [`${git}/fetch.ts`, [`${git}/command.ts`]],
    [`${git}/local_read.ts`, [`${git}/fetch.ts`, `${git}/command.ts`]],
    [`${git}/mod.ts`, []],
  ]);
  assert.deepEqual(stackViolations(git, stack, layered), []);
  const planted = new Map([
    ...layered,
    [`${git}/fetch.ts`, [`${git}/command.ts`, `${git}/local_read.ts`]],
    [`${git}/sideways.ts`, [`${git}/command.ts`]],
  ]);
  assert.deepEqual(stackViolations(git, stack, planted), [
    `${git}/fetch.ts → ${git}/local_read.ts (not below it)`,
    `${git}/sideways.ts is not in ${git}'s stack`,
  ]);
});

/** `core/audit/flow` → `core`; `runtime/exec/spawn` → `runtime/exec`: whose folders are ordered. */
function topFolderOf(folder: string): string {
  const parts = folder.split("/");
  return parts.slice(0, parts[0] === "runtime" ? 2 : 1).join("/");
}

/** Each top-level folder's declared order of its folders (`LAYER.folders`, bottom first). */
async function folderOrders(): Promise<Map<string, readonly string[]>> {
  const declared = new Map<string, readonly string[]>();
  for (const file of walk(SRC).filter((f) => f.endsWith("/mod.ts"))) {
    const { LAYER } = await import(`file://${file}`);
    if (LAYER?.folders !== undefined) declared.set(LAYER.owns, LAYER.folders);
  }
  return declared;
}

/** Every folder of src/ that holds modules, from src/ (`core/audit/flow`), generated aside. */
function moduleFolders(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const folders = new Set([...graph.keys()].map((file) => dirname(file).slice("src/".length)));
  return [...folders].filter((f) => f !== "" && f !== "src" && !f.startsWith("generated"));
}

/**
 * Where the folders inside one top-level folder (core, agent, cli, runtime/exec) break the
 * order it declares: a top-level folder of several folders that declares none or leaves one
 * out, and an import from a folder to one not below it — so no two of them import each
 * other, and no circle runs through three.
 */
function folderOrderViolations(
  graph: ReadonlyMap<string, readonly string[]>,
  orders: ReadonlyMap<string, readonly string[]>,
): string[] {
  const problems: string[] = [];
  const byTop = Map.groupBy(moduleFolders(graph), topFolderOf);
  for (const [top, folders] of byTop) {
    const order = orders.get(top);
    if (order === undefined) {
      if (folders.length > 1) {
        problems.push(`${top} holds ${folders.length} folders and declares no order`);
      }
      continue;
    }
    for (const folder of folders) {
      if (!order.includes(folder)) problems.push(`${folder} is not in ${top}'s order`);
    }
  }
  const folderOf = (file: string) => dirname(file).slice("src/".length);
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const order = orders.get(topFolderOf(from));
    if (order === undefined || !order.includes(from)) continue;
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from || topFolderOf(to) !== topFolderOf(from)) continue;
      if (order.indexOf(to) > order.indexOf(from) || !order.includes(to)) {
        problems.push(`${file} → ${target} (${to} is not below ${from})`);
      }
    }
  }
  return problems.sort();
}

Deno.test("the folders inside core, agent, cli and runtime/exec import only down their declared order", async () => {
  const orders = await folderOrders();
  for (const top of ["core", "agent", "cli", "runtime/exec"]) {
    assert.ok(orders.has(top), `${top} declares the order of its folders`);
  }
  assert.deepEqual(folderOrderViolations(importGraph(), orders), []);
});

Deno.test("the folder-order rule refuses two folders that import each other, and one left out", () => {
  const orders = new Map([["core", ["core", "core/policy", "core/manifest"]]]);
  const layered = new Map([
    ["src/core/errors.ts", []],
    ["src/core/policy/env_policy.ts", ["src/core/errors.ts"]],
    ["src/core/manifest/manifest.ts", ["src/core/policy/env_policy.ts", "src/core/errors.ts"]],
  ]);
  assert.deepEqual(folderOrderViolations(layered, orders), []);
  const planted = new Map([
    ...layered,
    ["src/core/policy/env_policy.ts", ["src/core/manifest/manifest.ts"]],
    ["src/core/records/scope.ts", ["src/core/errors.ts"]],
    ["src/agent/surface/tools.ts", ["src/agent/library/library.ts"]],
    ["src/agent/library/library.ts", ["src/agent/surface/tools.ts"]],
  ]);
  assert.deepEqual(folderOrderViolations(planted, orders), [
    "agent holds 2 folders and declares no order",
    "core/records is not in core's order",
    "src/core/policy/env_policy.ts → src/core/manifest/manifest.ts (core/manifest is not below core/policy)",
  ]);
});

Deno.test("no import circle between source files", () => {
  const graph = importGraph();
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      cycles.push([...path.slice(path.indexOf(file)), file].join(" → "));
      return;
    }
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

Deno.test("core/ is pure: no Deno.* anywhere in it", () => {
  const offenders = walk(join(SRC, "core")).flatMap((file) =>
    Deno.readTextFileSync(file).split("\n").flatMap((line, i) =>
      /\bDeno\./.test(line.replace(/\/\/.*$|^\s*\*.*$/, ""))
        ? [`${relative(ROOT, file)}:${i + 1}`]
        : []
    )
  );
  assert.deepEqual(offenders, []);
});

/** Folders that hold one file per command by design (described with cli/ in ARCHITECTURE). */
const ONE_PER_COMMAND = ["src/cli/commands", "src/cli/specs"];
/** At most this many modules in a folder besides its mod.ts header. */
const MAX_MODULES = 11;

/** Every folder under `root` that must be small: all but generated code and the command folders. */
function sourceFolders(root: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(root)) {
    if (!entry.isDirectory || entry.name === "generated") continue;
    const path = join(root, entry.name);
    if (!ONE_PER_COMMAND.includes(relative(ROOT, path))) out.push(path);
    out.push(...sourceFolders(path));
  }
  return out;
}

/** Problems with one folder: too many modules, or no mod.ts saying what it owns. */
function folderProblems(dir: string): string[] {
  const files = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".ts"))
    .map((e) => e.name);
  const problems: string[] = [];
  const modules = files.filter((f) => f !== "mod.ts").length;
  const rel = relative(ROOT, dir);
  if (modules > MAX_MODULES) {
    problems.push(`${rel} holds ${modules} modules (at most ${MAX_MODULES})`);
  }
  if (!files.includes("mod.ts")) problems.push(`${rel} has no mod.ts header`);
  return problems;
}

Deno.test("every folder of src/ is small and says what it owns", () => {
  const runtime = join(SRC, "runtime");
  const loose = [...Deno.readDirSync(runtime)].filter((e) => e.isFile).map((e) => e.name);
  assert.deepEqual(loose, [], "runtime/ holds folders only");
  const folders = sourceFolders(SRC).filter((dir) => dir !== runtime);
  for (const unit of ["src/core/manifest", "src/agent/chat", "src/cli/ui", "src/runtime/exec"]) {
    assert.ok(folders.includes(join(ROOT, unit)), `${unit} is checked`);
  }
  assert.deepEqual(folders.flatMap(folderProblems), []);
});

Deno.test("the folder rule refuses a crowded folder and one without a header", () => {
  const dir = Deno.makeTempDirSync({ prefix: "house-" });
  try {
    for (let i = 0; i <= MAX_MODULES; i++) Deno.writeTextFileSync(join(dir, `m${i}.ts`), "");
    const problems = folderProblems(dir);
    assert.equal(problems.length, 2, problems.join("; "));
    assert.match(problems[0]!, /holds 12 modules/);
    assert.match(problems[1]!, /no mod\.ts header/);
    Deno.writeTextFileSync(join(dir, "mod.ts"), "/** header */\n");
    Deno.removeSync(join(dir, "m0.ts"));
    assert.deepEqual(folderProblems(dir), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("CLI commands leave staging and the journal to the lifecycle", () => {
  const files = ["add", "update", "remove", "trust", "untrust", "install"].map((command) =>
    join(SRC, "cli", "commands", `${command}.ts`)
  );
  for (const file of [...files, join(SRC, "cli", "ui", "add_ui.ts")]) {
    const text = Deno.readTextFileSync(file);
    assert.doesNotMatch(
      text,
      /store\/(staging|journal|recovery)\.ts|writeJournal|createStaging|cleanStale|commitFolders|stageCopy/,
      file,
    );
  }
});

/**
 * What only runtime does for the CLI: the filesystem, processes and the network called
 * directly (Deno's APIs, `fetch(`, node's modules for them) — a method named `fetch` of a
 * runtime object (`change.fetch(`) is a workflow asked, not a call to the network.
 */
const EDGE_CALL =
  /\bDeno\.(?:readFile|readTextFile|readDir|readLink|writeFile|writeTextFile|stat|lstat|realPath|open|create|mkdir|makeTemp\w*|remove|rename|copyFile|symlink|link|chmod|chown|truncate|utime|Command|run|kill|connect\w*|listen\w*|serve\w*|watchFs)(?:Sync)?\b|(?<![.\w])fetch\(|["']node:(?:fs|child_process|net|http|https)(?:\/\w+)?["']/;
/**
 * The low-level modules a command would drive itself: files and tool probes (runtime/os),
 * the registry, lock, staging and records (runtime/store, but for `home.ts`, which only
 * says where `$SKILLS_HOME` is). A runtime workflow imports them for the command.
 */
const LOW_LEVEL_IMPORT =
  /["'][^"']*runtime\/(?:os\/(?:fs|probe|timer)|store\/(?!home\.ts)\w+)\.ts["']/;

/**
 * Files of src/cli that may still break the rule, each with why. The commands others are
 * changing keep their workflow until their own change moves it.
 */
const CLI_WORKFLOW_ALLOWED: Readonly<Record<string, string>> = {};

/**
 * Where the CLI does workflow work itself, by `path → text` of its files: a direct call of
 * the filesystem, processes or network, or an import of a low-level os/store module.
 * Comments are not read; files in `allowed` are skipped.
 */
function cliEdgeViolations(
  files: ReadonlyMap<string, string>,
  allowed: Readonly<Record<string, string>>,
): string[] {
  const violations: string[] = [];
  for (const [file, text] of files) {
    if (file in allowed) continue;
    text.split("\n").forEach((line, i) => {
      const code = line.replace(/\/\/.*$|^\s*\*.*$|^\s*\/\*.*$/, "");
      const found = code.match(EDGE_CALL) ?? code.match(LOW_LEVEL_IMPORT);
      if (found) violations.push(`${file}:${i + 1} ${found[0]}`);
    });
  }
  return violations.sort();
}

/** Every source file of src/cli (generated registry files included), by path. */
function cliFiles(): Map<string, string> {
  return new Map(
    walk(join(SRC, "cli")).map((f) => [relative(ROOT, f), Deno.readTextFileSync(f)]),
  );
}

Deno.test("cli holds commands and rendering: no filesystem, process or network call of its own", () => {
  const files = cliFiles();
  assert.deepEqual(cliEdgeViolations(files, CLI_WORKFLOW_ALLOWED), []);
  // An entry stays only while its file needs it: one that keeps to the rule is removed.
  for (const file of Object.keys(CLI_WORKFLOW_ALLOWED)) {
    assert.ok(files.has(file), `${file} is allow-listed but does not exist`);
    assert.notDeepEqual(
      cliEdgeViolations(new Map([[file, files.get(file)!]]), {}),
      [],
      `${file} keeps to the rule now: remove its entry from CLI_WORKFLOW_ALLOWED`,
    );
  }
});

Deno.test("the cli rule refuses planted filesystem, process, network and store use", () => {
  const files = new Map([
    [
      "src/cli/commands/fine.ts",
      [
        'import { skillsHome } from "../../runtime/store/home.ts";',
        'import { examine } from "../../runtime/inspect/doctor.ts";',
        "// Deno.readTextFile is the runtime's: said in a comment, not called.",
        "const fetched = await change.fetch(source, request);",
      ].join("\n"),
    ],
    [
      "src/cli/commands/planted.ts",
      [
        'import { readRegistry } from "../../runtime/store/registry.ts";',
        "const text = await Deno.readTextFile(path);",
        'const child = new Deno.Command("git", { args });',
        'const reply = await fetch("https://example.com");',
        'const { lstatOrNull } = await import("../../runtime/os/fs.ts");',
        "const real = Deno.realPathSync(dir);",
      ].join("\n"),
    ],
    ["src/cli/ui/planted_ui.ts", 'import { writeFileSync } from "node:fs";'],
  ]);
  assert.deepEqual(cliEdgeViolations(files, {}), [
    'src/cli/commands/planted.ts:1 "../../runtime/store/registry.ts"',
    "src/cli/commands/planted.ts:2 Deno.readTextFile",
    "src/cli/commands/planted.ts:3 Deno.Command",
    "src/cli/commands/planted.ts:4 fetch(",
    'src/cli/commands/planted.ts:5 "../../runtime/os/fs.ts"',
    "src/cli/commands/planted.ts:6 Deno.realPathSync",
    'src/cli/ui/planted_ui.ts:1 "node:fs"',
  ]);
  assert.deepEqual(
    cliEdgeViolations(files, {
      "src/cli/commands/planted.ts": "a reason",
      "src/cli/ui/planted_ui.ts": "another",
    }),
    [],
  );
});

/**
 * A command is its spec (src/cli/specs/<name>.ts) and its module (src/cli/commands/<name>.ts,
 * whose help and parse come from `defineCommand(<name>Spec, …)` and which exports `run`);
 * the registry is generated from the specs (scripts/gen_commands.ts). Returns what breaks
 * that in the cli folder `cli`.
 */
function commandRuleViolations(cli: string): string[] {
  const names = (dir: string) =>
    [...Deno.readDirSync(join(cli, dir))]
      .filter((e) => e.isFile && e.name.endsWith(".ts") && e.name !== "all.ts")
      .map((e) => e.name.slice(0, -3)).sort();
  const specs = names("specs");
  const commands = names("commands");
  const modules = Deno.readTextFileSync(join(cli, "commands", "all.ts"));
  const index = Deno.readTextFileSync(join(cli, "command_table", "command_index.ts"));
  const problems: string[] = [];
  for (const name of new Set([...specs, ...commands])) {
    if (!specs.includes(name)) problems.push(`commands/${name}.ts has no specs/${name}.ts`);
    if (!commands.includes(name)) problems.push(`specs/${name}.ts has no commands/${name}.ts`);
    if (!modules.includes(`import("./${name}.ts")`)) {
      problems.push(`${name} is missing from the generated commands/all.ts`);
    }
    if (!index.includes(`name: ${JSON.stringify(name)},`)) {
      problems.push(`${name} is missing from the generated command_index.ts`);
    }
    if (!commands.includes(name)) continue;
    const text = Deno.readTextFileSync(join(cli, "commands", `${name}.ts`));
    const spec = `${name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Spec`;
    if (
      !new RegExp(`export const \\{ help, parse \\} = defineCommand\\(\\s*${spec}\\b`).test(text)
    ) {
      problems.push(`commands/${name}.ts: help and parse must come from defineCommand(${spec}, …)`);
    }
    if (!/^export (async )?function run\(/m.test(text)) {
      problems.push(`commands/${name}.ts exports no run function`);
    }
    // Reading argv by hand: the spec's parser (and its value parsers) does that.
    const handParsing = text.match(
      /\b(parseSpec|parseCommand|commonFlags)\b|\bDeno\.args\b|\(\s*argv\s*:|\bNumber\(values\b|renderHelp\(/,
    );
    if (handParsing) {
      problems.push(`commands/${name}.ts parses its own arguments (${handParsing[0]})`);
    }
    // The options type is inferred from the spec (`OptionsOf<typeof parse>`), not restated.
    if (/\binterface \w*Options\b|\bParsedCommon\b/.test(text)) {
      problems.push(`commands/${name}.ts restates its options in a type of its own`);
    }
  }
  return problems;
}

Deno.test("a command is its spec and its run function, and the registry is generated", () => {
  assert.deepEqual(commandRuleViolations(join(SRC, "cli")), []);
});

Deno.test('ARCHITECTURE.md\'s "where to add" row for a command names its two files', () => {
  const text = Deno.readTextFileSync(join(ROOT, "ARCHITECTURE.md"));
  const row = text.match(/^\| a command +\|(.*)\|$/m);
  assert.ok(row, "ARCHITECTURE.md has a where-to-add row for a command");
  const files = new Set([...row[1]!.matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]));
  assert.deepEqual([...files], ["src/cli/specs/<name>.ts", "src/cli/commands/<name>.ts"]);
});

Deno.test("the command rule fails on a planted hand-written parser and an unregistered command", () => {
  const cli = Deno.makeTempDirSync();
  try {
    for (const dir of ["specs", "commands"]) {
      Deno.mkdirSync(join(cli, dir));
      for (const entry of Deno.readDirSync(join(SRC, "cli", dir))) {
        Deno.copyFileSync(join(SRC, "cli", dir, entry.name), join(cli, dir, entry.name));
      }
    }
    Deno.mkdirSync(join(cli, "command_table"));
    const index = join("command_table", "command_index.ts");
    Deno.copyFileSync(join(SRC, "cli", index), join(cli, index));
    assert.deepEqual(commandRuleViolations(cli), []);

    // A command that reads its argv by hand again, as commands did before defineCommand.
    const list = join(cli, "commands", "list.ts");
    Deno.writeTextFileSync(
      list,
      Deno.readTextFileSync(list).replace(
        /export const \{ help, parse \} = defineCommand\(/,
        `export const help = renderHelp(listSpec);
interface ListOptions extends ParsedCommon {}
export function parse(argv: readonly string[]) {
  const { values } = parseSpec(listSpec, argv);
  return commonFlags(values);
}
const unused = defineCommand(`,
      ),
    );
    // A new command whose spec and module exist but the registry was not regenerated.
    Deno.writeTextFileSync(join(cli, "specs", "hello.ts"), "export const helloSpec = {};\n");
    Deno.writeTextFileSync(
      join(cli, "commands", "hello.ts"),
      `export const { help, parse } = defineCommand(helloSpec, ({ common }) => common);
export async function run() {
  return 0;
}
`,
    );
    assert.deepEqual(commandRuleViolations(cli), [
      "hello is missing from the generated commands/all.ts",
      "hello is missing from the generated command_index.ts",
      "commands/list.ts: help and parse must come from defineCommand(listSpec, …)",
      "commands/list.ts parses its own arguments (renderHelp()",
      "commands/list.ts restates its options in a type of its own",
    ]);
  } finally {
    Deno.removeSync(cli, { recursive: true });
  }
});

Deno.test("ARCHITECTURE.md describes every source folder, and only folders that exist", () => {
  const text = Deno.readTextFileSync(join(ROOT, "ARCHITECTURE.md"));
  const described = [...text.matchAll(/^\| `(src\/[^`]+)\/` +\|/gm)].map((m) => m[1]!).sort();
  const folders: string[] = [];
  const collect = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.isDirectory || entry.name === "generated") continue;
      const path = join(dir, entry.name);
      const rel = relative(ROOT, path);
      // cli/commands and cli/specs are described with cli/; runtime/ only holds subsystems.
      if (!/^src\/(cli\/(commands|specs)|runtime)$/.test(rel)) folders.push(rel);
      collect(path);
    }
  };
  collect(SRC);
  assert.deepEqual(described, folders.sort());
});

Deno.test("the binary's --allow-run list is the script-language registry's programs", async () => {
  // The one list compared here: the skills task and the tests' CLI_FLAGS are checked against
  // the compile task (tests/cli/permission_flags_test.ts), and `deno task gen` writes every
  // list (tests/docs/reference_test.ts).
  const { allowedPrograms } = await import("../../src/core/scripts/script_language.ts");
  const wanted = [...allowedPrograms()].sort();
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const lists = [...(config.tasks.compile.command as string).matchAll(/--allow-run=([\w,.-]+)/g)];
  assert.equal(lists.length, 1, "the compile task names the programs the binary may start");
  assert.deepEqual(lists[0]![1]!.split(",").sort(), wanted);
});

/** Functions longer than this carry a reason: a rule written as a long function hides its rows. */
const MAX_FUNCTION_LINES = 80;
/** The comment right above a long function says why it is long, after this marker. */
const LONG_MARKER = "long because:";
/** A line of a comment (`//`, `/*`, or a ` * ` continuation). */
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

/** A function of a file as the rules see it: its name, its lines (1-based), the comment above. */
interface FunctionSpan {
  name: string;
  line: number;
  lines: number;
  /** The 1-based lines of the comment block right above the line the function starts on. */
  comment: number[];
}

/** Every function (declaration, expression, arrow, method) of `source`, with its span. */
function functionSpans(file: string, source: string): FunctionSpan[] {
  const lines = source.split("\n");
  const lineOf = (offset: number) => source.slice(0, offset).split("\n").length;
  const spans = new Map<number, Omit<FunctionSpan, "name">>();
  const plugin: Deno.lint.Plugin = {
    name: "house",
    rules: {
      "function-span": {
        create(context) {
          const visit = (node: FunctionNode) => {
            const first = lineOf(node.range[0]);
            const comment: number[] = [];
            for (let above = first - 1; above >= 1 && COMMENT_LINE.test(lines[above - 1]!);) {
              comment.push(above--);
            }
            spans.set(node.range[0], {
              line: first,
              lines: lineOf(node.range[1]) - first + 1,
              comment,
            });
            context.report({ node, message: functionName(node) });
          };
          return {
            FunctionDeclaration: visit,
            FunctionExpression: visit,
            ArrowFunctionExpression: visit,
          };
        },
      },
    },
  };
  return Deno.lint.runPlugin(plugin, file, source).map((d) => ({
    name: d.message,
    ...spans.get(d.range[0])!,
  }));
}

/** Whether a 1-based line of `lines` is a comment line carrying the marker. */
const hasMarker = (lines: readonly string[], line: number) =>
  COMMENT_LINE.test(lines[line - 1]!) && lines[line - 1]!.includes(LONG_MARKER);

/** Every function longer than the limit in `source` whose comment does not say why. */
function longFunctions(file: string, source: string): { name: string; line: number }[] {
  const lines = source.split("\n");
  return functionSpans(file, source)
    .filter((f) => f.lines > MAX_FUNCTION_LINES && !f.comment.some((l) => hasMarker(lines, l)))
    .map(({ name, line }) => ({ name, line }));
}

/**
 * Every marker that stands above no function over the limit: a reason kept after a split (or
 * written for a function that never was long) says a function is long that is not. Named by
 * the function under its comment, if any.
 */
function staleMarkers(file: string, source: string): { name: string; line: number }[] {
  const lines = source.split("\n");
  const spans = functionSpans(file, source);
  const justified = new Set(
    spans.filter((f) => f.lines > MAX_FUNCTION_LINES).flatMap((f) => f.comment),
  );
  return lines.flatMap((_, i) => {
    const line = i + 1;
    if (!hasMarker(lines, line) || justified.has(line)) return [];
    const under = spans.find((f) => f.comment.includes(line));
    return [{ name: under?.name ?? "(no function)", line }];
  });
}

/** A function's name as a reader finds it: declared, the variable, property or method. */
function functionName(node: FunctionNode): string {
  if (node.type === "FunctionDeclaration" && node.id) return node.id.name;
  const parent = node.parent;
  if (parent?.type === "VariableDeclarator" && parent.id.type === "Identifier") {
    return parent.id.name;
  }
  if (
    (parent?.type === "MethodDefinition" || parent?.type === "Property" ||
      parent?.type === "PropertyDefinition") &&
    parent.key.type === "Identifier"
  ) return parent.key.name;
  return "(anonymous)";
}

/** Every file of src/ the function rules read (generated modules are not written by hand). */
const sourceFiles = () => walk(SRC).filter((file) => !file.includes("/generated/"));

Deno.test(`no function in src/ passes ${MAX_FUNCTION_LINES} lines without saying why`, () => {
  const offenders = sourceFiles().flatMap((file) => {
    const rel = relative(ROOT, file);
    return longFunctions(rel, Deno.readTextFileSync(file))
      .map(({ name, line }) => `${rel}:${line} ${name}`);
  });
  assert.deepEqual(offenders, []);
});

Deno.test("the function-length rule refuses a planted long function and hears a reason", () => {
  const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`);
  const planted = ["export function planted() {", ...body, "}"].join("\n");
  assert.deepEqual(longFunctions("planted.ts", planted), [{ name: "planted", line: 1 }]);
  const method = ["class C {", "  run = () => {", ...body, "  };", "}"].join("\n");
  assert.deepEqual(longFunctions("method.ts", method), [{ name: "run", line: 2 }]);
  const reasoned = `/** Reads the thing.\n * ${LONG_MARKER} one table of cases. */\n${planted}`;
  assert.deepEqual(longFunctions("reasoned.ts", reasoned), []);
  const short = ["function short() {", ...body.slice(2), "}"].join("\n");
  assert.deepEqual(longFunctions("short.ts", short), []);
});

/**
 * Stale markers left in files another change holds right now, each with why it is not fixed
 * here. The list only shrinks: an entry no longer stale (or gone) fails the test below, so it
 * leaves the list when its file is free again and its marker is dropped.
 */
const STALE_MARKERS_HELD: ReadonlyMap<string, string> = new Map([]);

Deno.test("a long-because marker stands above a function over the limit", () => {
  const stale = sourceFiles().flatMap((file) => {
    const rel = relative(ROOT, file);
    return staleMarkers(rel, Deno.readTextFileSync(file))
      .map(({ name, line }) => ({ key: `${rel}:${name}`, at: `${rel}:${line} ${name}` }));
  });
  assert.deepEqual(stale.filter((s) => !STALE_MARKERS_HELD.has(s.key)).map((s) => s.at), []);
  const held = [...STALE_MARKERS_HELD.keys()];
  assert.deepEqual(
    held.filter((key) => !stale.some((s) => s.key === key)),
    [],
    "a held stale marker is fixed or gone: take it off STALE_MARKERS_HELD",
  );
});

Deno.test("the stale-marker rule refuses a reason on a short function and keeps a real one", () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`);
  const fn = (name: string, n: number) => [`function ${name}() {`, ...body(n), "}"].join("\n");
  const long = fn("long", MAX_FUNCTION_LINES);
  const short = fn("short", MAX_FUNCTION_LINES - 2);
  const reason = `// ${LONG_MARKER} one table of cases.`;
  assert.deepEqual(staleMarkers("real.ts", `${reason}\n${long}`), []);
  assert.deepEqual(staleMarkers("stale.ts", `${reason}\n${short}`), [{ name: "short", line: 1 }]);
  const block = `/**\n * Reads the thing.\n * ${LONG_MARKER} one table of cases.\n */`;
  assert.deepEqual(staleMarkers("block.ts", `${block}\n${short}`), [{ name: "short", line: 3 }]);
  assert.deepEqual(staleMarkers("split.ts", `${reason}\n\n${short}`), [
    { name: "(no function)", line: 1 },
  ]);
  const text = `const note = "${LONG_MARKER} not a comment";\n${short}`;
  assert.deepEqual(staleMarkers("text.ts", text), []);
});

/**
 * Where one file name is used in src/ for more than one thing: every name once, but for
 * `mod.ts`, the generated `all.ts` of each one-per-command folder (every spec, every
 * command module) and a command's name, which its spec (cli/specs), its module
 * (cli/commands) and the one runtime module it is named after (runtime/workflows/remove.ts)
 * share, and a record's name, which its model (core/records) and its store (runtime/store)
 * share.
 */
function nameClashes(paths: readonly string[], commands: ReadonlySet<string>): string[] {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name === "mod.ts") continue;
    if (name === "all.ts" && ONE_PER_COMMAND.includes(path.slice(0, path.lastIndexOf("/")))) {
      continue;
    }
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const clashes: string[] = [];
  for (const [name, where] of byName) {
    const others = commands.has(name.replace(/\.ts$/, ""))
      ? where.filter((p) => !/^src\/cli\/(commands|specs)\//.test(p))
      : where;
    if (isRecordPair(others)) continue;
    if (others.length > 1) clashes.push(`${name}: ${others.join(", ")}`);
  }
  return clashes.sort();
}

/** A record's model and its store, named alike: `core/records/<x>.ts`, `runtime/store/<x>.ts`. */
function isRecordPair(where: readonly string[]): boolean {
  const name = where[0]?.slice(where[0].lastIndexOf("/") + 1);
  return where.length === 2 && where.includes(`src/core/records/${name}`) &&
    where.includes(`src/runtime/store/${name}`);
}

Deno.test("one name per idea: no file name is used in two folders of src/ for different things", () => {
  const paths = walk(SRC).map((f) => relative(ROOT, f)).filter((p) =>
    !p.startsWith("src/generated/")
  );
  const commands = new Set(
    [...Deno.readDirSync(join(SRC, "cli", "specs"))].map((e) => e.name.replace(/\.ts$/, "")),
  );
  assert.deepEqual(nameClashes(paths, commands), []);
});

/**
 * Where a file is named like a folder of src/ that it is not the main module of: a file
 * `x.ts` beside or away from a folder `x/` says one word for two things (`exec/sandbox.ts`
 * beside `runtime/sandbox/`). A folder's own main module (`catalog/catalog.ts`) and a
 * command's name (its spec, its module, the runtime module named after it) are the one idea.
 */
function folderClashes(paths: readonly string[], commands: ReadonlySet<string>): string[] {
  const folders = new Map<string, string[]>();
  for (const path of paths) {
    const parts = path.split("/").slice(1, -1);
    parts.forEach((name, i) => {
      const folder = `src/${parts.slice(0, i + 1).join("/")}/`;
      const seen = folders.get(name) ?? [];
      if (!seen.includes(folder)) folders.set(name, [...seen, folder]);
    });
  }
  const clashes: string[] = [];
  for (const path of paths) {
    const parts = path.split("/");
    const stem = parts.at(-1)!.replace(/\.ts$/, "");
    const named = folders.get(stem);
    if (named === undefined || commands.has(stem) || parts.at(-2) === stem) continue;
    clashes.push(`${path}: named like ${named.join(", ")}`);
  }
  return clashes.sort();
}

Deno.test("one name per idea: no file of src/ is named like a folder it is not the main module of", () => {
  const paths = walk(SRC).map((f) => relative(ROOT, f)).filter((p) =>
    !p.startsWith("src/generated/")
  );
  const commands = new Set(
    [...Deno.readDirSync(join(SRC, "cli", "specs"))].map((e) => e.name.replace(/\.ts$/, "")),
  );
  assert.deepEqual(folderClashes(paths, commands), []);
});

Deno.test("the folder-name rule refuses exec/sandbox.ts beside runtime/sandbox/, and keeps a folder's main module", () => {
  const paths = [
    "src/runtime/sandbox/launch.ts",
    "src/runtime/catalog/catalog.ts",
    "src/runtime/lifecycle/trust.ts",
    "src/runtime/trust/gate.ts",
    "src/cli/commands/trust.ts",
  ];
  assert.deepEqual(folderClashes(paths, new Set(["trust"])), []);
  assert.deepEqual(folderClashes([...paths, "src/runtime/exec/sandbox.ts"], new Set(["trust"])), [
    "src/runtime/exec/sandbox.ts: named like src/runtime/sandbox/",
  ]);
});

Deno.test("the name rule refuses a name reused for another idea, and keeps a command's trio and a record's pair", () => {
  const commands = new Set(["remove"]);
  const paths = [
    "src/cli/commands/remove.ts",
    "src/cli/specs/remove.ts",
    "src/runtime/lifecycle/remove.ts",
    "src/core/mod.ts",
    "src/runtime/os/mod.ts",
    "src/core/paths.ts",
    "src/runtime/os/paths.ts",
  ];
  assert.deepEqual(nameClashes(paths, commands), [
    "paths.ts: src/core/paths.ts, src/runtime/os/paths.ts",
  ]);
  const records = ["src/core/records/lockfile.ts", "src/runtime/store/lockfile.ts"];
  assert.deepEqual(nameClashes([...paths, ...records], commands), [
    "paths.ts: src/core/paths.ts, src/runtime/os/paths.ts",
  ]);
  assert.deepEqual(
    nameClashes([...paths, ...records, "src/runtime/lifecycle/lockfile.ts"], commands),
    [
      "lockfile.ts: src/core/records/lockfile.ts, src/runtime/store/lockfile.ts, src/runtime/lifecycle/lockfile.ts",
      "paths.ts: src/core/paths.ts, src/runtime/os/paths.ts",
    ],
  );
  assert.deepEqual(nameClashes([...paths, "src/runtime/project/remove.ts"], commands), [
    "paths.ts: src/core/paths.ts, src/runtime/os/paths.ts",
    "remove.ts: src/runtime/lifecycle/remove.ts, src/runtime/project/remove.ts",
  ]);
});

const TESTS = join(ROOT, "tests");

/**
 * Every top-level function of `source` (declared, or an arrow or function expression bound
 * to a const, exported or not) with its text, whitespace folded: two files holding the
 * same text hold one helper twice.
 */
function topLevelFunctions(file: string, source: string): { name: string; text: string }[] {
  const plugin: Deno.lint.Plugin = {
    name: "house",
    rules: {
      "top-level-functions": {
        create(context) {
          return {
            Program(program) {
              for (const statement of program.body) {
                const declaration = statement.type === "ExportNamedDeclaration"
                  ? statement.declaration
                  : statement;
                if (declaration?.type === "FunctionDeclaration" && declaration.id) {
                  context.report({ node: declaration, message: declaration.id.name });
                } else if (declaration?.type === "VariableDeclaration") {
                  for (const bound of declaration.declarations) {
                    const init = bound.init?.type;
                    if (
                      bound.id.type === "Identifier" &&
                      (init === "ArrowFunctionExpression" || init === "FunctionExpression")
                    ) context.report({ node: bound, message: bound.id.name });
                  }
                }
              }
            },
          };
        },
      },
    },
  };
  return Deno.lint.runPlugin(plugin, file, source).map((d) => ({
    name: d.message,
    text: source.slice(d.range[0], d.range[1]).replace(/\s+/g, " "),
  }));
}

/** The functions whose very text stands in more than one file: `name: a.ts, b.ts`. */
function copiedFunctions(sources: ReadonlyMap<string, string>): string[] {
  const byText = new Map<string, { name: string; files: Set<string> }>();
  for (const [file, source] of sources) {
    for (const { name, text } of topLevelFunctions(file, source)) {
      const seen = byText.get(text) ?? { name, files: new Set<string>() };
      seen.files.add(file);
      byText.set(text, seen);
    }
  }
  return [...byText.values()]
    .filter(({ files }) => files.size > 1)
    .map(({ name, files }) => `${name}: ${[...files].sort().join(", ")}`)
    .sort();
}

/**
 * Copies allowed to stand for a while in test files another change is rewriting: none now.
 * The list only shrinks: when one is made a helper of tests/helpers/, the test below fails
 * until its line here is struck.
 */
const KNOWN_COPIES: string[] = [];

Deno.test("a test helper is written once: no function is copied into two test files", () => {
  const sources = new Map(
    walk(TESTS).map((file) => [relative(ROOT, file), Deno.readTextFileSync(file)]),
  );
  assert.deepEqual(copiedFunctions(sources), KNOWN_COPIES);
});

Deno.test("the copy rule refuses a planted copied helper and lets a same-named one differ", () => {
  const helper = "async function home() {\n  return await Deno.makeTempDir();\n}\n";
  const other = "function home() {\n  return '/tmp/other';\n}\n";
  const arrow = "export const json = (text: string) =>\n  JSON.parse(text);\n";
  const sources = new Map([
    ["tests/a_test.ts", `${helper}${arrow}`],
    ["tests/b_test.ts", `${helper.replace("\n  ", " ")}Deno.test("x", () => {});\n`],
    ["tests/c_test.ts", other],
    ["tests/d_test.ts", "const json = (text: string) => JSON.parse(text);\n"],
  ]);
  assert.deepEqual(copiedFunctions(sources), [
    "home: tests/a_test.ts, tests/b_test.ts",
    "json: tests/a_test.ts, tests/d_test.ts",
  ]);
});
