/**
 * Starting a launch plan in policy mode (runtime/exec/spawn/spawn_plan.ts): the script gets a
 * work folder of its own as SKILLS_WORK_DIR, as in the sandbox, gone once it is released.
 */

import assert from "node:assert/strict";
import { spawnLaunch } from "../../../../src/runtime/exec/spawn/spawn_plan.ts";

Deno.test("spawnLaunch() without a sandbox gives the script its own work folder and removes it", async () => {
  const spawned = await spawnLaunch(
    {
      command: "bash",
      args: ["-c", 'test -d "$SKILLS_WORK_DIR" && printf %s "$SKILLS_WORK_DIR"'],
      launcher: "bash",
    },
    { cwd: "/", env: { PATH: "/usr/bin:/bin" } },
  );
  const output = await spawned.child.output();
  await spawned.release();
  const workDir = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, "the folder exists while the script runs");
  assert.match(workDir, /skills-work-/);
  assert.ok(spawned.envNames?.includes("SKILLS_WORK_DIR"));
  assert.throws(() => Deno.statSync(workDir), Deno.errors.NotFound);
});
