/**
 * `skills add/update/remove/trust/untrust` end to end through the real CLI (source or the
 * bundle), against real git repositories served as file:// bare repos.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { userHome } from "../../helpers/user_home.ts";
import {
  createRepo,
  multiSkillFiles,
  pyScript,
  type Repo,
  skillFiles,
  skillMd,
} from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { exitedOk as ok } from "../../helpers/cli.ts";

interface Registry {
  skills: Record<string, unknown>[];
}

async function workspace() {
  const ws = await userHome();
  const cli = (args: string[], stdin?: string) =>
    ws.cli(args, stdin === undefined ? {} : { stdin });
  const entry = async (name: string) =>
    (await ws.registry())?.skills.find((s) => s.name_canonical === name);
  return { ...ws, cli, entry };
}

Deno.test("skills add installs a single-skill repo; list --json and info --json show the resolved commit", async () => {
  await using ws = await workspace();
  const repo = await createRepo(
    ws.dir.path,
    "solo",
    skillFiles("solo", "", "permissions:\n  env: [SOLO_*]\n"),
  );
  const sha = await repo.head();
  const add = await ws.cli(["add", repo.url, "--yes", "--json"]);
  ok(add);
  const installed = JSON.parse(add.stdout).installed;
  assert.equal(installed.length, 1);
  assert.equal(installed[0].commit_sha, sha);
  assert.deepEqual(installed[0].permissions, { env: ["SOLO_*"] });
  assert.match(add.stderr, /Reading file:\/\/.*solo\.git/);
  assert.match(add.stderr, /Env allowed: SOLO_\*/);

  const entry = await ws.entry("solo");
  assert.equal(entry?.commit_sha, sha);
  assert.equal(entry?.branch, "main");
  assert.equal(entry?.trusted, true);

  const list = await ws.cli(["list", "--json"]);
  ok(list);
  const row = JSON.parse(list.stdout).skills.find((s: { canonical: string }) =>
    s.canonical === "solo"
  );
  assert.equal(row.commit_sha, sha);
  assert.equal(row.source, "git");
  assert.equal(row.trusted, true);
  const info = await ws.cli(["info", "solo", "--json"]);
  ok(info);
  const doc = JSON.parse(info.stdout);
  assert.deepEqual([doc.commit_sha, doc.branch, doc.source_url], [sha, "main", repo.url]);
  const files = (await Array.fromAsync(Deno.readDir(join(ws.home, "solo")))).map((e) => e.name);
  assert.ok(!files.includes(".git"), "installed files carry no .git");
});

Deno.test(
  "a public-style multi-skill repo: --list installs nothing, --skill picks one, '*' picks all",
  { ignore: SKIP_SLOW },
  async () => {
    await using ws = await workspace();
    const repo = await createRepo(
      ws.dir.path,
      "collection",
      multiSkillFiles(["pdf", "docx", "xlsx"]),
    );

    const list = await ws.cli(["add", repo.url, "--list", "--json"]);
    ok(list);
    const listed = JSON.parse(list.stdout);
    assert.deepEqual(listed.skills.map((s: { name: string; path: string }) => [s.name, s.path]), [
      ["docx", "skills/docx"],
      ["pdf", "skills/pdf"],
      ["xlsx", "skills/xlsx"],
    ]);
    assert.equal(listed.commit_sha, await repo.head());
    assert.equal(await ws.registry(), null, "--list wrote nothing");

    const ambiguous = await ws.cli(["add", repo.url, "--yes"]);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /contains 3 skills: docx, pdf, xlsx/);
    assert.match(ambiguous.stderr, /--skill/);

    ok(await ws.cli(["add", repo.url, "--skill", "PDF", "--yes"]));
    assert.deepEqual((await ws.registry())?.skills.map((s) => s.name_canonical), ["pdf"]);
    assert.deepEqual((await ws.entry("pdf"))?.source, {
      type: "git",
      url: repo.url,
      subpath: "skills/pdf",
    });
    const pdfFiles = (await Array.fromAsync(Deno.readDir(join(ws.home, "pdf")))).map((e) => e.name)
      .sort();
    assert.deepEqual(pdfFiles, ["LICENSE.txt", "SKILL.md", "references", "scripts"]);

    // '*' includes pdf, installed from this source at this commit: it is already there, the
    // others install (issue 15: one installed skill no longer aborts the whole selection).
    const rest = await ws.cli(["add", repo.url, "--skill", "*", "--yes"]);
    ok(rest);
    assert.match(rest.stdout, /^Already installed 'pdf' at [0-9a-f]{12} \(nothing to do\)$/m);
    assert.deepEqual((await ws.registry())?.skills.map((s) => s.name_canonical), [
      "docx",
      "pdf",
      "xlsx",
    ]);

    ok(await ws.cli(["remove", "pdf", "docx", "xlsx", "--yes"]));
    const all = await ws.cli(["add", repo.url, "--skill", "*", "--yes", "--json"]);
    ok(all);
    assert.deepEqual((await ws.registry())?.skills.map((s) => s.name_canonical), [
      "docx",
      "pdf",
      "xlsx",
    ]);
    const check = JSON.parse((await ws.cli(["check", "--json"])).stdout);
    assert.deepEqual(check.consistency, { missing: [], orphans: [], leftovers: [] });
  },
);

Deno.test("skills add pins branches, tags, and full or abbreviated commits to the resolved SHA", async () => {
  await using ws = await workspace();
  const repo: Repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  const first = await repo.head();
  await repo.tag("v1", "first release");
  const second = await repo.commit({ "notes.md": "2\n" });
  await repo.checkout("dev", true);
  const dev = await repo.commit({ "dev.md": "dev\n" });
  await repo.checkout("main");

  ok(await ws.cli(["add", repo.url, "--branch", "dev", "--name", "a-dev", "--yes"]));
  ok(await ws.cli(["add", `${repo.url}#v1`, "--name", "a-tag", "--yes"]));
  ok(await ws.cli(["add", repo.url, "--ref", second, "--name", "a-sha", "--yes"]));
  ok(await ws.cli(["add", repo.url, "--ref", first.slice(0, 7), "--name", "a-abbrev", "--yes"]));
  const fields = async (name: string) => {
    const e = await ws.entry(name);
    return [e?.commit_sha, e?.branch, e?.tag, e?.ref];
  };
  assert.deepEqual(await fields("a-dev"), [dev, "dev", null, null]);
  assert.deepEqual(await fields("a-tag"), [first, null, "v1", "v1"]);
  assert.deepEqual(await fields("a-sha"), [second, null, null, second]);
  assert.deepEqual(await fields("a-abbrev"), [first, null, null, first.slice(0, 7)]);
  const info = JSON.parse((await ws.cli(["info", "a-abbrev", "--json"])).stdout);
  assert.equal(info.commit_sha, first);
  assert.equal(info.name, "a-abbrev");

  const missing = await ws.cli(["add", repo.url, "--tag", "v9", "--yes"]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /error: Cannot install from file:\/\/.*r\.git: tag 'v9' not found\n/,
  );
});

Deno.test(
  "skills update: dry run changes nothing, --yes moves to the new SHA, local edits need --force",
  { ignore: SKIP_SLOW },
  async () => {
    await using ws = await workspace();
    const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
    const oldSha = await repo.head();
    ok(await ws.cli(["add", repo.url, "--yes"]));
    const upToDate = await ws.cli(["update", "alpha"]);
    ok(upToDate);
    assert.match(upToDate.stdout, /alpha: up to date \(/);

    const newSha = await repo.commit({
      "scripts/extra.py": pyScript("print('extra')"),
      "SKILL.md": skillMd("alpha", "Now with more.", "permissions:\n  env: [ALPHA_KEY]\n"),
    });
    const registryBefore = await Deno.readTextFile(join(ws.home, "registry.json"));
    const dry = await ws.cli(["update", "alpha", "--dry-run"]);
    ok(dry);
    assert.match(
      dry.stdout,
      new RegExp(`alpha: ${oldSha.slice(0, 8)} → ${newSha.slice(0, 8)} \\(branch main\\)`),
    );
    assert.match(dry.stdout, /~ SKILL\.md {2}\[manifest\]/);
    assert.match(dry.stdout, /\+ scripts\/extra\.py {2}\[script\]/);
    assert.match(dry.stdout, /permissions\.env: none → ALPHA_KEY/);
    assert.equal(await Deno.readTextFile(join(ws.home, "registry.json")), registryBefore);
    assert.equal(
      await Deno.stat(join(ws.home, "alpha", "scripts", "extra.py")).catch(() => null),
      null,
    );

    const refused = await ws.cli(["update", "alpha"]);
    assert.equal(refused.code, 1, "no terminal and no --yes");
    assert.match(refused.stderr, /--yes/);
    assert.equal(await Deno.readTextFile(join(ws.home, "registry.json")), registryBefore);

    const updated = await ws.cli(["update", "alpha", "--yes", "--json"]);
    ok(updated);
    assert.equal(JSON.parse(updated.stdout).updates[0].status, "updated");
    assert.equal((await ws.entry("alpha"))?.commit_sha, newSha);
    ok(await ws.cli(["run", "alpha", "extra"]));

    await repo.commit({ "scripts/extra.py": pyScript("print('extra v3')") });
    await Deno.writeTextFile(
      join(ws.home, "alpha", "scripts", "hello.py"),
      pyScript("print('mine')"),
    );
    const blocked = await ws.cli(["update", "alpha", "--yes"]);
    assert.equal(blocked.code, 1);
    assert.match(blocked.stderr, /Cannot update skill 'alpha': local changes would be discarded/);
    assert.equal((await ws.entry("alpha"))?.commit_sha, newSha);
    ok(await ws.cli(["update", "alpha", "--yes", "--force"]));
    assert.equal((await ws.entry("alpha"))?.commit_sha, await repo.head());
    assert.doesNotMatch(
      await Deno.readTextFile(join(ws.home, "alpha", "scripts", "hello.py")),
      /mine/,
    );
  },
);

Deno.test("a failing update (upstream SKILL.md now invalid) leaves the old version installed and working", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  ok(await ws.cli(["add", repo.url, "--yes"]));
  const before = await Deno.readTextFile(join(ws.home, "registry.json"));
  await repo.commit({ "SKILL.md": "---\nname: alpha\n---\nthe description is gone\n" });
  const failed = await ws.cli(["update", "--all", "--yes"]);
  assert.equal(failed.code, 1);
  assert.match(
    failed.stdout + failed.stderr,
    /Cannot update skill 'alpha': the new version is invalid/,
  );
  assert.equal(await Deno.readTextFile(join(ws.home, "registry.json")), before);
  const run = await ws.cli(["run", "alpha", "hello", "--json"]);
  ok(run);
  assert.deepEqual(JSON.parse(run.stdout), { skill: "alpha", ok: true });
  const check = JSON.parse((await ws.cli(["check", "--json"])).stdout);
  assert.deepEqual(check.consistency, { missing: [], orphans: [], leftovers: [] });
});

Deno.test("pinned skills are reported and left alone; --ref moves them; bundled skills are refused", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  const first = await repo.head();
  ok(await ws.cli(["add", `${repo.url}#${first}`, "--yes"]));
  const second = await repo.commit({ "n.md": "n\n" });
  const pinned = await ws.cli(["update", "--all", "--yes"]);
  ok(pinned);
  assert.match(pinned.stdout, /alpha: pinned to [0-9a-f]{8}; left alone/);
  assert.equal((await ws.entry("alpha"))?.commit_sha, first);
  ok(await ws.cli(["update", "alpha", "--branch", "main", "--yes"]));
  const moved = await ws.entry("alpha");
  assert.deepEqual([moved?.commit_sha, moved?.branch, moved?.ref], [second, "main", null]);

  const bundled = await ws.cli(["update", "kalshi-markets", "--yes"]);
  assert.equal(bundled.code, 1);
  assert.match(bundled.stderr, /bundled/);
  const removeBundled = await ws.cli(["remove", "kalshi-markets", "--yes"]);
  assert.equal(removeBundled.code, 1);
  assert.match(removeBundled.stderr, /Cannot remove skill 'kalshi-markets': it is bundled/);
});

Deno.test(
  "editing an installed script makes skills run fail with integrity_mismatch; skills trust restores it",
  { ignore: SKIP_SLOW },
  async () => {
    await using ws = await workspace();
    const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
    ok(await ws.cli(["add", repo.url, "--yes"]));
    ok(await ws.cli(["run", "alpha", "hello", "--json"]));
    await Deno.writeTextFile(
      join(ws.home, "alpha", "scripts", "hello.py"),
      pyScript('import json\nprint(json.dumps({"edited": True}))'),
    );
    const broken = await ws.cli(["run", "alpha", "hello", "--json"]);
    assert.equal(broken.code, 1);
    assert.equal(JSON.parse(broken.stdout).error, "integrity_mismatch");
    assert.match(JSON.parse(broken.stdout).message, /skills trust alpha/);

    const refused = await ws.cli(["trust", "alpha"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Cannot trust skill 'alpha': confirmation required/);
    assert.match(refused.stderr, /State: +trusted, but the files changed since/);

    const trusted = await ws.cli(["trust", "alpha", "--yes", "--json"]);
    ok(trusted);
    assert.equal(JSON.parse(trusted.stdout).trusted, true);
    const fixed = await ws.cli(["run", "alpha", "hello", "--json"]);
    ok(fixed);
    assert.deepEqual(JSON.parse(fixed.stdout), { edited: true });

    ok(await ws.cli(["untrust", "alpha"]));
    const untrusted = await ws.cli(["run", "alpha", "hello", "--json"]);
    assert.equal(untrusted.code, 1);
    assert.equal(JSON.parse(untrusted.stdout).error, "untrusted");
    const bundled = await ws.cli(["trust", "hello-extended"]);
    ok(bundled);
    assert.match(bundled.stdout, /bundled and always trusted/);
  },
);

Deno.test("skills remove confirms, then removes the directory and the entry together", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "r", multiSkillFiles(["one", "two"]));
  ok(await ws.cli(["add", repo.url, "--skill", "*", "--yes"]));
  const refused = await ws.cli(["remove", "one"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot remove skill 'one': confirmation required/);
  assert.ok(await Deno.stat(join(ws.home, "one")));
  const removed = await ws.cli(["remove", "one", "--yes", "--json"]);
  ok(removed);
  assert.deepEqual(JSON.parse(removed.stdout), { removed: ["one"] });
  assert.equal(await Deno.stat(join(ws.home, "one")).catch(() => null), null);
  assert.deepEqual((await ws.registry())?.skills.map((s) => s.name_canonical), ["two"]);
  const unknown = await ws.cli(["remove", "nope", "--yes"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /it is not installed/);
  const check = JSON.parse((await ws.cli(["check", "--json"])).stdout);
  assert.deepEqual(check.consistency, { missing: [], orphans: [], leftovers: [] });
});

Deno.test("a local directory is copied, recorded as local, and updated from its path", async () => {
  await using ws = await workspace();
  const dir = join(ws.dir.path, "my-skill");
  for (const [rel, text] of Object.entries(skillFiles("my-skill"))) {
    await Deno.mkdir(join(dir, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, rel), text);
  }
  ok(await ws.cli(["add", "./my-skill", "--yes"]));
  const entry = await ws.entry("my-skill");
  assert.deepEqual(entry?.source, { type: "local", url: dir, subpath: "" });
  assert.equal(entry?.commit_sha, null);
  const info = JSON.parse((await ws.cli(["info", "my-skill", "--json"])).stdout);
  assert.equal(info.source, "local");

  await Deno.writeTextFile(join(dir, "scripts", "more.py"), pyScript("print('more')"));
  const dry = await ws.cli(["update", "my-skill", "--dry-run"]);
  ok(dry);
  assert.match(dry.stdout, /\+ scripts\/more\.py {2}\[script\]/);
  ok(await ws.cli(["update", "my-skill", "--yes"]));
  const run = await ws.cli(["run", "my-skill", "more"]);
  ok(run);
  assert.equal(run.stdout.trim(), "more");
});
