/**
 * The CLI's own Python helpers (the kill helper, the parent watch, the toolset host) run
 * isolated from the user's directory: a `signal.py` or `os.py` where the user stands is
 * never imported by them, so a timeout still ends the script's whole tree.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { killAll, sleeperPids, survivors } from "../../helpers/processes.ts";

Deno.test("a signal.py in the working directory does not disarm the timeout's tree kill", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using cwd = await tempDir();
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const marker = join(cwd.path, "imported");
  // Imported instead of the standard library's signal module, it ends the helper "successfully".
  for (const module of ["signal", "os"]) {
    await Deno.writeTextFile(
      join(cwd.path, `${module}.py`),
      `open(${JSON.stringify(marker)}, "w").close()\nimport sys\nsys.exit(0)\n`,
    );
  }
  const pidFile = join(home.path, "pids");
  const running = runCli(["run", "--timeout", "2", "runner-lab", "sleeper", pidFile], {
    // Policy mode: the kill helper alone ends the tree.
    env: { SKILLS_HOME: home.path, SKILLS_SANDBOX: "off" },
    cwd: cwd.path,
  });
  // Found while the run is still going (by command line: see sleeperPids).
  const pids = await sleeperPids(pidFile);
  const result = await running;
  const left = await survivors(pids, 5_000);
  killAll(left);
  assert.equal(result.code, 124, result.stderr);
  assert.deepEqual(left, [], "the script's tree outlived its timeout");
  assert.equal(
    await Deno.lstat(marker).then(() => true, () => false),
    false,
    "a helper imported a module from the user's directory",
  );
});
