import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import type { Manifest } from "../../../src/core/manifest/manifest.ts";
import { findEntry } from "../../../src/core/records/registry.ts";
import { parseSource } from "../../../src/core/sources/sources.ts";
import { resolveParsed } from "../../../src/runtime/lifecycle/resolve_source.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { summarizeChanges } from "../../../src/core/records/changes.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import type { RefRequest } from "../../../src/core/sources/sources.ts";
import {
  inspectCandidates,
  selectCandidates,
} from "../../../src/runtime/lifecycle/fetch_source.ts";
import { readRegistry, updateRegistry } from "../../../src/runtime/store/registry.ts";
import { assertRunnable } from "../../../src/runtime/trust/gate.ts";
import { entriesToRemove, trustTarget } from "../../../src/runtime/lifecycle/targets.ts";
import { tempDir } from "../../helpers/cli.ts";
import {
  createRepo,
  multiSkillFiles,
  pyScript,
  skillFiles,
  skillMd,
} from "../../fixtures/git_repos.ts";
import { beginUserChange } from "../../helpers/change.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const begin = beginUserChange;

/** Installs from a source through the same runtime path `skills add --yes` takes. */
async function install(
  home: string,
  input: string,
  selectors: string[] = [],
  request: RefRequest = { kind: "default" },
) {
  const source = resolveParsed(
    input.startsWith("/") ? parseSource(input, { localDirectory: input }) : parseSource(input),
  );
  await using change = await begin(home);
  const fetched = await change.fetch(source, request);
  const chosen = selectCandidates(await inspectCandidates(fetched), selectors, input);
  await change.commitInstall(await change.planInstall(fetched, chosen));
}

async function entryOf(home: string, name: string) {
  const entry = findEntry(await readRegistry(home), name);
  assert.ok(entry, name);
  return entry;
}

async function skillOf(home: string, name: string) {
  const skill = (await loadCatalog(home)).skills.find((s) => s.canonical === name);
  assert.ok(skill, name);
  return skill;
}

function manifest(env: string[], toolsets: string[] = []): Manifest {
  return { name: "x", description: "d", toolsets, scriptsIgnore: [], envPatterns: env };
}

Deno.test("summarizeChanges() lists files and flags SKILL.md, scripts, toolsets and permissions", () => {
  const before = new Map([["SKILL.md", "1"], ["scripts/a.py", "2"], ["toolsets/t.py", "3"], [
    "references/r.md",
    "4",
  ]]);
  const after = new Map([["SKILL.md", "1b"], ["scripts/a.py", "2"], ["scripts/b.py", "5"], [
    "toolsets/t.py",
    "3",
  ]]);
  const summary = summarizeChanges(before, after, manifest(["A_*"]), manifest(["A_*", "HOME"]));
  assert.deepEqual(summary.files, [
    { path: "SKILL.md", change: "modified", kind: "manifest" },
    { path: "references/r.md", change: "removed", kind: "other" },
    { path: "scripts/b.py", change: "added", kind: "script" },
  ]);
  assert.deepEqual(summary.permissions, { before: ["A_*"], after: ["A_*", "HOME"] });
  assert.deepEqual(summary.flags, {
    manifest: true,
    scripts: true,
    toolsets: false,
    permissions: true,
  });
  const toolsetOnly = summarizeChanges(
    new Map([["lib/tools.py", "1"]]),
    new Map([["lib/tools.py", "2"]]),
    manifest([], ["lib.tools:T"]),
    manifest([], ["lib.tools:T"]),
  );
  assert.deepEqual(toolsetOnly.files, [{
    path: "lib/tools.py",
    change: "modified",
    kind: "toolset",
  }]);
  assert.equal(toolsetOnly.flags.toolsets, true);
  assert.equal(toolsetOnly.permissions, null);
});

Deno.test("planUpdate() says up to date after ls-remote, without cloning", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", skillFiles("alpha"));
  const home = join(tmp.path, "home");
  await install(home, repo.url);
  await using change = await begin(home);
  const plan = await change.planUpdate(await entryOf(home, "alpha"));
  assert.equal(plan.kind, "up_to_date");
  assert.equal(plan.staged, undefined);
  assert.equal(await Deno.stat(join(home, ".staging")).catch(() => null), null);
});

Deno.test("planUpdate() leaves a skill pinned to a commit alone unless a ref moves it", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", skillFiles("alpha"));
  const first = await repo.head();
  const home = join(tmp.path, "home");
  await install(home, repo.url, [], { kind: "ref", name: first.slice(0, 10) });
  const second = await repo.commit({ "alpha-notes.md": "x\n" });
  const entry = await entryOf(home, "alpha");
  assert.equal(entry.commit_sha, first);
  assert.equal(entry.ref, first.slice(0, 10));
  await using change = await begin(home);
  assert.equal((await change.planUpdate(entry)).kind, "pinned");

  const moved = await change.planUpdate(entry, { request: { kind: "branch", name: "main" } });
  assert.equal(moved.kind, "update");
  assert.equal(moved.newSha, second);
  assert.equal(moved.tracking, "branch main");
  await change.applyUpdate(moved);
  const after = await entryOf(home, "alpha");
  assert.deepEqual([after.commit_sha, after.branch, after.ref], [second, "main", null]);
});

Deno.test("an update stages, summarises and swaps in the new commit; trust follows the new digest", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", multiSkillFiles(["alpha", "beta"]));
  const home = join(tmp.path, "home");
  await install(home, repo.url, ["alpha"]);
  const before = await entryOf(home, "alpha");
  const newSha = await repo.commit({
    "skills/alpha/SKILL.md": skillMd("alpha", "changed", "permissions:\n  env: [ALPHA_TOKEN]\n"),
    "skills/alpha/scripts/extra.py": pyScript("print(2)"),
    "skills/alpha/references/guide.md": null,
  });
  {
    await using change = await begin(home);
    const plan = await change.planUpdate(before);
    assert.equal(plan.kind, "update");
    assert.equal(plan.oldSha, before.commit_sha);
    assert.equal(plan.newSha, newSha);
    assert.equal(plan.localChanges, false);
    assert.deepEqual(plan.staged!.changes.files.map((f) => `${f.change} ${f.path}`), [
      "modified SKILL.md",
      "removed references/guide.md",
      "added scripts/extra.py",
    ]);
    assert.deepEqual(plan.staged!.changes.permissions, { before: [], after: ["ALPHA_TOKEN"] });
    // Nothing changed yet.
    assert.equal((await entryOf(home, "alpha")).commit_sha, before.commit_sha);
    await change.applyUpdate(plan);
  }
  const after = await entryOf(home, "alpha");
  assert.equal(after.commit_sha, newSha);
  assert.notEqual(after.trusted_digest, before.trusted_digest);
  assert.ok(await Deno.stat(join(home, "alpha", "scripts", "extra.py")));
  await assertRunnable(await skillOf(home, "alpha"), home);
  assert.deepEqual(
    await Array.fromAsync(Deno.readDir(home)).then((e) => e.map((x) => x.name).sort()),
    [
      ".cache",
      "alpha",
      "registry.json",
      "registry.json.bak",
      "registry.lock",
    ],
  );
});

Deno.test("an update to an invalid SKILL.md fails and leaves the installed version runnable", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", skillFiles("alpha"));
  const home = join(tmp.path, "home");
  await install(home, repo.url);
  const before = await entryOf(home, "alpha");
  await repo.commit({ "SKILL.md": "---\nname: alpha\ndescription: [unclosed\n---\n" });
  await using change = await begin(home);
  await assert.rejects(
    () => change.planUpdate(before),
    (e: unknown) =>
      e instanceof SkillError && e.code === "invalid_manifest" &&
      /installed version was left unchanged/.test(e.hint ?? ""),
  );
  assert.deepEqual(await entryOf(home, "alpha"), before);
  await assertRunnable(await skillOf(home, "alpha"), home);
  await change[Symbol.asyncDispose]();
  assert.equal(await Deno.stat(join(home, ".staging")).catch(() => null), null);
});

Deno.test("planUpdate() notices local edits; applyUpdate() refuses a plan made stale by another command", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", skillFiles("alpha"));
  const home = join(tmp.path, "home");
  await install(home, repo.url);
  await repo.commit({ "new.md": "n\n" });
  await Deno.writeTextFile(join(home, "alpha", "scripts", "hello.py"), "print('edited')\n");
  {
    await using change = await begin(home);
    const plan = await change.planUpdate(await entryOf(home, "alpha"));
    assert.equal(plan.localChanges, true);
    await updateRegistry(home, (r) => ({
      registry: { ...r, skills: r.skills.map((e) => ({ ...e, updated_at: "someone else" })) },
      result: null,
    }));
    await assert.rejects(
      () => change.applyUpdate(plan),
      (e: unknown) => e instanceof SkillError && e.code === "conflict",
    );
  }
  assert.equal(
    await Deno.readTextFile(join(home, "alpha", "scripts", "hello.py")),
    "print('edited')\n",
  );
});

Deno.test("a skill installed from a directory updates from that directory", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "my-skill");
  for (const [rel, text] of Object.entries(skillFiles("my-skill"))) {
    await Deno.mkdir(join(dir, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, rel), text);
  }
  const home = join(tmp.path, "home");
  await install(home, dir);
  const entry = await entryOf(home, "my-skill");
  assert.deepEqual(entry.source, { type: "local", url: dir, subpath: "" });
  assert.equal(entry.commit_sha, null);
  await using change = await begin(home);
  assert.equal((await change.planUpdate(entry)).kind, "up_to_date");
  await Deno.writeTextFile(join(dir, "scripts", "more.py"), pyScript("print(3)"));
  const plan = await change.planUpdate(entry);
  assert.equal(plan.kind, "update");
  assert.deepEqual(plan.staged!.changes.files.map((f) => f.path), ["scripts/more.py"]);
  await change.applyUpdate(plan);
  assert.ok(await Deno.stat(join(home, "my-skill", "scripts", "more.py")));
});

Deno.test("editing a trusted skill's script makes it integrity_mismatch until trusted again", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", skillFiles("alpha"));
  const home = join(tmp.path, "home");
  await install(home, repo.url);
  await assertRunnable(await skillOf(home, "alpha"), home); // primes the digest cache
  await Deno.writeTextFile(join(home, "alpha", "scripts", "hello.py"), "print('tampered')\n");
  await assert.rejects(
    async () => assertRunnable(await skillOf(home, "alpha"), home),
    (e: unknown) =>
      e instanceof SkillError && e.code === "integrity_mismatch" &&
      /skills trust alpha/.test(e.message),
  );
  const entry = await entryOf(home, "alpha");
  await using change = await begin(home);
  await change.trust(entry, await computeDigest(entry.installed_path));
  await assertRunnable(await skillOf(home, "alpha"), home);
  await change.untrust(await entryOf(home, "alpha"));
  await assert.rejects(
    async () => assertRunnable(await skillOf(home, "alpha"), home),
    (e: unknown) => e instanceof SkillError && e.code === "untrusted",
  );
});

Deno.test("a tampered entry pointing outside $SKILLS_HOME is never moved: update refuses, remove only drops it", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", skillFiles("alpha"));
  const home = join(tmp.path, "home");
  await install(home, repo.url);
  const precious = join(tmp.path, "precious");
  await Deno.mkdir(precious);
  await Deno.writeTextFile(join(precious, "SKILL.md"), skillMd("precious"));
  await updateRegistry(home, (r) => ({
    registry: { ...r, skills: r.skills.map((e) => ({ ...e, installed_path: precious })) },
    result: null,
  }));
  const tampered = await entryOf(home, "alpha");
  await repo.commit({ "x.md": "x\n" });
  await using change = await begin(home);
  await assert.rejects(
    () => change.planUpdate(tampered),
    (e: unknown) => e instanceof SkillError && e.code === "permission_denied",
  );
  await assert.rejects(
    () => trustTarget(home, "alpha"),
    (e: unknown) => e instanceof SkillError && e.code === "permission_denied",
  );
  await change.remove(await entriesToRemove(home, ["alpha"]));
  assert.deepEqual((await readRegistry(home)).skills, []);
  assert.ok(await Deno.stat(join(precious, "SKILL.md")), "the outside directory is untouched");
});

Deno.test("applyUpdates() swaps several skills in one registry write, or none of them", {
  ignore: SKIP_SLOW,
}, async () => {
  await using tmp = await tempDir();
  const a = await createRepo(tmp.path, "a", skillFiles("alpha"));
  const b = await createRepo(tmp.path, "b", skillFiles("bravo"));
  const home = join(tmp.path, "home");
  await install(home, a.url);
  await install(home, b.url);
  await a.commit({ "new.md": "a2\n" });
  await b.commit({ "new.md": "b2\n" });
  const registry = await Deno.readTextFile(join(home, "registry.json"));

  {
    await using change = await begin(home);
    const plans = [
      await change.planUpdate(await entryOf(home, "alpha")),
      await change.planUpdate(await entryOf(home, "bravo")),
    ];
    // bravo's staged copy vanishes: its swap fails after alpha's was made.
    await Deno.remove(plans[1]!.staged!.dir, { recursive: true });
    await assert.rejects(() => change.applyUpdates(plans));
  }
  assert.equal(await Deno.readTextFile(join(home, "registry.json")), registry, "nothing recorded");
  for (const name of ["alpha", "bravo"]) {
    await assert.rejects(() => Deno.stat(join(home, name, "new.md")), Deno.errors.NotFound);
    assert.ok((await Deno.stat(join(home, name, "SKILL.md"))).isFile, `${name} still installed`);
  }

  {
    await using change = await begin(home);
    const plans = [
      await change.planUpdate(await entryOf(home, "alpha")),
      await change.planUpdate(await entryOf(home, "bravo")),
    ];
    await change.applyUpdates(plans);
  }
  assert.equal(await Deno.readTextFile(join(home, "alpha", "new.md")), "a2\n");
  assert.equal(await Deno.readTextFile(join(home, "bravo", "new.md")), "b2\n");
  // Written once: the backup is the registry from before the command.
  assert.equal(await Deno.readTextFile(join(home, "registry.json.bak")), registry);
  await skillOf(home, "alpha");
});
