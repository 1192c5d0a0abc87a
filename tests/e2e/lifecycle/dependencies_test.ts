/**
 * Skills that need skills, end to end with real git repositories (tags) on this machine:
 * `skills add` resolves the closure before it asks — a diamond joined at the one tag both
 * ranges allow (fetched again when the first choice does not fit), a cycle back to the skill
 * asked for closed — shows one summary, and installs it all with who requires what recorded;
 * a conflict names both paths, and a missing or refused dependency installs nothing; in a
 * project, `install --frozen` restores the closure in a fresh clone; `skills why` explains it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { project } from "../../helpers/project.ts";
import { readTree } from "../../helpers/tree.ts";

function skillMd(name: string, requires?: string, body = "Use it.\n"): string {
  const meta = requires === undefined ? "" : `metadata:\n  requires: "${requires}"\n`;
  return `---\nname: ${name}\ndescription: The ${name} skill, for dependency tests.\n${meta}---\n# ${name}\n\n${body}`;
}

/**
 * In `dir`: base (tags v1.0.0, v1.2.0, v1.3.0, v2.0.0), style (requires base ~1.2, and app:
 * a cycle), app (requires base ^1 and style), clash (requires base ^2 and style).
 */
async function writeRepos(dir: string) {
  const url = (name: string) => `file://${join(dir, `${name}.git`)}`;
  const base = await createRepo(dir, "base", {
    "SKILL.md": skillMd("base", undefined, "v1.0.0\n"),
  });
  await base.tag("v1.0.0");
  for (const version of ["v1.2.0", "v1.3.0", "v2.0.0"]) {
    await base.commit({ "SKILL.md": skillMd("base", undefined, `${version}\n`) });
    await base.tag(version);
  }
  await createRepo(dir, "style", {
    "SKILL.md": skillMd("style", `${url("base")} ~1.2, ${url("app")}`),
  });
  await createRepo(dir, "app", {
    "SKILL.md": skillMd("app", `${url("base")} ^1, ${url("style")}`),
  });
  await createRepo(dir, "clash", {
    "SKILL.md": skillMd("clash", `${url("base")} ^2, ${url("style")}`),
  });
  return { url, base };
}

Deno.test("add resolves a diamond to the one tag both ranges allow, closes a cycle, and records who requires what", async () => {
  await using tmp = await tempDir();
  const { url } = await writeRepos(tmp.path);
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path, GIT_CONFIG_GLOBAL: "/dev/null" };
  const add = await runCli(["add", url("app"), "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr, /This also installs 2 dependencies:/);
  assert.match(add.stderr, /base \(file:\/\/\S+base\.git at v1\.2\.0\) required by app, style/);
  assert.match(add.stderr, /style \(file:\/\/\S+style\.git at [0-9a-f]{12}\) required by app/);
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  const entry = (name: string) => registry.skills.find((e: { name: string }) => e.name === name);
  assert.equal(entry("base").tag, "v1.2.0", "^1 and ~1.2 meet at v1.2.0, not ^1's v1.3.0");
  assert.deepEqual(entry("base").required_by, ["app", "style"]);
  assert.deepEqual(entry("style").required_by, ["app"]);
  assert.equal(entry("app").required_by, undefined, "asked for, required by none");
  assert.match(await Deno.readTextFile(join(home, "base", "SKILL.md")), /v1\.2\.0/);

  const why = await runCli(["why", "base"], { env });
  assert.equal(why.code, 0, why.stderr);
  assert.match(why.stdout, /app → base/);
  assert.match(why.stdout, /app → style → base/);

  const tree = await runCli(["list", "--tree"], { env });
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /^app\n {2}base\n {2}style\n {4}base\n/m);

  // Activating app makes what it requires available to the model too.
  const listed = await runCli(["list", "--json"], { env: { ...env, AGENT_SKILLS: "app" } });
  const active = JSON.parse(listed.stdout).skills.filter((s: { active: boolean }) => s.active)
    .map((s: { canonical: string }) => s.canonical).sort();
  assert.deepEqual(active, ["app", "base", "style"]);

  // Removing app shows and removes the dependencies nothing else needs.
  const remove = await runCli(["remove", "app", "--yes"], { env });
  assert.equal(remove.code, 0, remove.stderr);
  assert.match(remove.stderr, /Skill 'base'[\s\S]*a dependency nothing else installed needs/);
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills,
    [],
    "app, style and base are gone",
  );
});

Deno.test("a conflict names both paths, and a missing or refused dependency installs nothing", async () => {
  await using tmp = await tempDir();
  const { url } = await writeRepos(tmp.path);
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path, GIT_CONFIG_GLOBAL: "/dev/null" };

  const clash = await runCli(["add", url("clash"), "--yes"], { env });
  assert.equal(clash.code, 1, clash.stderr);
  assert.match(
    clash.stderr,
    /'file:\/\/\S+base\.git' is required as \^2 by clash and as ~1\.2 by clash → style, and no version satisfies both/,
  );

  const missing = await createRepo(tmp.path, "lonely", {
    "SKILL.md": skillMd("lonely", `${url("nowhere")}`),
  });
  const gone = await runCli(["add", missing.url, "--yes"], { env });
  assert.equal(gone.code, 1);
  assert.match(
    gone.stderr,
    /Cannot install lonely: its dependency '\S+nowhere\.git' cannot be fetched/,
  );

  await createRepo(tmp.path, "broken", { "SKILL.md": "---\nname: broken\n---\nno description\n" });
  const uses = await createRepo(tmp.path, "uses-broken", {
    "SKILL.md": skillMd("uses-broken", url("broken")),
  });
  const refused = await runCli(["add", uses.url, "--yes"], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot install uses-broken: its dependency Invalid skill/);

  const noTag = await createRepo(tmp.path, "far", {
    "SKILL.md": skillMd("far", `${url("base")} ^3`),
  });
  const none = await runCli(["add", noTag.url, "--yes"], { env });
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /has no tag that satisfies \^3 \(tags: v1\.0\.0, v1\.2\.0, v1\.3\.0, v2\.0\.0\)/,
  );

  const left = [...(await readTree(home)).keys()].filter((p) => !p.startsWith("."));
  assert.deepEqual(left, [], "no skill, no registry");
});

Deno.test("a project's closure is locked with requiredBy and install --frozen restores it in a fresh clone", async () => {
  await using p = await project();
  const { url } = await writeRepos(p.dir);
  const add = await p.cli(["add", url("app"), "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const lock = await p.lock();
  assert.deepEqual(Object.keys(lock.skills).sort(), ["app", "base", "style"]);
  assert.deepEqual((lock.skills.base as unknown as { requiredBy: string[] }).requiredBy, [
    "app",
    "style",
  ]);
  assert.equal(lock.skills.base!.tag, "v1.2.0");

  const clone = join(p.dir, "clone");
  await git(p.dir, ["init", "--quiet", clone]);
  await Deno.copyFile(join(p.root, "skills-lock.json"), join(clone, "skills-lock.json"));
  const frozen = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  for (const name of ["app", "base", "style"]) {
    assert.deepEqual(
      await readTree(join(clone, ".agents", "skills", name)),
      await readTree(join(p.root, ".agents", "skills", name)),
      name,
    );
  }
  const why = await p.cli(["why", "style"]);
  assert.match(why.stdout, /app → style/);

  const remove = await p.cli(["remove", "app", "--yes"]);
  assert.equal(remove.code, 0, remove.stderr);
  assert.deepEqual((await p.lock()).skills, {}, "the dependencies went with app");
  assert.deepEqual(await readTree(join(p.root, ".agents", "skills")), new Map());
});

Deno.test("update moves a dependency to the highest tag its ranges still allow, never past them", async () => {
  await using tmp = await tempDir();
  const { url, base } = await writeRepos(tmp.path);
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path, GIT_CONFIG_GLOBAL: "/dev/null" };
  assert.equal((await runCli(["add", url("app"), "--yes"], { env })).code, 0);
  for (const version of ["v1.2.5", "v1.4.0"]) {
    await base.commit({ "SKILL.md": skillMd("base", undefined, `${version}\n`) });
    await base.tag(version);
  }
  const outdated = await runCli(["outdated", "--json"], { env });
  const row = JSON.parse(outdated.stdout).skills.find((s: { name: string }) => s.name === "base");
  assert.equal(row.status, "outdated", outdated.stdout);
  const update = await runCli(["update", "base", "--yes"], { env });
  assert.equal(update.code, 0, update.stderr);
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  const entry = registry.skills.find((e: { name: string }) => e.name === "base");
  assert.equal(entry.tag, "v1.2.5", "^1 and ~1.2 allow v1.2.5, not v1.4.0");
  assert.deepEqual(entry.version_ranges, ["^1", "~1.2"]);
  assert.match(await Deno.readTextFile(join(home, "base", "SKILL.md")), /v1\.2\.5/);
});

Deno.test("a dependency installed already is required by the new skill too, and remove keeps it while anything needs it", async () => {
  await using tmp = await tempDir();
  const { url } = await writeRepos(tmp.path);
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path, GIT_CONFIG_GLOBAL: "/dev/null" };
  assert.equal((await runCli(["add", url("app"), "--yes"], { env })).code, 0);
  const other = await createRepo(tmp.path, "other", {
    "SKILL.md": skillMd("other", `${url("base")} ~1.2`),
  });
  const add = await runCli(["add", other.url, "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
  const requirers = async (name: string) =>
    JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills
      .find((e: { name: string }) => e.name === name)?.required_by;
  assert.deepEqual(await requirers("base"), ["app", "other", "style"]);

  const why = await runCli(["why", "base"], { env });
  assert.match(why.stdout, /other → base/);

  const removeApp = await runCli(["remove", "app", "--yes"], { env });
  assert.equal(removeApp.code, 0, removeApp.stderr);
  const left = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills
    .map((e: { name: string }) => e.name).sort();
  assert.deepEqual(left, ["base", "other"], "style went with app; other still needs base");
  assert.match(await Deno.readTextFile(join(home, "base", "SKILL.md")), /v1\.2\.0/);

  const removeOther = await runCli(["remove", "other", "--yes"], { env });
  assert.equal(removeOther.code, 0, removeOther.stderr);
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills,
    [],
    "nothing needs base any more",
  );
});

Deno.test("in a project, a locked dependency met again gains the new requirer in skills-lock.json", async () => {
  await using p = await project();
  const { url } = await writeRepos(p.dir);
  assert.equal((await p.cli(["add", url("app"), "--project", "--yes"])).code, 0);
  const other = await createRepo(p.dir, "other", {
    "SKILL.md": skillMd("other", `${url("base")} ~1.2`),
  });
  const add = await p.cli(["add", other.url, "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const lock = await p.lock();
  assert.deepEqual(
    (lock.skills.base as unknown as { requiredBy: string[] }).requiredBy,
    ["app", "other", "style"],
  );
  const removed = await p.cli(["remove", "app", "--project", "--yes"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(Object.keys((await p.lock()).skills).sort(), ["base", "other"]);
});

Deno.test("metadata.requires naming a program, not a skill (grahama1970's `requires: docker`), installs with a warning", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path, GIT_CONFIG_GLOBAL: "/dev/null" };
  const repo = await createRepo(tmp.path, "battle", { "SKILL.md": skillMd("battle", "docker") });
  const added = await runCli(["add", repo.url, "--yes", "--json"], { env });
  assert.equal(added.code, 0, added.stderr);
  assert.match(
    added.stderr,
    /battle: SKILL\.md: metadata\.requires: 'docker' names no skill to install \(no owner\/repo, URL or scheme\): not read as a dependency/,
  );
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  assert.deepEqual(registry.skills.map((e: { name: string }) => e.name), ["battle"]);
});
