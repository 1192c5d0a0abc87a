/**
 * Issue 23, item 10, as stop 66 settled it: an installed skill holds no symlinks. A link out of
 * the skill is refused by `validate` and by `add` (from a git repository and from a folder), and
 * nothing is installed. A link to a file of the skill itself (Supabase's `CLAUDE.md ->
 * AGENTS.md`) is refused where the folder is read in place (`validate` says so, and that `add`
 * copies it), and `add` installs a copy of the file in its place: a regular file with the
 * target's bytes, no link.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";

async function linkedRepo(root: string, target: string) {
  const repo = await createRepo(root, "linked", {
    ...skillFiles("linked"),
    "references/guide.md": "the guide\n",
  });
  await Deno.symlink(target, join(repo.work, "GUIDE.md"));
  await repo.commit({}, "a symlink");
  return repo;
}

Deno.test("a symlink out of the skill makes it invalid, and add installs nothing", async () => {
  await using tmp = await tempDir();
  const repo = await linkedRepo(tmp.path, "/etc/hostname");
  const home = join(tmp.path, "home");
  const validated = await runCli(["validate", repo.work], { env: { SKILLS_HOME: home } });
  assert.equal(validated.code, 1, validated.stdout);
  assert.match(validated.stdout, /GUIDE\.md: error: symlink GUIDE\.md points outside the skill/);
  for (const source of [repo.url, repo.work]) {
    const added = await runCli(["add", source, "--yes"], { env: { SKILLS_HOME: home } });
    assert.notEqual(added.code, 0, added.stdout);
    assert.match(added.stderr, /symlink GUIDE\.md .*refused/);
    await assert.rejects(Deno.lstat(join(home, "linked")), Deno.errors.NotFound, source);
  }
});

Deno.test("a symlink to a file of the skill is refused in place, and add installs a copy of the file", async () => {
  await using tmp = await tempDir();
  const repo = await linkedRepo(tmp.path, "references/guide.md");
  const validated = await runCli(["validate", repo.work], {
    env: { SKILLS_HOME: join(tmp.path, "unused") },
  });
  assert.equal(validated.code, 1, validated.stdout);
  assert.match(
    validated.stdout,
    /symlink GUIDE\.md \(refused: .*skills add installs a copy of references\/guide\.md in its place\)/,
  );
  for (const [label, source] of [["git", repo.url], ["folder", repo.work]]) {
    const home = join(tmp.path, `home-${label}`);
    const added = await runCli(["add", source!, "--yes"], { env: { SKILLS_HOME: home } });
    assert.equal(added.code, 0, added.stderr);
    const copy = join(home, "linked", "GUIDE.md");
    assert.equal((await Deno.lstat(copy)).isFile, true, `${label}: a regular file`);
    assert.equal(await Deno.readTextFile(copy), "the guide\n");
    const check = await runCli(["check", "home", "--json"], { env: { SKILLS_HOME: home } });
    assert.equal(check.code, 0, check.stdout);
  }
  // The source is as it was: still a link.
  assert.equal((await Deno.lstat(join(repo.work, "GUIDE.md"))).isSymlink, true);
});
