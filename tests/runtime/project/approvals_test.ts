/**
 * This user's approval of project skills (runtime/project/approvals.ts), on a real git
 * project: `trust` asks before it records, a no records nothing, the approval lives in
 * `$SKILLS_HOME` bound to the files' digest (a changed file is no longer trusted), a second
 * trust of the same files asks nothing, and withdrawing says whether there was one.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  projectSkillNamed,
  trustProjectSkill,
  withdrawProjectTrust,
} from "../../../src/runtime/project/approvals.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";
import { git } from "../../fixtures/git_repos.ts";

async function setUp(dir: string) {
  const home = join(dir, "home");
  const root = join(dir, "app");
  const folder = join(root, ".agents", "skills", "notes");
  await Deno.mkdir(join(folder, "scripts"), { recursive: true });
  await git(root, ["init", "--quiet"]);
  await Deno.writeTextFile(join(folder, "SKILL.md"), skillMd("notes", [], "Project notes."));
  await Deno.writeTextFile(join(folder, "scripts", "tidy.py"), "print('tidy')\n");
  await installSkill(home, "pdf", { "SKILL.md": skillMd("pdf", [], "B.") });
  const env = { PATH: Deno.env.get("PATH")!, HOME: dir };
  const named = async (name: string) => await projectSkillNamed(home, root, env, name);
  return { home, root, folder, named };
}

Deno.test("projectSkillNamed: the project's skill by any spelling; a user skill is none", async () => {
  await using dir = await tempDir();
  const { root, named } = await setUp(dir.path);
  const notes = await named("Notes");
  assert.equal(notes?.project?.root, root);
  assert.equal(notes?.trusted, false, "a fresh clone's skills are untrusted");
  assert.equal(await named("pdf"), undefined);
});

Deno.test("trustProjectSkill: a no records nothing; a yes records the digest in the home, not the project", async () => {
  await using dir = await tempDir();
  const { home, root, folder, named } = await setUp(dir.path);
  const asked: string[] = [];
  await assert.rejects(
    trustProjectSkill(home, (await named("notes"))!, (review) => {
      asked.push(review.digest);
      return Promise.resolve(false);
    }),
    (e) => isSkillError(e) && e.code === "cancelled",
  );
  assert.equal((await named("notes"))!.trusted, false);

  const review = await trustProjectSkill(
    home,
    (await named("notes"))!,
    () => Promise.resolve(true),
  );
  assert.equal(review.digest, asked[0]);
  assert.equal((await named("notes"))!.trusted, true);
  const record = await Deno.readTextFile(join(home, "project-trust.json"));
  assert.ok(record.includes(review.digest) && record.includes(root));
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(join(root, ".agents")))).map((e) => e.name),
    ["skills"],
    "nothing is written into the project",
  );

  const again = await trustProjectSkill(home, (await named("notes"))!, () => {
    throw new Error("asked again for the same files");
  });
  assert.equal(again.already, true);

  await Deno.writeTextFile(join(folder, "scripts", "tidy.py"), "print('changed')\n");
  let askedAgain = false;
  const changed = await trustProjectSkill(home, (await named("notes"))!, () => {
    askedAgain = true;
    return Promise.resolve(true);
  });
  assert.ok(askedAgain, "changed files are asked for again: the approval is bound to the files");
  assert.notEqual(changed.digest, review.digest);
});

Deno.test("withdrawProjectTrust: withdraws an approval and says whether there was one", async () => {
  await using dir = await tempDir();
  const { home, named } = await setUp(dir.path);
  assert.equal(await withdrawProjectTrust(home, (await named("notes"))!, {}), false);
  await trustProjectSkill(home, (await named("notes"))!, () => Promise.resolve(true));
  assert.equal(await withdrawProjectTrust(home, (await named("notes"))!, {}), true);
  assert.equal((await named("notes"))!.trusted, false);
});
