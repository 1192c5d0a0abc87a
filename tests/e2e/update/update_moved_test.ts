/**
 * `skills update` of a skill its repository moved or removed, as public skill repositories do
 * between versions (`.codex/skills/gh-cli` → `plugins/gh-cli/skills/gh-cli`,
 * `document-skills/pdf` → `pdf`): the update follows the one skill of the same name to its
 * new folder and records it there; a skill gone from the repository is kept as installed,
 * with what to do; two skills of that name are not chosen between.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, multiSkillFiles, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { userHome } from "../../helpers/user_home.ts";
import { project } from "../../helpers/project.ts";
import { readTree } from "../../helpers/tree.ts";

/** `skills/<name>` moved to `to` (its files, one of them changed), in one commit. */
function moveSkill(name: string, to: string): Record<string, string | null> {
  return {
    [`skills/${name}`]: null,
    ...skillFiles(name, to),
    [`${to}/references/guide.md`]: `# ${name} guide, second edition\n`,
  };
}

/**
 * `skills/<name>` moved into a plugin, `plugins/tools/skills/<name>`, which the repository's
 * marketplace now lists (four levels down: found through the plugin, as `skills add` finds it).
 */
function moveIntoPlugin(name: string): Record<string, string | null> {
  return {
    ...moveSkill(name, `plugins/tools/skills/${name}`),
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "fixture-skills",
      plugins: [{ name: "tools", source: "./plugins/tools" }],
    }),
  };
}

Deno.test("update follows a skill its repository moved, and keeps one it removed, saying what to do", async () => {
  await using ws = await userHome();
  const repo = await createRepo(ws.dir.path, "moving", multiSkillFiles(["alpha", "beta"]));
  const added = await ws.cli(["add", repo.url, "--skill", "*", "--yes"]);
  assert.equal(added.code, 0, added.stderr);
  const betaBefore = await readTree(join(ws.home, "beta"));
  await repo.commit({ ...moveIntoPlugin("alpha"), "skills/beta": null });

  const outdated = await ws.cli(["outdated", "--json"]);
  const rows = JSON.parse(outdated.stdout).skills as {
    name: string;
    status: string;
    error?: string;
  }[];
  const row = (name: string) => rows.find((r) => r.name === name);
  assert.equal(row("alpha")?.status, "outdated", outdated.stdout);
  assert.equal(row("beta")?.status, "error", outdated.stdout);
  assert.match(row("beta")?.error ?? "", /removed upstream/);

  const update = await ws.cli(["update", "--all", "--yes"]);
  assert.equal(update.code, 1, "a skill that could not be updated fails the command");
  assert.match(
    update.stdout,
    /^ {2}moved in its repository: skills\/alpha → plugins\/tools\/skills\/alpha$/m,
  );
  assert.match(update.stdout, /^alpha: updated to [0-9a-f]{8}$/m);
  assert.match(
    update.stdout,
    /^beta: Cannot update skill 'beta': the new version has no SKILL\.md at 'skills\/beta', and no skill of its name is elsewhere in it: it was removed upstream$/m,
  );
  const betaCommit = (await ws.registry())!.skills.find((s) => s.name_canonical === "beta")!
    .commit_sha!.slice(0, 12);
  assert.match(
    update.stdout,
    new RegExp(
      `^ {2}hint: The installed version is kept as it is: \`skills remove beta\` drops it, \`skills update beta --ref ${betaCommit}\` pins it there$`,
      "m",
    ),
  );

  // alpha is the moved folder's files, recorded at its new path; beta is as it was.
  const entry = (await ws.registry())!.skills.find((s) => s.name_canonical === "alpha")!;
  assert.equal(entry.source.subpath, "plugins/tools/skills/alpha");
  assert.equal(entry.commit_sha, await repo.head());
  const alpha = await readTree(join(ws.home, "alpha"));
  assert.equal(alpha.get("references/guide.md"), "# alpha guide, second edition\n");
  assert.equal(alpha.has("LICENSE.txt"), false, "the old folder's files are not kept");
  assert.deepEqual(await readTree(join(ws.home, "beta")), betaBefore);

  // The pin the hint offers: beta is left alone from then on, and nothing fails.
  const pinned = await ws.cli(["update", "beta", "--ref", betaCommit, "--yes"]);
  assert.equal(pinned.code, 0, pinned.stdout + pinned.stderr);
  const quiet = await ws.cli(["update", "--all", "--yes"]);
  assert.equal(quiet.code, 0, quiet.stdout + quiet.stderr);
  assert.match(quiet.stdout, /^beta: pinned to [0-9a-f]{8}; left alone/m);

  const again = await ws.cli(["update", "alpha", "--yes"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^alpha: up to date/m);
  const list = await ws.cli(["list", "--json"]);
  const listed = JSON.parse(list.stdout).skills.find((s: { name: string }) => s.name === "alpha");
  assert.equal(listed.state ?? "ok", "ok", list.stdout);
});

Deno.test("a skill installed under another name is found by the name its SKILL.md declares", async () => {
  await using ws = await userHome();
  const repo = await createRepo(ws.dir.path, "renamed", multiSkillFiles(["alpha", "beta"]));
  const added = await ws.cli(["add", repo.url, "--skill", "alpha", "--name", "mine", "--yes"]);
  assert.equal(added.code, 0, added.stderr);
  await repo.commit(moveSkill("alpha", "catalog/alpha"));
  const update = await ws.cli(["update", "mine", "--yes", "--json"]);
  assert.equal(update.code, 0, update.stderr);
  const [outcome] = JSON.parse(update.stdout).updates;
  assert.equal(outcome.status, "updated");
  assert.deepEqual(outcome.moved, { from: "skills/alpha", to: "catalog/alpha" });
  const entry = (await ws.registry())!.skills.find((s) => s.name_canonical === "mine")!;
  assert.equal(entry.source.subpath, "catalog/alpha");
});

Deno.test("two skills of the moved skill's name in the new version: neither is chosen", async () => {
  await using ws = await userHome();
  const repo = await createRepo(ws.dir.path, "twice", multiSkillFiles(["alpha", "beta"]));
  assert.equal((await ws.cli(["add", repo.url, "--skill", "*", "--yes"])).code, 0);
  const alphaEntry = async () =>
    (await ws.registry())!.skills.find((s) => s.name_canonical === "alpha");
  const entryBefore = await alphaEntry();
  const alphaBefore = await readTree(join(ws.home, "alpha"));
  await repo.commit({
    "skills/alpha": null,
    "one/alpha/SKILL.md": skillMd("alpha"),
    "two/alpha/SKILL.md": skillMd("alpha"),
  });
  const update = await ws.cli(["update", "--all", "--yes"]);
  assert.equal(update.code, 1);
  assert.match(
    update.stdout,
    /^alpha: Cannot update skill 'alpha': its folder 'skills\/alpha' is gone from the new version, which has 2 skills named 'alpha' \('one\/alpha', 'two\/alpha'\)$/m,
  );
  assert.match(update.stdout, /^ {2}hint: Remove it and add the one you want/m);
  assert.deepEqual(await alphaEntry(), entryBefore);
  assert.deepEqual(await readTree(join(ws.home, "alpha")), alphaBefore);
});

Deno.test("a project's locked skill follows its move: the lock records the new folder", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", multiSkillFiles(["alpha"]));
  const added = await p.cli(["add", repo.url, "--skill", "alpha", "--project", "--yes"]);
  assert.equal(added.code, 0, added.stderr);
  assert.equal((await p.lock()).skills.alpha?.skillPath, "skills/alpha/SKILL.md");
  await repo.commit(moveIntoPlugin("alpha"));
  const update = await p.cli(["update", "--project", "--yes"]);
  assert.equal(update.code, 0, update.stdout + update.stderr);
  assert.match(
    update.stdout,
    /moved in its repository: skills\/alpha → plugins\/tools\/skills\/alpha/,
  );
  const locked = (await p.lock()).skills.alpha!;
  assert.equal(locked.skillPath, "plugins/tools/skills/alpha/SKILL.md");
  assert.equal(locked.commit, await repo.head());
  const folder = await readTree(join(p.root, ".agents", "skills", "alpha"));
  assert.equal(folder.get("references/guide.md"), "# alpha guide, second edition\n");
  const check = await p.cli(["install", "--frozen"]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});
