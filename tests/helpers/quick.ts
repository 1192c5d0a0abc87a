/**
 * `deno task test:quick`: SKILLS_TEST_QUICK=1 skips the slowest tests (each > ~2 s: crash
 * and kill loops, big repositories, timeouts that must run out) for a fast local loop.
 * Never in CI: where CI is set, the flag is ignored and every test runs (and the task
 * itself refuses to start).
 *
 * A slow test says so in its options: `Deno.test("name", { ignore: SKIP_SLOW }, fn)`.
 */

/** Whether these environment variables ask for the slow tests to be skipped. */
export function skipsSlowTests(env: Record<string, string | undefined>): boolean {
  if (env.SKILLS_TEST_QUICK !== "1") return false;
  return !env.CI; // CI always runs everything
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no --allow-env: nothing asked for
  }
}

/** True when this run skips the tests marked slow. */
export const SKIP_SLOW: boolean = skipsSlowTests({
  SKILLS_TEST_QUICK: readEnv("SKILLS_TEST_QUICK"),
  CI: readEnv("CI"),
});

/**
 * The folders `deno task test:quick` runs: the unit tests (not e2e/, hardening/, docs/,
 * skills/, python/, which spawn the whole CLI).
 */
export const QUICK_FOLDERS = [
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
 * How many modules the quick run's test files are shared among (tests/quick/shard_<i>.ts).
 * Each `deno test` module is an isolate of its own that loads and compiles its imports
 * (~0.4 s of CPU each): 176 files cost ~70 s of CPU in start-ups alone, four shards ~2 s.
 */
export const QUICK_SHARDS = 4;

/** Every test file under the quick folders, relative to tests/, sorted. */
export function quickTestFiles(testsRoot: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(`${testsRoot}/${relative}`)) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && entry.name.endsWith("_test.ts")) found.push(path);
    }
  };
  for (const folder of QUICK_FOLDERS) walk(folder);
  return found.sort();
}

/** The files of shard `index`: every QUICK_SHARDS-th file of the sorted list, from `index`. */
export function shardFiles(files: readonly string[], index: number): string[] {
  return files.filter((_, at) => at % QUICK_SHARDS === index);
}

/**
 * Imports the test files of shard `index` into the calling module, so that `deno test`
 * runs them in one isolate. The files keep their own tests, names and sanitizers; what
 * they share is module state, which a test that passes alone must not depend on anyway.
 */
export async function importQuickShard(index: number): Promise<void> {
  const testsRoot = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  for (const file of shardFiles(quickTestFiles(testsRoot), index)) {
    await import(new URL(`../${file}`, import.meta.url).href);
  }
}
