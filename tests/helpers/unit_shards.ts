/**
 * The unit test files (not e2e/, hardening/, docs/, skills/, which spawn the whole CLI), run
 * in a few modules instead of one isolate each: `deno test` gives every module it is handed an
 * isolate that loads and compiles its imports (~0.4 s of CPU each), so 176 files cost ~70 s
 * of CPU in start-ups alone, four shards ~2 s. Both `deno task test` and `test:quick` run
 * the units through tests/units/shard_<i>.ts.
 */

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
  const testsRoot = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  for (const file of shardFiles(unitTestFiles(testsRoot), index)) {
    await import(new URL(`../${file}`, import.meta.url).href);
  }
}
