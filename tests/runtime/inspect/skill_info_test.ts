/**
 * `skills info`'s workflow (runtime/inspect/skill_info.ts), called directly: what the record
 * and manifest say of a skill, the user skill a project skill of the same name shadows, and
 * `not_found` for a name no skill has.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { skillInfo } from "../../../src/runtime/inspect/skill_info.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/cli.ts";
import { memoryContext } from "../../helpers/context.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";
import { git } from "../../fixtures/git_repos.ts";

Deno.test("skillInfo: the record, the manifest's permissions and scripts, and what it shadows", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const root = join(dir.path, "app");
  await Deno.mkdir(join(root, ".agents", "skills", "notes"), { recursive: true });
  await git(root, ["init", "--quiet"]);
  const manifest = skillMd(
    "pdf",
    ["license: MIT", "permissions:", "  env: [PDF_TOKEN]", "  services: [split]"],
    "B.",
  );
  await installSkill(home, "pdf", { "SKILL.md": manifest, "scripts/split.py": "print(1)\n" }, {
    trusted: true,
  });
  await installSkill(home, "notes", { "SKILL.md": skillMd("notes", [], "user copy") });
  await Deno.writeTextFile(join(root, ".agents/skills/notes/SKILL.md"), skillMd("notes", [], "P."));
  const env = {
    SKILLS_HOME: home,
    HOME: dir.path,
    PATH: Deno.env.get("PATH")!,
    AGENT_SKILLS: "pdf",
  };
  const ctx = memoryContext(env, root);

  const pdf = await skillInfo(ctx, "PDF");
  assert.equal(pdf.canonical, "pdf");
  assert.deepEqual([pdf.trusted, pdf.active, pdf.scope, pdf.license], [true, true, "user", "MIT"]);
  assert.deepEqual(pdf.permissions.env, ["PDF_TOKEN"]);
  assert.deepEqual(pdf.permissions.services, ["split"]);
  assert.deepEqual(pdf.scripts.map((s) => s.name), ["split"]);
  assert.equal(pdf.path, join(home, "pdf"));

  const notes = await skillInfo(ctx, "notes");
  assert.deepEqual([notes.scope, notes.trusted, notes.active], ["project", false, false]);
  assert.deepEqual(notes.shadows, [{ scope: "user", path: join(home, "notes") }]);

  await assert.rejects(skillInfo(ctx, "nope"), (e) => isSkillError(e) && e.code === "not_found");
});
