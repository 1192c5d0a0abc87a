/**
 * `deno task skills …` runs in the repository root, but the user typed the command in
 * their own directory: `.`, relative paths and `.env` must mean that directory.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runCli, runProgram, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

function denoTask(cwd: string, args: string[], env: Record<string, string> = {}) {
  const config = ["task", "--quiet", "--config", join(REPO_ROOT, "deno.json"), "skills"];
  return runProgram(Deno.execPath(), [...config, ...args], cwd, env);
}

Deno.test("deno task skills validate . validates the skill in the user's directory", async () => {
  await using dir = await tempDir();
  const skill = join(dir.path, "my-skill");
  await writeTree(skill, {
    "SKILL.md":
      "---\nname: my-skill\ndescription: A skill in the user's directory.\n---\n\nBody.\n",
  });
  const result = await denoTask(skill, ["validate", "."], { SKILLS_HOME: join(dir.path, "home") });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, new RegExp(`✓ my-skill \\(${skill.replaceAll("/", "\\/")}\\)`));

  // .env is read from the user's directory too.
  await Deno.writeTextFile(join(skill, ".env"), "AGENT_SKILLS=kalshi-markets\n");
  const prompt = await denoTask(skill, ["prompt"], { SKILLS_HOME: join(dir.path, "home") });
  assert.equal(prompt.code, 0, prompt.stderr);
  assert.match(prompt.stdout, /<name>kalshi-markets<\/name>/);
});

Deno.test("a skills started elsewhere by a process inside a deno task keeps its own directory", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "project");
  await Deno.mkdir(join(project, ".git"), { recursive: true });
  const skill = join(project, ".agents", "skills", "local-one");
  await writeTree(skill, {
    "SKILL.md": "---\nname: local-one\ndescription: A project skill.\n---\n\nBody.\n",
  });
  // What a benchmark or another task's `cd sub && skills …` hands down: deno task's
  // variables, naming the directory the task started in, not this one.
  const result = await runCli(["check", "--json"], {
    cwd: project,
    env: {
      SKILLS_HOME: join(dir.path, "home"),
      INIT_CWD: REPO_ROOT,
      npm_config_user_agent: "deno/2.9.6",
    },
  });
  const report = JSON.parse(result.stdout);
  assert.equal(report.project?.root ?? null, await Deno.realPath(project), result.stderr);
});
