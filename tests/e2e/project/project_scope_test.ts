/**
 * Project skills beside the user's, end to end in a temporary git project: a project skill
 * shadows a user skill (and `list --json` says so); an untrusted project skill's
 * instructions can be read but its script is refused until `skills trust`; `link --agent
 * claude-code` makes `.claude/skills/<name>` and `check` flags an edit made through it;
 * `outdated` exits 1 after an upstream commit and 0 after `update`; `check` reports
 * lockfile drift with its fix; `remove` takes the folder, the lock entry and the links.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";
import { project } from "../../helpers/project.ts";

Deno.test("a project skill shadows a user skill of the same name, and list --json says so", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));
  assert.equal((await p.cli(["add", repo.url, "--yes"], { cwd: p.dir })).code, 0);
  await Deno.mkdir(join(p.root, ".claude", "skills"), { recursive: true });
  for (const [rel, text] of Object.entries(skillFiles("alpha", ".claude/skills/alpha"))) {
    await Deno.mkdir(join(p.root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(p.root, rel), text);
  }
  const list = await p.cli(["list", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  const doc = JSON.parse(list.stdout);
  const alpha = doc.skills.filter((s: { canonical: string }) => s.canonical === "alpha");
  assert.equal(alpha.length, 1);
  assert.equal(alpha[0].scope, "project");
  assert.equal(alpha[0].path, join(p.root, ".claude", "skills", "alpha"));
  assert.deepEqual(alpha[0].shadows, [{ scope: "user", path: join(p.home, "alpha") }]);
  assert.deepEqual(doc.shadowed, [{
    name: "alpha",
    scope: "user",
    path: join(p.home, "alpha"),
    status: "shadowed",
    shadowed_by: { scope: "project", path: join(p.root, ".claude", "skills", "alpha") },
  }]);
  const text = await p.cli(["list"]);
  assert.match(text.stdout, /^NAME\s+VERSION\s+SOURCE\s+ACTIVE\s+TRUSTED\s+SCOPE/);
  assert.match(text.stdout, /^alpha\s+-\s+local\s+no\s+no\s+project/m);
  assert.match(
    text.stdout,
    /^ {2}alpha \(user, .*\) by the project skill in .*\.claude\/skills\/alpha$/m,
  );
  // Outside the project, the user's skill is the one.
  const outside = JSON.parse((await p.cli(["list", "--json"], { cwd: p.dir })).stdout);
  assert.equal(
    outside.skills.find((s: { canonical: string }) => s.canonical === "alpha").scope,
    "user",
  );
  assert.deepEqual(outside.shadowed, []);
});

Deno.test("an untrusted project skill can be read, but its script runs only after skills trust", async () => {
  await using p = await project();
  // Checked in by someone else: present in the clone, never approved by this user.
  for (const [rel, text] of Object.entries(skillFiles("gamma", ".agents/skills/gamma"))) {
    await Deno.mkdir(join(p.root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(p.root, rel), text);
  }
  const refused = await p.cli(["run", "gamma", "hello"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /error: Skill 'gamma' is not trusted/);
  assert.match(refused.stderr, /hint: .*skills trust gamma/);
  const info = await p.cli(["info", "gamma"]);
  assert.equal(info.code, 0, info.stderr);
  assert.match(info.stdout, /^Scope +project \(\.agents\/skills\/gamma in .*app\)$/m);
  assert.match(info.stdout, /^Trusted +no$/m);

  const trust = await p.cli(["trust", "gamma", "--yes"]);
  assert.equal(trust.code, 0, trust.stderr);
  assert.match(trust.stdout, /^Trusted project skill 'gamma' \(sha256:[0-9a-f]{64}\)$/m);
  const trusted = JSON.parse(await Deno.readTextFile(join(p.home, "project-trust.json")));
  assert.deepEqual(Object.keys(trusted.projects), [p.root], "keyed by the project, in the home");
  const ran = await p.cli(["run", "gamma", "hello"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(JSON.parse(ran.stdout), { skill: "gamma", ok: true });
  // prompt, mcp and chat say where each skill comes from.
  const prompt = await p.cli(["prompt", "--skills", "gamma,hello-extended", "--json"]);
  assert.deepEqual(
    JSON.parse(prompt.stdout).skills.map((s: { name: string; scope: string }) => [s.name, s.scope]),
    [["gamma", "project"], ["hello-extended", "bundled"]],
  );
  const text = await p.cli(["prompt", "--skills", "gamma"]);
  assert.match(text.stderr, /^skills: gamma \(project\)$/m);
  const mcp = await p.cli(["mcp", "--skills", "gamma"], { env: {} });
  assert.match(mcp.stderr, /serving gamma \(project\) over stdio/);

  await Deno.writeTextFile(
    join(p.root, ".agents", "skills", "gamma", "scripts", "hello.py"),
    "print('changed')\n",
    { append: true },
  );
  const changed = await p.cli(["run", "gamma", "hello"]);
  assert.equal(changed.code, 1);
  assert.match(changed.stderr, /files changed since you trusted it/);
  const untrust = await p.cli(["untrust", "gamma"]);
  assert.equal(untrust.code, 0, untrust.stderr);
  assert.match((await p.cli(["run", "gamma", "hello"])).stderr, /is not trusted/);
});

Deno.test("link --agent claude-code makes .claude/skills/<name>; check flags an edit made through it; remove takes the links", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));
  const add = await p.cli(["add", repo.url, "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const link = await p.cli(["link", "--agent", "claude-code", "--agent", "codex"]);
  assert.equal(link.code, 0, link.stderr);
  const linkPath = join(p.root, ".claude", "skills", "alpha");
  assert.match(link.stdout, new RegExp(`^Linked 'alpha' for claude-code: ${linkPath}$`, "m"));
  assert.match(link.stdout, /^'alpha' is already visible to codex/m);
  assert.equal(Deno.readLinkSync(linkPath), join("..", "..", ".agents", "skills", "alpha"));
  const list = JSON.parse((await p.cli(["list", "--json"])).stdout);
  assert.deepEqual(list.shadowed, [], "the link is not a second skill");
  assert.equal((await p.cli(["check"])).code, 0);

  await Deno.writeTextFile(join(linkPath, "SKILL.md"), "\nEdited through the link.\n", {
    append: true,
  });
  const check = await p.cli(["check", "--json"]);
  assert.equal(check.code, 1);
  const doc = JSON.parse(check.stdout);
  assert.equal(doc.links.length, 1);
  assert.equal(doc.links[0].path, linkPath);
  assert.match(doc.links[0].problem, /no longer match the trusted digest of 'alpha'/);
  assert.deepEqual(
    doc.project.drift.map((d: { name: string; kind: string }) => [d.name, d.kind]),
    [["alpha", "changed"]],
  );
  assert.equal(doc.skills.find((s: { name: string }) => s.name === "alpha").status, "modified");
  const text = await p.cli(["check"]);
  assert.match(
    text.stdout,
    /✗ alpha: files differ from skills-lock.json: ~ SKILL.md; run `skills install --force`/,
  );

  const remove = await p.cli(["remove", "alpha", "--yes"]);
  assert.equal(remove.code, 0, remove.stderr);
  assert.match(remove.stdout, /^Removed project skill 'alpha'$/m);
  assert.match(remove.stdout, new RegExp(`^Removed link ${linkPath}$`, "m"));
  assert.equal(await Deno.lstat(linkPath).catch(() => null), null);
  assert.equal(
    await Deno.lstat(join(p.root, ".agents", "skills", "alpha")).catch(() => null),
    null,
  );
  assert.deepEqual((await p.lock()).skills, {});
});

Deno.test("outdated exits 1 after an upstream commit and 0 after update, which moves the lockfile too", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", {
    ...skillFiles("alpha", "skills/alpha"),
    ...skillFiles("beta", "skills/beta"),
  });
  assert.equal((await p.cli(["add", repo.url, "--project", "--skill", "*", "--yes"])).code, 0);
  const other = await createRepo(p.dir, "other", skillFiles("omega"));
  assert.equal((await p.cli(["add", other.url, "--yes"])).code, 0, "an installed user skill");
  const fresh = await p.cli(["outdated", "--json"]);
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.deepEqual(
    JSON.parse(fresh.stdout).skills.map((s: Record<string, string>) => [s.name, s.scope, s.status]),
    [
      ["alpha", "project", "up_to_date"],
      ["beta", "project", "up_to_date"],
      ["omega", "user", "up_to_date"],
    ],
  );

  const head = await repo.commit({ "skills/alpha/notes.md": "new upstream\n" });
  const stale = await p.cli(["outdated"]);
  assert.equal(stale.code, 1);
  assert.match(
    stale.stdout,
    /^alpha\s+project\s+branch main\s+[0-9a-f]{8}\s+[0-9a-f]{8}\s+outdated$/m,
  );
  assert.match(stale.stdout, /^omega\s+user\s+branch main\s+.*up to date$/m);
  assert.equal((stale.stderr.match(/Checking /g) ?? []).length, 2, "one ls-remote per remote");

  const dry = await p.cli(["update", "alpha", "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^alpha: [0-9a-f]{8} → [0-9a-f]{8} \(branch main\)$/m);
  assert.match(dry.stdout, /^ {2}\+ notes\.md$/m);
  assert.notEqual((await p.lock()).skills.alpha!.commit, head, "a dry run changes nothing");
  const update = await p.cli(["update", "--project", "--yes"]);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stdout, /^alpha: updated to [0-9a-f]{8}/m);
  // beta's folder did not change (issue 25): its files stay, its new commit is recorded.
  assert.match(
    update.stdout,
    /^beta: repository moved, skill unchanged \([0-9a-f]{8} → [0-9a-f]{8}, branch main\); files kept, recorded the new commit$/m,
  );
  assert.equal((await p.lock()).skills.alpha!.commit, head);
  assert.equal((await p.lock()).skills.beta!.commit, head);
  assert.equal((await p.cli(["outdated"])).code, 0);
  assert.equal((await p.cli(["install", "--frozen"])).code, 0, "folder and lock agree");
  const run = await p.cli(["run", "alpha", "hello"]);
  assert.equal(run.code, 0, `still trusted after the update: ${run.stderr}`);
});

Deno.test("check in a project reports each drift with its fix: missing, unlocked folder, untrusted", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", {
    ...skillFiles("alpha", "skills/alpha"),
    ...skillFiles("beta", "skills/beta"),
  });
  assert.equal((await p.cli(["add", repo.url, "--project", "--skill", "*", "--yes"])).code, 0);
  await Deno.remove(join(p.root, ".agents", "skills", "beta"), { recursive: true });
  for (const [rel, text] of Object.entries(skillFiles("stray", ".agents/skills/stray"))) {
    await Deno.mkdir(join(p.root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(p.root, rel), text);
  }
  const check = await p.cli(["check", "--json"]);
  assert.equal(check.code, 1);
  const drift = JSON.parse(check.stdout).project.drift.map((d: Record<string, string>) => [
    d.name,
    d.kind,
    d.severity,
    d.fix,
  ]);
  assert.deepEqual(drift, [
    ["beta", "missing", "error", "run `skills install`"],
    [
      "stray",
      "extra",
      "error",
      "record it with `skills add <source> --project`, or remove the folder",
    ],
    ["stray", "untrusted", "note", "review it (`skills info stray`), then `skills trust stray`"],
  ]);
  const install = await p.cli(["install"]);
  assert.equal(install.code, 0, install.stderr);
  assert.match(install.stdout, /^Restored 'beta'/m);
  assert.match(install.stdout, /^! stray: in .agents\/skills but not in skills-lock.json$/m);
});

Deno.test("add --agent links an installed skill into the user's agent folders; --copy copies; check verifies; remove removes them", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));
  const add = await p.cli(["add", repo.url, "--agent", "claude-code", "--yes"], { cwd: p.dir });
  assert.equal(add.code, 0, add.stderr);
  const claude = join(p.dir, ".claude", "skills", "alpha");
  assert.match(add.stdout, new RegExp(`^Linked 'alpha' for claude-code: ${claude}$`, "m"));
  assert.equal(Deno.readLinkSync(claude), join(p.home, "alpha"));

  const copy = await p.cli([
    "link",
    "alpha",
    "--agent",
    "windsurf",
    "--global",
    "--copy",
    "--json",
  ]);
  assert.equal(copy.code, 0, copy.stderr);
  const windsurf = join(p.dir, ".codeium", "windsurf", "skills", "alpha");
  assert.deepEqual(
    JSON.parse(copy.stdout).links.map((l: { status: string; path: string }) => [l.status, l.path]),
    [
      ["copied", windsurf],
    ],
  );
  assert.ok(!Deno.lstatSync(windsurf).isSymlink);
  assert.equal((await p.cli(["check"])).code, 0);
  const again = await p.cli(["link", "alpha", "--agent", "windsurf", "--global", "--copy"]);
  assert.match(again.stdout, /^'alpha' is already linked for windsurf/m);

  await Deno.writeTextFile(join(windsurf, "SKILL.md"), "\nEdited in the copy.\n", { append: true });
  const check = JSON.parse((await p.cli(["check", "--json"])).stdout);
  assert.deepEqual(check.links.map((l: { path: string }) => l.path), [windsurf]);
  assert.match(check.links[0].fix, /--copy` to replace the copy with the trusted files/);
  assert.equal(check.healthy, false);

  // Something this tool did not make is never replaced.
  await Deno.mkdir(join(p.dir, ".claude", "skills", "mine"), { recursive: true });
  const unknown = await p.cli(["link", "nosuch", "--agent", "claude-code", "--global"]);
  assert.equal(unknown.code, 1);

  const remove = await p.cli(["remove", "alpha", "--yes", "--json"]);
  assert.equal(remove.code, 0, remove.stderr);
  assert.deepEqual(JSON.parse(remove.stdout).links_removed.sort(), [claude, windsurf].sort());
  assert.equal(await Deno.lstat(claude).catch(() => null), null);
  assert.equal(await Deno.lstat(windsurf).catch(() => null), null);
  assert.ok(Deno.statSync(join(p.dir, ".claude", "skills", "mine")).isDirectory, "not ours: kept");
});

Deno.test("link refuses an untrusted skill and a path it did not make", async () => {
  await using p = await project();
  for (const [rel, text] of Object.entries(skillFiles("gamma", ".agents/skills/gamma"))) {
    await Deno.mkdir(join(p.root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(p.root, rel), text);
  }
  const refused = await p.cli(["link", "gamma", "--agent", "claude-code"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /Not linking 'gamma' for claude-code: 'gamma' is not trusted/);
  assert.equal((await p.cli(["trust", "gamma", "--yes"])).code, 0);
  await Deno.mkdir(join(p.root, ".claude", "skills", "gamma"), { recursive: true });
  const taken = await p.cli(["link", "gamma", "--agent", "claude-code"]);
  assert.equal(taken.code, 1);
  assert.match(taken.stdout, /exists and was not made by skills/);
  assert.equal((await p.cli(["link", "--agent", "emacs"])).code, 2);
});
