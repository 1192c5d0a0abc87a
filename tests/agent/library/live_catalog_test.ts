/**
 * An open library handle over the installed skills follows the skills home: a skill
 * installed or removed by another command meanwhile is seen by the next tool call (and by a
 * half-second timer that does not keep the program alive), without opening the set again.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSkills } from "../../../mod.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";
import { baseEnv, runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

function activateNames(definitions: { name: string; inputSchema: Record<string, unknown> }[]) {
  const activate = definitions.find((t) => t.name === "activate_skill")!;
  return (activate.inputSchema as { properties: { name: { enum: string[] } } }).properties.name
    .enum;
}

Deno.test("openSkills({ installed: true }) sees skills added and removed while it is open", async () => {
  await using dir = await tempDir("skills-library-live-");
  const home = join(dir.path, "home");
  await installSkill(home, "early", { "SKILL.md": skillMd("early", [], "# Early") });
  await using skills = await openSkills({ installed: true, env: ENV, home });
  assert.ok(activateNames(skills.toolDefinitions()).includes("early"));
  assert.doesNotMatch(skills.systemPrompt, /<name>late<\/name>/);

  // `skills add` of a local folder, a real CLI process, while the handle is open.
  const source = join(dir.path, "late");
  await writeTree(source, { "SKILL.md": skillMd("late", [], "# Late\n\nLATE-BODY") });
  const env = baseEnv({ SKILLS_HOME: home });
  const add = await runCli(["add", source, "--yes"], { env, cwd: dir.path });
  assert.equal(add.code, 0, add.stderr);
  const activated = await skills.callTool("activate_skill", { name: "late" });
  assert.ok(activated.success, JSON.stringify(activated));
  assert.match(String(activated.result), /LATE-BODY/);
  assert.match(skills.systemPrompt, /<name>late<\/name>/);
  assert.ok(activateNames(skills.toolDefinitions()).includes("late"));

  const remove = await runCli(["remove", "early", "--yes"], { env, cwd: dir.path });
  assert.equal(remove.code, 0, remove.stderr);
  const gone = await skills.callTool("activate_skill", { name: "early" });
  assert.equal(gone.success ? "" : gone.error, "not_found");
  assert.ok(!activateNames(skills.toolDefinitions()).includes("early"));
  assert.doesNotMatch(skills.systemPrompt, /<name>early<\/name>/);
});
