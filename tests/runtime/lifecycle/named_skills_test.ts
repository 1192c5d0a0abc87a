/**
 * Finding a skill its repository moved (runtime/lifecycle/named_skills.ts): by the name its
 * SKILL.md declares, among the skills `skills add` would find; none, or several, is no move.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { declaredName, movedFolder } from "../../../src/runtime/lifecycle/named_skills.ts";
import { SkillError } from "../../../src/core/errors.ts";
import { skillMd } from "../../fixtures/git_repos.ts";
import { tempTree } from "../../helpers/tree.ts";

const context = { skill: "alpha", was: "skills/alpha" };

Deno.test("the name a folder's SKILL.md declares, whatever the folder is called", async () => {
  await using tree = await tempTree({
    "renamed/SKILL.md": skillMd("alpha"),
    "lower/skill.md": skillMd("beta"),
    "broken/SKILL.md": "---\nname: [unclosed\n---\n",
    "empty/README.md": "no manifest\n",
  });
  assert.equal(await declaredName(join(tree.path, "renamed")), "alpha");
  assert.equal(await declaredName(join(tree.path, "lower")), "beta");
  assert.equal(await declaredName(join(tree.path, "broken")), undefined);
  assert.equal(await declaredName(join(tree.path, "empty")), undefined);
  assert.equal(await declaredName(join(tree.path, "missing")), undefined);
});

Deno.test("the one skill of that name is where it moved; none is no move", async () => {
  await using tree = await tempTree({
    "catalog/tools/alpha-skill/SKILL.md": skillMd("alpha"),
    "catalog/tools/beta/SKILL.md": skillMd("beta"),
  });
  assert.equal(
    await movedFolder({ root: tree.path }, "alpha", context),
    "catalog/tools/alpha-skill",
  );
  assert.equal(await movedFolder({ root: tree.path }, "gamma", context), undefined);
});

Deno.test("a manifest that is a symbolic link names nothing: validation refuses such a skill", async () => {
  await using tree = await tempTree({ "real/SKILL.md": skillMd("alpha") });
  await Deno.mkdir(join(tree.path, "linked"));
  await Deno.symlink(join(tree.path, "real", "SKILL.md"), join(tree.path, "linked", "SKILL.md"));
  assert.equal(await movedFolder({ root: tree.path }, "alpha", context), "real");
});

Deno.test("two skills of that name: neither is chosen, both are named", async () => {
  await using tree = await tempTree({
    "one/alpha/SKILL.md": skillMd("alpha"),
    "two/alpha/SKILL.md": skillMd("alpha"),
  });
  await assert.rejects(
    () => movedFolder({ root: tree.path }, "alpha", context),
    (error: unknown) => {
      assert.ok(error instanceof SkillError);
      assert.equal(error.code, "conflict");
      assert.match(error.message, /'skills\/alpha' is gone .* 2 skills named 'alpha'/);
      assert.match(error.message, /'one\/alpha', 'two\/alpha'/);
      return true;
    },
  );
});

Deno.test("many skills of that name: a few are named, the rest counted", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    files[`copies/c${String(i).padStart(2, "0")}/SKILL.md`] = skillMd("alpha");
  }
  await using tree = await tempTree(files);
  await assert.rejects(
    () => movedFolder({ root: tree.path }, "alpha", context),
    (error: unknown) => {
      assert.ok(error instanceof SkillError);
      assert.match(
        error.message,
        /40 skills named 'alpha' \('copies\/c00', .*'copies\/c04', and 35 more\)$/,
      );
      assert.ok(error.message.length < 400, error.message);
      return true;
    },
  );
});
