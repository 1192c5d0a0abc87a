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
