/**
 * The run plan kept by a run through the catalog and trust (script_service.prepareRunAndPlan)
 * and read back by the next (run_plan.plannedRun), with a real installed skill. `startedAt`
 * stands in for when the command began: in the future, every file counts as settled; now,
 * the install just made is too new to key.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { prepareRunAndPlan, type ScriptDeps } from "../../../src/runtime/exec/script_service.ts";
import { keepRunPlan, plannedRun } from "../../../src/runtime/exec/run_plan.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";
import { skillMd } from "../../fixtures/git_repos.ts";

const LATER = () => Date.now() + 60_000;

async function lab(root: string) {
  const home = join(root, "home");
  const cwd = join(root, "work");
  await Deno.mkdir(cwd, { recursive: true });
  await installRunnerSkill(home, "runner-lab");
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: root };
  const deps: ScriptDeps & { cwd: string } = { home, env, cwd };
  const plan = async (startedAt: number, script = "echo_args") => {
    const catalog = await loadCatalog(home, { cwd, env });
    return await prepareRunAndPlan(catalog, "runner-lab", script, [], deps, startedAt);
  };
  const planned = (script = "echo_args") =>
    plannedRun(home, { skill: "runner-lab", script }, { cwd, env });
  return { home, cwd, env, plan, planned };
}

/** `value` as a plan file holds it (undefined fields dropped). */
const asKept = (value: unknown) => JSON.parse(JSON.stringify(value));

Deno.test("a plan kept for settled files gives back what the catalog and trust resolved", async () => {
  await using root = await tempDir();
  const { plan, planned } = await lab(root.path);
  const prepared = await plan(LATER());
  const reused = planned();
  assert.ok(reused, "the plan holds");
  assert.deepEqual(reused.skill, asKept(prepared.skill));
  assert.deepEqual(reused.script, asKept(prepared.script));
  assert.match(reused.skill.dir, /\.cache\/run\/runner-lab-/, "it runs from the verified copy");
  assert.equal(reused.digest, prepared.receipt.base.digest);
});

Deno.test("files changed within two seconds before the command are never planned", async () => {
  await using root = await tempDir();
  const { plan, planned } = await lab(root.path);
  await plan(Date.now());
  assert.equal(planned(), undefined);
});

Deno.test("a registry written since, or a file of the skill, ends the plan", async () => {
  await using root = await tempDir();
  const { home, plan, planned } = await lab(root.path);
  await plan(LATER());
  assert.ok(planned());
  const registry = join(home, "registry.json");
  await Deno.writeTextFile(registry, await Deno.readTextFile(registry));
  assert.equal(planned(), undefined, "the registry's keys moved");
  await plan(LATER());
  assert.ok(planned());
  await Deno.writeTextFile(join(home, "runner-lab", "SKILL.md"), "\n", { append: true });
  assert.equal(planned(), undefined, "an installed file changed");
});

Deno.test("with project skill folders in sight, any change in them ends the plan", async () => {
  await using root = await tempDir();
  const { home, cwd, plan, planned } = await lab(root.path);
  const folder = join(cwd, ".claude", "skills");
  // Someone else's skill, checked into the repository: read for shadowing, never trusted.
  await writeTree(join(folder, "theirs"), { "SKILL.md": skillMd("theirs") });
  const replan = async () => {
    await plan(LATER());
    assert.ok(planned(), "planned with the folder in sight");
  };
  await replan();
  // Its SKILL.md now names the installed skill: it would shadow it.
  await Deno.writeTextFile(join(folder, "theirs", "SKILL.md"), skillMd("runner-lab"));
  assert.equal(planned(), undefined, "a project skill's manifest changed");
  await Deno.writeTextFile(join(folder, "theirs", "SKILL.md"), skillMd("theirs"));
  await replan();
  await writeTree(join(folder, "runner-lab"), { "SKILL.md": skillMd("runner-lab") });
  assert.equal(planned(), undefined, "a project skill added");
  await Deno.remove(join(folder, "runner-lab"), { recursive: true });
  await replan();
  await Deno.writeTextFile(join(home, "project-trust.json"), '{"version":1,"projects":{}}\n');
  assert.equal(planned(), undefined, "this user's approvals changed");
  await replan();
  await Deno.mkdir(join(cwd, ".agents", "skills"), { recursive: true });
  assert.equal(planned(), undefined, "another skill folder came into sight");
  await replan();
  await Deno.mkdir(join(cwd, ".git"));
  assert.equal(planned(), undefined, "the project's root moved (approvals are keyed by it)");
});

Deno.test("at most 64 plans are kept; the least recently kept go first", async () => {
  await using root = await tempDir();
  const { home, cwd, env, plan, planned } = await lab(root.path);
  await plan(LATER());
  const resolved = planned()!;
  for (let i = 0; i < 70; i++) {
    keepRunPlan(home, { skill: "runner-lab", script: `spelling-${i}` }, resolved, {
      installedDir: join(home, "runner-lab"),
      cwd,
      env,
      startedAt: LATER(),
    });
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const plans = [...Deno.readDirSync(join(home, ".cache", "run-plans"))];
  assert.equal(plans.length, 64);
  assert.equal(planned("spelling-0"), undefined, "the oldest went");
  assert.ok(planned("spelling-69"), "the newest stays");
});
