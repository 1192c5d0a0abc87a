/** What `skills update` says: local-directory skills, --force, one ls-remote per remote. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, multiSkillFiles, pyScript, skillFiles } from "../../fixtures/git_repos.ts";
import { userHome } from "../../helpers/user_home.ts";

async function workspace() {
  return await userHome();
}

Deno.test("updating a skill copied from a directory names the directory, never '- → -'", async () => {
  await using ws = await workspace();
  const source = join(ws.dir.path, "mine");
  await Deno.mkdir(source);
  await Deno.writeTextFile(
    join(source, "SKILL.md"),
    "---\nname: mine\ndescription: My skill.\n---\n\nBody.\n",
  );
  assert.equal((await ws.cli(["add", source, "--yes"])).code, 0);
  const same = await ws.cli(["update", "mine", "--yes"]);
  assert.equal(same.code, 0, same.stderr);
  assert.match(same.stdout, /^mine: up to date \(directory .*mine\)$/m);
  await Deno.writeTextFile(join(source, "notes.md"), "new\n");
  const result = await ws.cli(["update", "mine", "--yes"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^mine: new files in ${source}$`, "m"));
  assert.match(result.stdout, new RegExp(`^mine: updated from ${source}$`, "m"));
  assert.doesNotMatch(result.stdout + result.stderr, /- → -|updated to -|\(-, /);
});

Deno.test("update --force says the local changes will be discarded, not that it needs --force", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  assert.equal((await ws.cli(["add", repo.url, "--yes"])).code, 0);
  await repo.commit({ "extra.md": "x\n" });
  await Deno.writeTextFile(
    join(ws.home, "alpha", "scripts", "hello.py"),
    pyScript("print('mine')"),
  );
  const forced = await ws.cli(["update", "alpha", "--yes", "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /! local changes will be discarded \(--force\)/);
  assert.doesNotMatch(forced.stdout, /needs --force/);
});

Deno.test("update --all asks each remote once, however many skills come from it", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "multi", multiSkillFiles(["a1", "a2", "a3"]));
  const added = await ws.cli(["add", repo.url, "--skill", "*", "--yes"]);
  assert.equal(added.code, 0, added.stderr);
  await repo.commit({ "skills/a2/notes.md": "n\n" });
  const all = await ws.cli(["update", "--all", "--yes"]);
  assert.equal(all.code, 0, all.stdout + all.stderr);
  const checks = all.stderr.split("\n").filter((line) => line.startsWith(`Checking ${repo.url}`));
  assert.equal(checks.length, 1, all.stderr);
  // Only a2's folder changed: a1 and a3 keep their files (issue 25, per-skill precision).
  assert.match(all.stdout, /^a2: updated to [0-9a-f]{8}/m);
  for (const name of ["a1", "a3"]) {
    assert.match(all.stdout, new RegExp(`^${name}: repository moved, skill unchanged`, "m"));
  }
  assert.match(all.stdout, /^ {2}\+ notes\.md$/m);
});
