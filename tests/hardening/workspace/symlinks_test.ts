/**
 * Issue 23, item 10, as stop 66 settled it: an installed skill holds no symlinks. A link out of
 * the skill is refused by `validate`; `add` (from a git repository and from a folder) never
 * follows it and installs the skill without it, saying so (stop 67: richfrem's spec-kitty skills
 * were refused whole for a link six levels up, out of their repository). A link to a file of the skill itself (Supabase's `CLAUDE.md ->
 * AGENTS.md`) is refused where the folder is read in place (`validate` says so, and that `add`
 * copies it), and `add` installs a copy of the file in its place: a regular file with the
 * target's bytes, no link.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";
import { readTree } from "../../helpers/tree.ts";

async function linkedRepo(root: string, target: string) {
  const repo = await createRepo(root, "linked", {
    ...skillFiles("linked"),
    "references/guide.md": "the guide\n",
  });
  await Deno.symlink(target, join(repo.work, "GUIDE.md"));
  await repo.commit({}, "a symlink");
  return repo;
}

Deno.test("a symlink out of the skill makes it invalid in place; add installs the skill without it, never following it", async () => {
  await using tmp = await tempDir();
  const repo = await linkedRepo(tmp.path, "/etc/hostname");
  const home = join(tmp.path, "home");
  const validated = await runCli(["validate", repo.work], { env: { SKILLS_HOME: home } });
  assert.equal(validated.code, 1, validated.stdout);
  assert.match(validated.stdout, /GUIDE\.md: error: symlink GUIDE\.md points outside the skill/);
  assert.match(validated.stdout, /skills add .* leaves out one that leads out of the source/);
  const hostname = await Deno.readTextFile("/etc/hostname");
  for (const [label, source] of [["git", repo.url], ["folder", repo.work]]) {
    const at = join(tmp.path, `home-${label}`);
    const added = await runCli(["add", source!, "--yes", "--json"], { env: { SKILLS_HOME: at } });
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stderr,
      /linked: GUIDE\.md: a symlink to \/etc\/hostname, leading out of the source: left out/,
    );
    // Nothing of the link is installed: no link, no copy of what it points at.
    await assert.rejects(Deno.lstat(join(at, "linked", "GUIDE.md")), Deno.errors.NotFound, label);
    const installed = await readTree(join(at, "linked"));
    assert.ok(![...installed.values()].includes(hostname), label);
    assert.equal(
      await Deno.readTextFile(join(at, "linked", "references", "guide.md")),
      "the guide\n",
    );
    const check = await runCli(["check", "home", "--json"], { env: { SKILLS_HOME: at } });
    assert.equal(check.code, 0, check.stdout);
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

Deno.test("a left-out link's target is shown inert: an escape sequence in it never reaches the terminal", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "painted");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    "---\nname: painted\ndescription: A skill with a painted link.\n---\n\n# Painted\n",
  );
  await Deno.symlink("/nowhere/\x1b[2K\x1b[1Ainstalled safely", join(dir, "notes.md"));
  const added = await runCli(["add", dir, "--yes"], {
    env: { SKILLS_HOME: join(tmp.path, "home") },
  });
  assert.equal(added.code, 0, added.stderr);
  assert.ok(!added.stderr.includes("\x1b"), JSON.stringify(added.stderr));
  assert.match(
    added.stderr,
    /notes\.md: a symlink to \/nowhere\/.*2K.*installed safely, leading nowhere/,
  );
});
