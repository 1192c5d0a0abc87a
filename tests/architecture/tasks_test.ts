/**
 * The gate's tasks (deno.json): `deno task ok` writes the generated modules once, not once per
 * task it runs (each `deno task X` inside a command is a run of its own, with X's
 * dependencies); `deno task test` runs every test file of tests/ once, its slowest files named
 * first (each a file that exists), the unit files in the shard modules of tests/units/, the
 * other files of the folders that spawn the CLI in those of tests/cli_runs/,
 * type-checked by `ok` once; `test:quick` runs every unit test file once, in those shards.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import {
  CLI_FOLDERS,
  CLI_SHARDS,
  cliShardedFiles,
  cliShardFiles,
  namedTestFiles,
  shardFiles,
  testFilesUnder,
  UNIT_FOLDERS,
  UNIT_SHARDS,
  unitTestFiles,
} from "../helpers/shards.ts";

interface Task {
  command?: string;
  dependencies?: string[];
}

const TASKS: Record<string, Task> = JSON.parse(
  Deno.readTextFileSync(join(REPO_ROOT, "deno.json")),
).tasks;

/**
 * How many times running `name` runs `target`: once through its dependencies however many
 * lead there (one `deno task` run runs each task once), plus once per nested `deno task` of
 * its command (quoted text, such as a message, is no command).
 */
export function runsOf(tasks: Record<string, Task>, name: string, target: string): number {
  if (name === target) return 1;
  const task = tasks[name];
  if (task === undefined) return 0;
  const command = (task.command ?? "").replace(/"(?:[^"\\]|\\.)*"/g, "");
  const nested = [...command.matchAll(/\bdeno task ([\w:-]+)/g)].map((m) => m[1]!);
  const viaDependencies = (task.dependencies ?? []).some((d) => runsOf(tasks, d, target) > 0);
  return (viaDependencies ? 1 : 0) +
    nested.reduce((n, child) => n + runsOf(tasks, child, target), 0);
}

const folders = (command: string) => command.split(/\s+/).filter((w) => w.startsWith("tests/"));

Deno.test("deno task ok, test and check each write the generated modules once", () => {
  // The gate writes only the git-ignored src/generated/ (gen:bundled), once; the committed
  // copies `deno task gen` rewrites are compared by the tests, never rewritten by them.
  for (const task of ["ok", "test", "check", "test:quick"]) {
    assert.equal(runsOf(TASKS, task, "gen:bundled"), 1, task);
    assert.equal(runsOf(TASKS, task, "gen"), 0, task);
  }
});

const SHARDS = Array.from({ length: UNIT_SHARDS }, (_, i) => `tests/units/shard_${i}.ts`);
const CLI_SHARD_MODULES = Array.from(
  { length: CLI_SHARDS },
  (_, i) => `tests/cli_runs/shard_${i}.ts`,
);

/** Every test file under tests/, relative to the repository, sorted. */
const allTestFiles = () => testFilesUnder(REPO_ROOT, ["tests"]);

/**
 * The test files a `deno test` command runs, each as often as it runs: a named file once
 * (deno test runs a file once however it is reached), the files under a named folder, and
 * the unit files a shard module imports.
 */
function filesRunBy(command: string): string[] {
  const units = unitTestFiles(join(REPO_ROOT, "tests")).map((file) => `tests/${file}`);
  const cliFiles = cliShardedFiles(join(REPO_ROOT, "tests"), TASKS["test:run"]!.command!)
    .map((file) => `tests/${file}`);
  const all = allTestFiles();
  const reached = new Set<string>();
  const run: string[] = [];
  for (const word of folders(command)) {
    const shard = SHARDS.indexOf(word);
    const cliShard = CLI_SHARD_MODULES.indexOf(word);
    if (shard !== -1) run.push(...shardFiles(units, shard));
    else if (cliShard !== -1) run.push(...cliShardFiles(cliFiles, cliShard));
    else if (word.endsWith("/")) {
      for (const file of all) if (file.startsWith(word)) reached.add(file);
    } else reached.add(word);
  }
  return [...run, ...reached].sort();
}

Deno.test("deno task test runs every test file once; test:quick every unit test file once, in its shards", () => {
  assert.equal(runsOf(TASKS, "test", "test:run"), 1);
  // Every file of tests/ once: named, under a named folder, or in a shard; none twice (a
  // unit file named on its own besides its shard would run twice).
  assert.deepEqual(filesRunBy(TASKS["test:run"]!.command!), allTestFiles());
  // test:quick names its shard modules, each importing a share of the unit test files.
  const quick = folders(TASKS["test:quick"]!.command!);
  assert.deepEqual(quick, SHARDS);
  for (const [index, shard] of SHARDS.entries()) {
    const text = Deno.readTextFileSync(join(REPO_ROOT, shard));
    assert.match(text, new RegExp(`await importUnitShard\\(${index}\\);`), shard);
  }
  for (const [index, shard] of CLI_SHARD_MODULES.entries()) {
    const text = Deno.readTextFileSync(join(REPO_ROOT, shard));
    assert.match(text, new RegExp(`await importCliShard\\(${index}\\);`), shard);
  }
  for (const folder of [...UNIT_FOLDERS, ...CLI_FOLDERS]) {
    assert.ok(Deno.statSync(join(REPO_ROOT, "tests", folder)).isDirectory, folder);
  }
  const files = unitTestFiles(join(REPO_ROOT, "tests"));
  assert.ok(files.includes("architecture/tasks_test.ts") && files.includes("core/errors_test.ts"));
  assert.ok(files.every((file) => !/^(e2e|hardening|docs|skills|python)\//.test(file)));
  assert.deepEqual(filesRunBy(TASKS["test:quick"]!.command!), files.map((f) => `tests/${f}`));
});

Deno.test("deno task test starts its slowest files first, and ok type-checks what test:run does not", () => {
  const words = TASKS["test:run"]!.command!.split(/\s+/);
  // deno test (2.9) starts the files it is given by folder, the longest folder path first
  // (in the order given within one folder): the long files named here, of tests/hardening/
  // and tests/e2e/, start before the shards of tests/cli_runs/ and tests/units/.
  const named = namedTestFiles(TASKS["test:run"]!.command!);
  assert.ok(named.length > 0);
  for (const file of named) assert.ok(Deno.statSync(join(REPO_ROOT, file)).isFile, file);
  assert.equal(new Set(named).size, named.length);
  // Then the unit shards, then the CLI folders' shards.
  assert.ok(words.indexOf(SHARDS[0]!) > words.indexOf(named.at(-1)!), "the shards come after");
  assert.ok(
    words.indexOf(CLI_SHARD_MODULES[0]!) > words.indexOf(SHARDS.at(-1)!),
    "the CLI folders' shards come last",
  );
  // Every named file is one of the CLI folders' (a unit file is in its shard already).
  for (const file of named) {
    assert.ok(CLI_FOLDERS.some((folder) => file.startsWith(`tests/${folder}/`)), file);
  }
  // A type check of every test file before any runs (tens of seconds on one core of a fresh
  // clone) is check:types' work, which the gate runs once, before the tests.
  if (words.includes("--no-check")) {
    assert.equal(runsOf(TASKS, "ok", "check:types"), 1);
    assert.equal(runsOf(TASKS, "check", "check:types"), 1);
    assert.ok(folders(TASKS["check:types"]!.command!).includes("tests/"));
  }
});

Deno.test("runsOf counts a nested deno task as a run of its own", () => {
  const tasks: Record<string, Task> = {
    gen: { command: "gen" },
    check: { command: "deno check", dependencies: ["gen"] },
    test: { command: "deno test", dependencies: ["gen"] },
    ok: { command: "deno task check && deno task test", dependencies: ["gen"] },
    quiet: { command: 'echo "not a deno task check" && deno test', dependencies: ["gen", "check"] },
  };
  assert.equal(runsOf(tasks, "ok", "gen"), 3);
  assert.equal(runsOf(tasks, "test", "gen"), 1);
  assert.equal(runsOf(tasks, "quiet", "gen"), 1);
});
