import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { parseSource } from "../../../src/core/sources/sources.ts";
import { resolveParsed } from "../../../src/runtime/lifecycle/resolve_source.ts";
import { discoverSkills } from "../../../src/runtime/catalog/discover.ts";
import {
  type Candidate,
  inspectCandidates,
  selectCandidates,
} from "../../../src/runtime/lifecycle/fetch_source.ts";
import { readRegistry } from "../../../src/runtime/store/registry.ts";
import { tempDir } from "../../helpers/cli.ts";
import { createRepo, multiSkillFiles, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";
import { beginUserChange } from "../../helpers/change.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test("discoverSkills() finds a root skill and nothing below it", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, { ...skillFiles("root"), ...skillFiles("inner", "skills/inner") });
  assert.deepEqual(await discoverSkills(tmp.path), [{ dir: tmp.path, rel: "" }]);
});

Deno.test("discoverSkills() finds skills/<name>/ and up to three levels, skipping .git and node_modules", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, {
    "skills/b/SKILL.md": skillMd("b"),
    "skills/a/SKILL.md": skillMd("a"),
    "skills/a/nested/SKILL.md": skillMd("nested"), // content of a, not a skill of its own
    ".claude/skills/c/SKILL.md": skillMd("c"),
    "one/two/three/four/SKILL.md": skillMd("too-deep"),
    "node_modules/pkg/SKILL.md": skillMd("npm"),
    ".git/x/SKILL.md": skillMd("git"),
    "README.md": "hi",
  });
  const found = (await discoverSkills(tmp.path)).map((f) => f.rel);
  assert.deepEqual(found, [".claude/skills/c", "skills/a", "skills/b"]);
});

function candidate(name: string, rel: string): Candidate {
  return {
    rel,
    dir: `/x/${rel}`,
    name,
    canonical: name.toLowerCase().replaceAll("_", "-"),
    description: `${name} desc`,
    manifest: undefined,
    scripts: [],
    errors: [],
    warnings: [],
  };
}

Deno.test("selectCandidates() picks by manifest name, directory name or '*'", () => {
  const all = [candidate("Pdf_Tools", "skills/pdf"), candidate("docx", "skills/docx")];
  assert.deepEqual(selectCandidates(all, ["pdf-tools"], "src").map((c) => c.rel), ["skills/pdf"]);
  assert.deepEqual(selectCandidates(all, ["pdf"], "src").map((c) => c.rel), ["skills/pdf"]);
  assert.deepEqual(selectCandidates(all, ["*"], "src").length, 2);
  assert.deepEqual(selectCandidates([all[1]!], [], "src").map((c) => c.rel), ["skills/docx"]);
  assert.throws(
    () => selectCandidates(all, [], "src"),
    (e: unknown) => e instanceof SkillError && e.code === "usage" && /2 skills/.test(e.message),
  );
  assert.throws(
    () => selectCandidates(all, ["nope"], "src"),
    (e: unknown) =>
      e instanceof SkillError && e.code === "not_found" && /Pdf_Tools, docx/.test(e.hint ?? ""),
  );
  assert.throws(
    () => selectCandidates([], [], "src"),
    (e: unknown) => e instanceof SkillError && /No skills found in src/.test(e.message),
  );
});

const begin = beginUserChange;

Deno.test("planInstall() + commitInstall() install a root skill without .git and record it", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "solo", skillFiles("solo"));
  const home = join(tmp.path, "home");
  {
    await using change = await begin(home);
    const fetched = await change.fetch(resolveParsed(parseSource(repo.url)), { kind: "default" });
    const candidates = await inspectCandidates(fetched);
    assert.deepEqual(candidates.map((c) => [c.name, c.rel, c.errors.length]), [["solo", "", 0]]);
    assert.deepEqual(candidates[0]!.warnings, [], "the clone directory name is not a warning");
    const plans = await change.planInstall(fetched, candidates);
    await change.commitInstall(plans);
  }
  const registry = await readRegistry(home);
  const entry = registry.skills[0]!;
  assert.equal(entry.name_canonical, "solo");
  assert.equal(entry.commit_sha, await repo.head());
  assert.equal(entry.branch, "main");
  assert.equal(entry.trusted, true);
  assert.match(entry.trusted_digest ?? "", /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(entry.source, { type: "git", url: repo.url, subpath: "" });
  assert.equal(entry.installed_path, join(home, "solo"));
  const names = (await Array.fromAsync(Deno.readDir(join(home, "solo")))).map((e) => e.name).sort();
  assert.deepEqual(names, ["SKILL.md", "scripts"]);
  // Nothing left in staging.
  assert.deepEqual(
    await Array.fromAsync(Deno.readDir(home)).then((e) => e.map((x) => x.name).sort()),
    [
      "registry.json",
      "registry.lock",
      "solo",
    ],
  );
});

Deno.test("planInstall() refuses a bundled skill's name unless --name renames it", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "clash", skillFiles("kalshi-markets"));
  const home = join(tmp.path, "home");
  await using change = await begin(home);
  const fetched = await change.fetch(resolveParsed(parseSource(repo.url)), { kind: "default" });
  const candidates = await inspectCandidates(fetched);
  await assert.rejects(() => change.planInstall(fetched, candidates), (e: unknown) => {
    assert.ok(e instanceof SkillError);
    assert.equal(e.code, "conflict");
    assert.match(e.message, /a bundled skill has that name/);
    assert.match(e.hint ?? "", /--name/);
    return true;
  });
  const plans = await change.planInstall(fetched, candidates, { rename: "My_Kalshi" });
  assert.equal(plans[0]!.canonical, "my-kalshi");
  assert.equal(plans[0]!.entry.name, "My_Kalshi");
});

Deno.test("commitInstall() re-checks collisions under the lock and then moves nothing", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "multi", multiSkillFiles(["one", "two"]));
  const home = join(tmp.path, "home");
  await using change = await begin(home);
  const fetched = await change.fetch(resolveParsed(parseSource(repo.url)), { kind: "default" });
  const candidates = await inspectCandidates(fetched);
  const plans = await change.planInstall(fetched, selectCandidates(candidates, ["*"], "x"));
  // Another process created `two` after planning.
  await Deno.mkdir(join(home, "two"));
  await Deno.writeTextFile(join(home, "two", "SKILL.md"), skillMd("two"));
  await assert.rejects(
    () => change.commitInstall(plans),
    (e: unknown) => e instanceof SkillError && e.code === "conflict",
  );
  assert.equal(await Deno.stat(join(home, "one")).catch(() => null), null, "one not moved");
  assert.deepEqual((await readRegistry(home)).skills, []);
  assert.ok(await Deno.stat(plans[0]!.candidate.dir), "staged copy still in staging");
});

Deno.test("planInstall() blocks on validation errors and names the problem", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "bad", {
    "SKILL.md": "---\nname: bad\n---\nno description\n",
  });
  const home = join(tmp.path, "home");
  await using change = await begin(home);
  const fetched = await change.fetch(resolveParsed(parseSource(repo.url)), { kind: "default" });
  const candidates = await inspectCandidates(fetched);
  assert.ok(candidates[0]!.errors.length > 0);
  await assert.rejects(
    () => change.planInstall(fetched, candidates),
    (e: unknown) =>
      e instanceof SkillError && e.code === "invalid_manifest" && /description/.test(e.message),
  );
});

Deno.test("a local directory's link out of it is left out of the copy, never followed, and its skill warns", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "local-skill");
  await writeTree(dir, skillFiles("local-skill"));
  await Deno.symlink("/etc/passwd", join(dir, "scripts", "passwd.txt"));
  const home = join(tmp.path, "home");
  await using change = await begin(home);
  const fetched = await change.fetch(resolveParsed(parseSource(dir, { localDirectory: dir })), {
    kind: "default",
  });
  const [c] = await inspectCandidates(fetched);
  await assert.rejects(Deno.lstat(join(c!.dir, "scripts", "passwd.txt")), Deno.errors.NotFound);
  assert.deepEqual(c!.errors, []);
  assert.deepEqual(c!.warnings.map((w) => [relative(c!.dir, w.file), w.message]), [[
    "scripts/passwd.txt",
    "a symlink to /etc/passwd, leading out of the source: left out (a link is never followed or installed; a link to a file of the source is installed as a copy)",
  ]]);
  // The source keeps its link.
  assert.ok((await Deno.lstat(join(dir, "scripts", "passwd.txt"))).isSymlink);
});

Deno.test(
  "a local folder as large as a repository may be (20,100 files beside its skills) is copied whole, as its git tree would be read",
  {
    ignore: SKIP_SLOW,
  },
  async () => {
    // An API collection's layout: each API's skill with its reference pages, and the raw
    // specifications beside them, 25,000 files in all for the repository this follows.
    await using tmp = await tempDir();
    const dir = join(tmp.path, "collection");
    await writeTree(dir, {
      ...skillFiles("stripe-api", "apis/stripe/stripe-api"),
      ...skillFiles("slack-api", "apis/slack/slack-api"),
    });
    const specs = join(dir, "apis", "stripe", "specs");
    await Deno.mkdir(specs);
    for (let i = 0; i < 20_100; i++) Deno.writeFileSync(join(specs, `${i}.json`), new Uint8Array());
    await using change = await begin(join(tmp.path, "home"));
    const fetched = await change.fetch(resolveParsed(parseSource(dir, { localDirectory: dir })), {
      kind: "default",
    });
    const found = await inspectCandidates(fetched);
    assert.deepEqual(found.map((c) => c.name).sort(), ["slack-api", "stripe-api"]);
  },
);

Deno.test("a fetch copies links to the source's own files, leaves out links out, to folders and nowhere, and keeps linked manifests", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "monorepo");
  await writeTree(dir, {
    ...Object.fromEntries(Object.entries(skillFiles("a")).map(([k, v]) => [`skills/a/${k}`, v])),
    "skills/a/AGENTS.md": "# For agents\n",
    "common/notes.md": "shared notes\n",
  });
  const link = (target: string, path: string) => Deno.symlink(target, join(dir, path));
  await link("AGENTS.md", "skills/a/CLAUDE.md");
  await link("../../common/notes.md", "skills/a/shared.md");
  await link("/etc/hostname", "skills/a/out.md");
  await link("scripts", "skills/a/tools");
  await link("missing.md", "skills/a/dangling.md");
  await link("/etc", "up");
  await link("../../up/hostname", "skills/a/chain.md");
  // A link through a folder link another link's removal would break: decided first, kept.
  await link("tools/../AGENTS.md", "skills/a/through.md");
  await Deno.mkdir(join(dir, "skills", "b"));
  await link("../a/SKILL.md", "skills/b/SKILL.md");
  await using change = await begin(join(tmp.path, "home"));
  const fetched = await change.fetch(resolveParsed(parseSource(dir, { localDirectory: dir })), {
    kind: "default",
  });
  const at = (path: string) => Deno.lstat(join(fetched.root, path));
  for (
    const [path, text] of [
      ["skills/a/CLAUDE.md", "# For agents\n"],
      ["skills/a/shared.md", "shared notes\n"],
      ["skills/a/through.md", "# For agents\n"],
    ]
  ) {
    assert.ok((await at(path!)).isFile, path);
    assert.equal(await Deno.readTextFile(join(fetched.root, path!)), text);
  }
  assert.deepEqual(fetched.leftOutLinks, [
    { path: "skills/a/chain.md", target: "../../up/hostname", why: "out of the source" },
    { path: "skills/a/dangling.md", target: "missing.md", why: "nowhere" },
    { path: "skills/a/out.md", target: "/etc/hostname", why: "out of the source" },
    { path: "skills/a/tools", target: "scripts", why: "a folder" },
    { path: "up", target: "/etc", why: "out of the source" },
  ]);
  for (const path of ["skills/a/out.md", "skills/a/tools", "skills/a/dangling.md", "up"]) {
    await assert.rejects(at(path), Deno.errors.NotFound, path);
  }
  assert.ok((await at("skills/b/SKILL.md")).isSymlink, "a linked manifest");
  const [a] = (await inspectCandidates(fetched)).filter((c) => c.rel === "skills/a");
  assert.deepEqual(a!.warnings.map((w) => relative(a!.dir, w.file)).sort(), [
    "chain.md",
    "dangling.md",
    "out.md",
    "tools",
  ]);
  // The source itself is untouched.
  assert.ok((await Deno.lstat(join(dir, "skills", "a", "CLAUDE.md"))).isSymlink);
  assert.ok((await Deno.lstat(join(dir, "skills", "a", "out.md"))).isSymlink);
});

Deno.test("a name clash with another repository's installed skill: the hint says what --name, remove and update would each do", async () => {
  await using tmp = await tempDir();
  const first = await createRepo(tmp.path, "first", skillFiles("pdf"));
  const second = await createRepo(tmp.path, "second", skillFiles("pdf"));
  const home = join(tmp.path, "home");
  {
    await using change = await begin(home);
    const fetched = await change.fetch(resolveParsed(parseSource(first.url)), { kind: "default" });
    await change.commitInstall(await change.planInstall(fetched, await inspectCandidates(fetched)));
  }
  await using change = await begin(home);
  const fetched = await change.fetch(resolveParsed(parseSource(second.url)), { kind: "default" });
  const candidates = await inspectCandidates(fetched);
  await assert.rejects(() => change.planInstall(fetched, candidates), (e: unknown) => {
    assert.ok(e instanceof SkillError);
    assert.equal(e.code, "conflict");
    assert.match(e.hint ?? "", /To keep both, add this one under another name with --name NAME/);
    assert.match(e.hint ?? "", /to replace the installed one, `skills remove pdf` first/);
    assert.match(
      e.hint ?? "",
      /`skills update pdf` only updates the installed skill from its own source/,
    );
    return true;
  });
});
