/**
 * A command of an older version that died mid-change left its journal in the format it
 * wrote then — `intent.json` in `$SKILLS_HOME/.staging/<id>/`, `project-intent.json` in a
 * project's `.agents/.staging/<id>/` — and the next command of this version (one change,
 * one journal format) still reads it: it rolls the change back, or leaves a finished one as
 * it is, exactly as the older version's recovery did. Each journal is written here by hand
 * in the shape the older code wrote it, with the folders as they were at the crash.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { project } from "../../helpers/project.ts";
import { writeTree } from "../../helpers/tree.ts";
import { sha256Hex } from "../../helpers/bytes.ts";

/** A staging folder of a command that has exited: its `.owner` is no longer locked. */
async function deadStaging(base: string): Promise<{ id: string; staging: string; trash: string }> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  const id = `${child.pid}-0badc0de`;
  const staging = join(base, ".staging", id);
  await Deno.mkdir(staging, { recursive: true });
  await Deno.writeTextFile(join(staging, ".owner"), "");
  const trash = join(base, ".trash", id);
  await Deno.mkdir(trash, { recursive: true });
  return { id, staging, trash };
}

/**
 * Writes the older version's journal `name` into the dead command's `staging` folder as that
 * version wrote it: `version` 1, the change's own fields, and one item, for `alpha`.
 */
async function writeJournal(
  staging: string,
  name: "intent.json" | "project-intent.json",
  change: Record<string, unknown>,
  item: Record<string, unknown>,
): Promise<void> {
  await Deno.writeTextFile(
    join(staging, name),
    JSON.stringify({ version: 1, ...change, items: [{ canonical: "alpha", ...item }] }),
  );
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("an update an older version left half done in $SKILLS_HOME (intent.json) is rolled back by the next command", async () => {
  await using p = await project();
  const source = join(p.dir, "vendor", "alpha");
  await writeTree(source, skillFiles("alpha"));
  const add = await p.cli(["add", source, "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const installed = join(p.home, "alpha");
  const v1 = await p.files(installed);

  // The crash: the old folder moved aside, the new one moved in, the registry not written.
  const dead = await deadStaging(p.home);
  await Deno.rename(installed, join(dead.trash, "alpha"));
  await writeTree(installed, { "SKILL.md": skillMd("alpha", "Version two, never recorded.") });
  await writeJournal(dead.staging, "intent.json", { op: "update" }, {
    target: installed,
    aside: join(dead.trash, "alpha"),
    updatedAt: "2099-01-01T00:00:00.000Z",
  });

  // The next change (a re-run of the same add: nothing to do) recovers first.
  const next = await p.cli(["add", source, "--yes"]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /rolled back the interrupted update of 'alpha'/);
  assert.match(next.stdout, /Already installed 'alpha'/);
  assert.deepEqual(await p.files(installed), v1, "the recorded version is back");
  assert.equal(await exists(dead.staging), false);
  assert.equal(await exists(dead.trash), false);
  const check = await p.cli(["check", "--json"]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

Deno.test("an install an older version finished in $SKILLS_HOME (intent.json, entry written) is kept", async () => {
  await using p = await project();
  const source = join(p.dir, "vendor", "alpha");
  await writeTree(source, skillFiles("alpha"));
  assert.equal((await p.cli(["add", source, "--yes"])).code, 0);
  const registry = JSON.parse(await Deno.readTextFile(join(p.home, "registry.json")));
  const entry = registry.skills.find((s: { name_canonical: string }) =>
    s.name_canonical === "alpha"
  );
  // It died after writing the registry, before removing its staging folder.
  const dead = await deadStaging(p.home);
  await writeJournal(dead.staging, "intent.json", { op: "install" }, {
    target: join(p.home, "alpha"),
    aside: null,
    updatedAt: entry.updated_at,
  });
  const next = await p.cli(["add", source, "--yes"]);
  assert.equal(next.code, 0, next.stderr);
  assert.doesNotMatch(next.stderr, /rolled back/);
  assert.ok(await exists(join(p.home, "alpha", "SKILL.md")), "the install stands");
  assert.equal(await exists(dead.staging), false, "its leftovers are cleared");
});

/** A project with `alpha` added from a folder: its lockfile written, its folder in place. */
async function projectWithAlpha(p: Awaited<ReturnType<typeof project>>) {
  const source = join(p.root, "vendor", "alpha");
  await writeTree(source, skillFiles("alpha"));
  const add = await p.cli(["add", source, "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  return join(p.root, ".agents", "skills", "alpha");
}

Deno.test("a project update an older version left before its lockfile (project-intent.json) is rolled back by `skills install`", async () => {
  await using p = await project();
  const folder = await projectWithAlpha(p);
  const v1 = await p.files(folder);
  const lockText = await Deno.readTextFile(join(p.root, "skills-lock.json"));

  // The crash: folders swapped, the lockfile (whose hash the journal holds) never written.
  const dead = await deadStaging(join(p.root, ".agents"));
  await Deno.rename(folder, join(dead.trash, "alpha"));
  await writeTree(folder, { "SKILL.md": skillMd("alpha", "Version two, never locked.") });
  await writeJournal(dead.staging, "project-intent.json", {
    lockfile: sha256Hex(lockText.replace("alpha", "alpha-next")),
  }, {
    target: folder,
    aside: join(dead.trash, "alpha"),
    staged: join(dead.staging, "new", "alpha"),
    hadOld: true,
  });

  const install = await p.cli(["install", "--frozen"]);
  assert.equal(install.code, 0, install.stdout + install.stderr);
  assert.match(install.stderr, /rolled back the interrupted change of project skill 'alpha'/);
  assert.deepEqual(await p.files(folder), v1, "the locked files are back");
  assert.equal(await Deno.readTextFile(join(p.root, "skills-lock.json")), lockText);
  assert.equal(
    await exists(join(p.root, ".agents", ".staging")),
    false,
    "nothing left in git status",
  );
  assert.equal(await exists(join(p.root, ".agents", ".trash")), false);
});

Deno.test("a project install an older version finished (project-intent.json, lockfile written) is kept", async () => {
  await using p = await project();
  const folder = await projectWithAlpha(p);
  const lockText = await Deno.readTextFile(join(p.root, "skills-lock.json"));
  // It died after the lockfile, before removing its staging: the lockfile is the announced one.
  const dead = await deadStaging(join(p.root, ".agents"));
  await writeJournal(dead.staging, "project-intent.json", { lockfile: sha256Hex(lockText) }, {
    target: folder,
    aside: null,
    staged: join(dead.staging, "new", "alpha"),
    hadOld: false,
  });
  const install = await p.cli(["install", "--frozen"]);
  assert.equal(install.code, 0, install.stdout + install.stderr);
  assert.doesNotMatch(install.stderr, /rolled back/);
  assert.ok(await exists(join(folder, "SKILL.md")), "the install stands");
  assert.equal(await exists(dead.staging), false, "its leftovers are cleared");
});
