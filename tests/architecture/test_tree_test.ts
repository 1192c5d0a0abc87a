/**
 * The house rules for tests/ (ARCHITECTURE.md, "Tests"): tests/ mirrors src/ — a unit test
 * stands in the folder named like the source folder it tests — its folders stay as small as
 * src/'s, and every module of src/runtime/ is imported by a unit test or named, in
 * runtime_e2e_coverage.ts, with the end-to-end test that runs it.
 */

import assert from "node:assert/strict";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { RUNTIME_E2E_COVERED } from "./runtime_e2e_coverage.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const TESTS = join(ROOT, "tests");

/** At most this many modules in a test folder, as in a folder of src/. */
const MAX_MODULES = 11;

/** Test folders that hold more by design, with the reason. */
const CROWDED_BY_DESIGN: Readonly<Record<string, string>> = {
  "tests/helpers": "the helpers every test folder shares: one place to look for one",
};

/** Test folders that stand for no source folder: the whole CLI run, attacks, docs, data. */
const NOT_MIRRORED = [
  "tests/architecture",
  "tests/cli_runs",
  "tests/docs",
  "tests/e2e",
  "tests/fixtures",
  "tests/hardening",
  "tests/helpers",
  "tests/python",
  "tests/scripts",
  "tests/skills",
  "tests/units",
  "tests/cli/help_snapshots",
];

/** Test folders without a unit test of src/ in them (their files spawn the real CLI). */
const NOT_UNIT = ["tests/e2e", "tests/hardening"];

function folders(dir: string, out: string[] = []): string[] {
  out.push(dir);
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) folders(join(dir, entry.name), out);
  }
  return out;
}

function files(dir: string, keep: (name: string) => boolean): string[] {
  return folders(dir).flatMap((folder) =>
    [...Deno.readDirSync(folder)].filter((e) => e.isFile && keep(e.name))
      .map((e) => join(folder, e.name))
  );
}

const under = (path: string, roots: readonly string[]) =>
  roots.some((root) => path === root || path.startsWith(`${root}/`));

/** A folder holding more modules than the cap, unless it says why. */
export function crowdedFolders(
  listing: ReadonlyMap<string, readonly string[]>,
  allowed: Readonly<Record<string, string>> = CROWDED_BY_DESIGN,
): string[] {
  return [...listing].map(([folder, names]) =>
    [folder, names.filter((n) => n.endsWith(".ts"))] as const
  )
    .filter(([folder, modules]) => modules.length > MAX_MODULES && !(folder in allowed))
    .map(([folder, modules]) =>
      `${folder} holds ${modules.length} modules (at most ${MAX_MODULES})`
    );
}

/** A test folder of a layer (tests/core/x) whose source folder (src/core/x) does not exist. */
export function unmirrored(testFolders: readonly string[], exists: (path: string) => boolean) {
  return testFolders.filter((folder) => folder !== "tests" && !under(folder, NOT_MIRRORED))
    .filter((folder) => !exists(folder.replace(/^tests/, "src")))
    .map((folder) => `${folder} has no ${folder.replace(/^tests/, "src")}`);
}

const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\bnew URL\(\s*)["'](\.\.?\/[^"']+)["']/gm;

/** The source files each test file names by a relative specifier. */
function importedBy(testFiles: readonly string[]): Set<string> {
  const imported = new Set<string>();
  for (const file of testFiles) {
    for (const match of Deno.readTextFileSync(join(ROOT, file)).matchAll(SPECIFIER)) {
      imported.add(normalize(relative(ROOT, resolve(join(ROOT, dirname(file)), match[1]!))));
    }
  }
  return imported;
}

/** Runtime modules neither imported by a unit test nor listed; listed ones that must leave. */
export function coverageProblems(
  modules: readonly string[],
  imported: ReadonlySet<string>,
  listed: Readonly<Record<string, string>>,
  exists: (path: string) => boolean,
): string[] {
  const problems: string[] = [];
  for (const module of modules) {
    if (!imported.has(module) && !(module in listed)) {
      problems.push(`${module}: no unit test imports it and no e2e test is named for it`);
    }
  }
  for (const [module, test] of Object.entries(listed)) {
    if (!modules.includes(module)) problems.push(`${module} is listed but is no runtime module`);
    else if (imported.has(module)) problems.push(`${module} has a unit test now: strike its line`);
    if (!exists(test) || !under(test, NOT_UNIT)) {
      problems.push(`${module}: ${test} is no e2e or hardening test file`);
    }
  }
  return problems;
}

const existsAt = (path: string) => {
  try {
    Deno.statSync(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
};

const rel = (path: string) => relative(ROOT, path);

Deno.test("every folder of tests/ is as small as a folder of src/", () => {
  const listing = new Map(
    folders(TESTS).map((folder) => [
      rel(folder),
      [...Deno.readDirSync(folder)].filter((e) => e.isFile).map((e) => e.name),
    ]),
  );
  assert.ok(listing.has("tests/e2e/lifecycle") && listing.has("tests/core/manifest"));
  assert.deepEqual(crowdedFolders(listing), []);
});

Deno.test("tests/ mirrors src/: a unit test folder is named for the source folder it tests", () => {
  const testFolders = folders(TESTS).map(rel);
  assert.ok(testFolders.includes("tests/runtime/exec") && testFolders.includes("tests/agent/chat"));
  assert.deepEqual(unmirrored(testFolders, existsAt), []);
});

Deno.test("every runtime module is imported by a unit test or named with its e2e test", () => {
  const unitTests = files(TESTS, (name) => name.endsWith("_test.ts")).map(rel)
    .filter((file) => !under(file, NOT_UNIT));
  const modules = files(join(ROOT, "src/runtime"), (n) => n.endsWith(".ts") && n !== "mod.ts")
    .map(rel);
  assert.ok(modules.includes("src/runtime/lifecycle/commit.ts"));
  assert.deepEqual(
    coverageProblems(modules, importedBy(unitTests), RUNTIME_E2E_COVERED, existsAt),
    [],
  );
});

Deno.test("the tests' rules refuse a crowded folder, a stray folder and an untested module", () => {
  const crowded = Array.from({ length: MAX_MODULES + 1 }, (_, i) => `m${i}_test.ts`);
  assert.deepEqual(crowdedFolders(new Map([["tests/core/x", crowded]])), [
    "tests/core/x holds 12 modules (at most 11)",
  ]);
  assert.deepEqual(crowdedFolders(new Map([["tests/helpers", crowded]])), []);
  const exists = (path: string) => ["src/core/audit", "tests/e2e/a_test.ts"].includes(path);
  assert.deepEqual(unmirrored(["tests/core/audit", "tests/core/auditing", "tests/e2e/x"], exists), [
    "tests/core/auditing has no src/core/auditing",
  ]);
  const modules = ["src/runtime/a.ts", "src/runtime/b.ts", "src/runtime/c.ts"];
  assert.deepEqual(
    coverageProblems(modules, new Set(["src/runtime/a.ts"]), {
      "src/runtime/a.ts": "tests/e2e/a_test.ts",
      "src/runtime/c.ts": "tests/runtime/c_test.ts",
      "src/runtime/gone.ts": "tests/e2e/a_test.ts",
    }, exists),
    [
      "src/runtime/b.ts: no unit test imports it and no e2e test is named for it",
      "src/runtime/a.ts has a unit test now: strike its line",
      "src/runtime/c.ts: tests/runtime/c_test.ts is no e2e or hardening test file",
      "src/runtime/gone.ts is listed but is no runtime module",
    ],
  );
});
