/**
 * Bulk selections: one invalid or installed skill does not abort the rest, the accepted
 * skills are committed in one step (one registry write), and re-adding what is installed
 * is a no-op that provisioning can re-run.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";
import { userHome } from "../../helpers/user_home.ts";
import { writeTree } from "../../helpers/tree.ts";

async function workspace() {
  const ws = await userHome();
  const names = async () => (await ws.registry())!.skills.map((s) => s.name_canonical).sort();
  return { ...ws, names };
}

Deno.test("--skill '*' installs the valid skills, reports the installed and the invalid one", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "many", {
    ...skillFiles("alpha", "skills/alpha"),
    ...skillFiles("charlie", "skills/charlie"),
    ...skillFiles("delta", "skills/delta"),
    "skills/bravo/SKILL.md": "---\nname: bravo\n---\n\nNo description.\n",
  });
  assert.equal((await ws.cli(["add", repo.url, "--skill", "charlie", "--yes"])).code, 0);

  const bulk = await ws.cli(["add", repo.url, "--skill", "*", "--yes", "--json"]);
  assert.equal(bulk.code, 1, "something asked for was refused");
  const doc = JSON.parse(bulk.stdout);
  assert.deepEqual(doc.installed.map((s: { canonical: string }) => s.canonical), [
    "alpha",
    "delta",
  ]);
  assert.deepEqual(doc.already_installed.map((s: { canonical: string }) => s.canonical), [
    "charlie",
  ]);
  assert.equal(doc.refused.length, 1);
  assert.equal(doc.refused[0].name, "bravo");
  assert.match(doc.refused[0].message, /missing required field\(s\): description/);
  assert.deepEqual(await ws.names(), ["alpha", "charlie", "delta"]);
  assert.match(bulk.stderr, /warning: Not installing 'bravo': Invalid skill/);
});

Deno.test("a bulk add is one step: registry.json.bak is the registry from before the command", async () => {
  await using ws = await workspace();
  const first = await createRepo(ws.dir.path, "first", skillFiles("zulu"));
  assert.equal((await ws.cli(["add", first.url, "--yes"])).code, 0);
  const before = await Deno.readTextFile(join(ws.home, "registry.json"));
  const repo = await createRepo(ws.dir.path, "many", {
    ...skillFiles("alpha", "skills/alpha"),
    ...skillFiles("bravo", "skills/bravo"),
    ...skillFiles("charlie", "skills/charlie"),
  });

  const bulk = await ws.cli(["add", repo.url, "--skill", "*", "--yes"]);
  assert.equal(bulk.code, 0, bulk.stderr);
  assert.deepEqual(await ws.names(), ["alpha", "bravo", "charlie", "zulu"]);
  // Written skill by skill, the backup would hold the registry of the last step but one.
  assert.equal(await Deno.readTextFile(join(ws.home, "registry.json.bak")), before);
});

Deno.test("re-adding a skill at the same commit is a no-op; another commit points to update", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "one", skillFiles("alpha"));
  assert.equal((await ws.cli(["add", repo.url, "--yes"])).code, 0);
  const registry = await Deno.readTextFile(join(ws.home, "registry.json"));

  const again = await ws.cli(["add", repo.url, "--yes"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^Already installed 'alpha' at [0-9a-f]{12} \(nothing to do\)$/m);
  assert.equal(await Deno.readTextFile(join(ws.home, "registry.json")), registry, "untouched");

  await repo.commit({ "notes.md": "new\n" });
  const moved = await ws.cli(["add", repo.url, "--yes"]);
  assert.equal(moved.code, 1);
  assert.match(moved.stderr, /it is installed from this source at another commit/);
  assert.match(moved.stderr, /hint: Run `skills update alpha` to move it/);

  // A local directory: the same files are already installed.
  const local = join(ws.dir.path, "local-skill");
  await writeTree(local, { "SKILL.md": "---\nname: mine\ndescription: Mine.\n---\n\nB.\n" });
  assert.equal((await ws.cli(["add", local, "--yes"])).code, 0);
  const localAgain = await ws.cli(["add", local, "--yes"]);
  assert.equal(localAgain.code, 0, localAgain.stderr);
  assert.match(localAgain.stdout, /^Already installed 'mine' \(nothing to do\)$/m);
});

Deno.test("update --all is one step: every skill updated, registry.json.bak the registry from before", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "many", {
    ...skillFiles("alpha", "skills/alpha"),
    ...skillFiles("bravo", "skills/bravo"),
    ...skillFiles("charlie", "skills/charlie"),
  });
  assert.equal((await ws.cli(["add", repo.url, "--skill", "*", "--yes"])).code, 0);
  await repo.commit({
    "skills/alpha/notes.md": "a\n",
    "skills/bravo/notes.md": "b\n",
    "skills/charlie/notes.md": "c\n",
  });
  const before = await Deno.readTextFile(join(ws.home, "registry.json"));

  const update = await ws.cli(["update", "--all", "--yes"]);
  assert.equal(update.code, 0, update.stderr);
  for (const name of ["alpha", "bravo", "charlie"]) {
    assert.match(update.stdout, new RegExp(`^${name}: updated to [0-9a-f]+$`, "m"));
    assert.equal(await Deno.readTextFile(join(ws.home, name, "notes.md")), `${name[0]}\n`);
  }
  // Written skill by skill, the backup would hold the registry of the last step but one.
  assert.equal(await Deno.readTextFile(join(ws.home, "registry.json.bak")), before);
});
