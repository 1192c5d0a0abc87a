/**
 * The house rules of ARCHITECTURE.md, checked on the source tree: the layers import only
 * downwards, runtime subsystems form no circle, `core/` never touches `Deno.*`, subsystem
 * folders (every folder of src/) stay small with a mod.ts header, and CLI commands leave the install protocol to the lifecycle.
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

Deno.test("CLI commands leave staging and the intent journal to the lifecycle", () => {
  for (const command of ["add", "update", "remove", "trust", "untrust"]) {
    const file = join(SRC, "cli", "commands", `${command}.ts`);
    const text = Deno.readTextFileSync(file);
    assert.doesNotMatch(text, /store\/staging\.ts|writeIntent|createStaging|cleanStale/, command);
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
      if (entry.name !== "runtime") collect(path);
      else for (const sub of Deno.readDirSync(path)) folders.push(`${rel}/${sub.name}`);
    }
  };
  collect(SRC);
  assert.deepEqual(described, [...new Set(folders)].sort());
});

Deno.test("the binary's --allow-run list is the script-language registry's programs", async () => {
  const { allowedPrograms } = await import("../../src/core/scripts/script_language.ts");
  const { CLI_FLAGS } = await import("../helpers/cli.ts");
  const wanted = [...allowedPrograms()].sort();
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const lists = [
    // The tasks that run the CLI with the binary's permissions (not the build scripts').
    ...["skills", "compile"].map((task) =>
      [`deno.json task ${task}`, config.tasks[task].command as string] as const
    ),
    ["tests/helpers/cli.ts CLI_FLAGS", CLI_FLAGS.join(" ")] as const,
  ];
  let seen = 0;
  for (const [where, text] of lists) {
    for (const match of text.matchAll(/--allow-run=([\w,.-]+)/g)) {
      seen++;
      assert.deepEqual(match[1]!.split(",").sort(), wanted, `${where}: ${match[1]}`);
    }
  }
  assert.equal(seen, 3, "the skills and compile tasks and the tests' flags name programs");
});
