/**
 * The run plan (src/runtime/exec/run_plan.ts) changes what a run reads before it starts, never
 * what the sandbox lets the script do: the hostile lab skill's attempts come out the same when
 * its run is planned as when it goes through the catalog and trust. Needs bubblewrap.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DOTENV_SECRET, ENV_SECRET, labTest, SSH_SECRET } from "./sandbox_helpers.ts";

labTest("a planned sandboxed run is held exactly as a run checked in full", async (lab) => {
  const ops = [
    `read:${join(lab.userHome, ".ssh", "id_test")}`,
    `read:${join(lab.otherDir, "SKILL.md")}`,
    `read:${join(lab.labDir, "SKILL.md")}`,
    `read:${join(lab.home, "registry.json")}`,
    `read:${join(lab.home, ".cache", "run-plans")}`,
    `write:${join(lab.home, "planted")}`,
    `write:${join(lab.outside, "planted")}`,
    `proc:${ENV_SECRET}`,
    `proc:${DOTENV_SECRET}`,
    "env:OPENAI_API_KEY",
    "read:$SKILLS_SKILL_DIR/SKILL.md",
    // The skill's cache folder: the plan keeps its name, the full path derives it.
    "env:XDG_CACHE_HOME",
  ];
  const full = await lab.attempt(ops);
  // A plan is kept once the verified copy the first run made is two seconds old.
  let used = false;
  for (let i = 0; i < 3 && !used; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await lab.run(["sandbox-lab", "attempt", "env:HOME", "--json"]);
    const probe = await lab.run(["--verbose", "sandbox-lab", "attempt", "env:HOME", "--json"]);
    assert.equal(probe.code, 0, probe.stderr);
    used = probe.stderr.includes("run plan used");
  }
  assert.ok(used, "the run was planned");
  const planned = await lab.attempt(ops);
  assert.deepEqual(planned, full);
  for (const op of ops.slice(0, 10)) {
    const { ok, detail } = planned[op]!;
    assert.equal(ok, false, `${op}: ${detail}`);
    assert.ok(!detail.includes(SSH_SECRET) && !detail.includes(ENV_SECRET), `${op} leaked`);
  }
  assert.equal(planned["read:$SKILLS_SKILL_DIR/SKILL.md"]!.ok, true, "its own files are read");
  assert.match(
    planned["env:XDG_CACHE_HOME"]!.detail,
    /\/\.cache\/skills\/sandbox-lab-[0-9a-f]{16}$/,
  );
});
