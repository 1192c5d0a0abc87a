/**
 * The test files run in a few modules instead of one isolate each: `deno test` gives every
 * module it is handed an isolate that loads and compiles its imports (~0.15-0.4 s of CPU
 * each), so the unit files (176) cost ~70 s of CPU in start-ups alone as files, four shards
 * ~2 s; and the 116 files of the folders that spawn the CLI (docs/, e2e/, hardening/,
 * skills/) ~24 s as files, against ~5 s in their shards. Both `deno task test` and
 * `test:quick` run the units through tests/units/shard_<i>.ts; `deno task test` runs the
 * CLI folders through tests/cli_runs/shard_<i>.ts, but for the slowest files, which its
 * command names on their own so that they start first.
 */

import { join } from "node:path";

/** The folders of tests/ that hold the unit tests. */
export const UNIT_FOLDERS = [
  "core",
  "agent",
  "cli",
  "mcp",
  "runtime",
  "architecture",
  "helpers",
  "scripts",
] as const;

/**
 * How many modules the unit test files are shared among (tests/units/shard_<i>.ts). Eight
 * were tried: the full run took as long, and `test:quick` 65 s against 57 s with four.
 */
export const UNIT_SHARDS = 4;

/** Every test file (`*_test.ts`) under `folders` of `root`, relative to `root`, sorted. */
export function testFilesUnder(root: string, folders: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(`${root}/${relative}`)) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && entry.name.endsWith("_test.ts")) found.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return found.sort();
}

/** Every test file under the unit folders, relative to tests/, sorted. */
export function unitTestFiles(testsRoot: string): string[] {
  return testFilesUnder(testsRoot, UNIT_FOLDERS);
}

/** The files of shard `index`: every UNIT_SHARDS-th file of the sorted list, from `index`. */
export function shardFiles(files: readonly string[], index: number): string[] {
  return files.filter((_, at) => at % UNIT_SHARDS === index);
}

/**
 * Imports the test files of shard `index` into the calling module, so that `deno test`
 * runs them in one isolate. The files keep their own tests, names and sanitizers; what
 * they share is module state, which a test that passes alone must not depend on anyway.
 */
export async function importUnitShard(index: number): Promise<void> {
  for (const file of shardFiles(unitTestFiles(TESTS_ROOT), index)) {
    await import(new URL(`../${file}`, import.meta.url).href);
  }
}

const TESTS_ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The folders of tests/ whose files spawn the whole CLI (and services, registries, git). */
export const CLI_FOLDERS = ["docs", "e2e", "hardening", "skills"] as const;

/**
 * How many modules share the CLI folders' files. Each shard runs its tests one after
 * another, as one file does, while `DENO_JOBS` modules run at once: more shards than jobs, so
 * that the queue still evens out the ends of the run; ten, since a folder of tests/ holds at
 * most eleven modules (tests/architecture/test_tree_test.ts).
 */
export const CLI_SHARDS = 10;

/**
 * The test files `command` (a `deno test` command line) names on their own: the slowest
 * files, which `deno task test` starts first instead of leaving them to a shard.
 */
export function namedTestFiles(command: string): string[] {
  return command.split(/\s+/).filter((word) =>
    word.startsWith("tests/") && word.endsWith("_test.ts")
  );
}

/** deno.json's `test:run` command, whose named files the CLI shards leave out. */
function testRunCommand(repoRoot: string): string {
  return JSON.parse(Deno.readTextFileSync(join(repoRoot, "deno.json"))).tasks["test:run"].command;
}

/**
 * Every test file of the CLI folders that `test:run` does not name on its own, relative to
 * tests/, sorted: what the CLI shards share among themselves.
 */
export function cliShardedFiles(testsRoot: string, command: string): string[] {
  const named = new Set(namedTestFiles(command));
  return testFilesUnder(testsRoot, CLI_FOLDERS).filter((file) => !named.has(`tests/${file}`));
}

/** The files of CLI shard `index`: every CLI_SHARDS-th file of the sorted list, from `index`. */
export function cliShardFiles(files: readonly string[], index: number): string[] {
  return files.filter((_, at) => at % CLI_SHARDS === index);
}

/** Imports the test files of CLI shard `index` into the calling module (one isolate). */
export async function importCliShard(index: number): Promise<void> {
  const files = cliShardedFiles(TESTS_ROOT, testRunCommand(join(TESTS_ROOT, "..")));
  for (const file of cliShardFiles(files, index)) {
    await import(new URL(`../${file}`, import.meta.url).href);
  }
}
