/**
 * Policy mode (SKILLS_SANDBOX=off, and any machine without a working bubblewrap) keeps its
 * own process hygiene: the kill helper ends the tree at the timeout, and the parent watch
 * ends it when the CLI is SIGKILLed. (With the sandbox, bubblewrap does both:
 * tests/hardening/policy_mode/process_hygiene_test.ts and sandbox_limits_test.ts.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, spawnCli, tempDir } from "../../helpers/cli.ts";
import { alive, killAll, sleeperPids, survivors } from "../../helpers/processes.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { exists, waitFor } from "../../helpers/wait.ts";

const linux = { ignore: Deno.build.os !== "linux" };

Deno.test(
  "policy mode: a timeout kills the script and the grandchild that left its group",
  linux,
  async () => {
    await using home = await tempDir();
    await installRunnerSkill(home.path, "runner-lab");
    const pidFile = join(home.path, "pids");
    const [result, pids] = await Promise.all([
      runCli(["run", "--timeout", "2", "runner-lab", "sleeper", pidFile, "--escape"], {
        env: { SKILLS_HOME: home.path, SKILLS_SANDBOX: "off" },
      }),
      sleeperPids(pidFile),
    ]);
    try {
      assert.equal(result.code, 124, result.stderr);
      assert.deepEqual(await survivors(pids, 3_000), []);
    } finally {
      killAll(pids);
    }
  },
);

Deno.test(
  "policy mode: a SIGKILLed skills run leaves no script behind (parent watch)",
  linux,
  async () => {
    await using home = await tempDir();
    await installRunnerSkill(home.path, "runner-lab");
    const pidFile = join(home.path, "pids");
    const child = spawnCli(["run", "runner-lab", "sleeper", pidFile], {
      env: { SKILLS_HOME: home.path, SKILLS_SANDBOX: "off" },
      stdout: "null",
      stderr: "null",
    });
    const pids = await sleeperPids(pidFile);
    try {
      assert.deepEqual(pids.filter(alive), pids);
      // Policy mode writes the pid file: the script really ran outside the sandbox.
      await waitFor(() => exists(pidFile), { what: "the sleeper's pid file", timeoutMs: 10_000 });
      child.kill("SIGKILL");
      await child.status;
      assert.deepEqual(await survivors(pids, 3_000), []);
    } finally {
      killAll(pids);
    }
  },
);
