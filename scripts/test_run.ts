/**
 * `deno task test:run` and `test:quick`: `deno test` with the arguments given, every temporary
 * folder of the run (TMPDIR) inside one scratch folder of its own, which is removed once, when
 * the run ends, whatever its outcome (a Ctrl-C included: the signal is passed on first).
 *
 * Why one removal: the suite makes and removes some hundreds of thousands of files. On a file
 * system that hands out inodes slowly after many removals (ext4 without a journal, as on the
 * machine the suite is measured on, passes over every recently freed inode of a group before
 * it hands out a new one: `recently_deleted()`), a removal after each test makes every file the
 * tests after it create dearer, and the suite's system time grew with it. The tests' own
 * folders (`tempDir()` of tests/helpers/cli.ts) are left for this removal when
 * `SKILLS_TEST_SCRATCH` names the folder they are in, and the CLIs they start get it as their
 * `TMPDIR` (`baseEnv()`), so what a killed CLI leaves goes too; a test that removes a folder to
 * check what happens then still does.
 */

import { removeIfExists } from "../src/runtime/os/fs.ts";

/** The variable naming the run's scratch folder to the tests (tests/helpers/cli.ts). */
export const SCRATCH_VARIABLE = "SKILLS_TEST_SCRATCH";

/** Runs `deno test <args>` with its scratch folder; returns deno test's exit code. */
export async function runTests(args: readonly string[]): Promise<number> {
  const scratch = await Deno.makeTempDir({ prefix: "skills-test-run-" });
  try {
    // What /tmp is to the tests: the ones that run as an ordinary user reach their folders
    // through it and make their own in it.
    await Deno.chmod(scratch, 0o1777);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["test", ...args],
      env: { TMPDIR: scratch, [SCRATCH_VARIABLE]: scratch },
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const pass = (signal: Deno.Signal) => () => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    };
    const listeners = (["SIGINT", "SIGTERM"] as const).map((s) => [s, pass(s)] as const);
    for (const [signal, listener] of listeners) Deno.addSignalListener(signal, listener);
    const { code, signal } = await child.status;
    for (const [name, listener] of listeners) Deno.removeSignalListener(name, listener);
    return signal === null ? code : 128 + (signal === "SIGINT" ? 2 : 15);
  } finally {
    await removeIfExists(scratch);
  }
}

if (import.meta.main) Deno.exit(await runTests(Deno.args));
