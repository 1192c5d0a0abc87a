import assert from "node:assert/strict";
import { basename, dirname, join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import { verifiedSkill } from "../../../src/runtime/trust/snapshot.ts";
import { copyContents, storedContents } from "../../../src/runtime/trust/copy_contents.ts";
import type { LoadedSkill } from "../../../src/runtime/catalog/catalog.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

/** One installed, trusted skill `kept` whose description is `description`. */
async function installKept(root: string, description: string) {
  const source = join(root, "kept");
  await writeTree(source, {
    "SKILL.md": skillMd("kept", description, "permissions:\n  env: [KEPT_TOKEN]\n"),
    "scripts/go.py": pyScript("print('{}')"),
  });
  const home = join(root, "home");
  const installed = await installFixtureSkill(home, source);
  const listed = async () => (await loadCatalog(home)).skills.find((s) => s.canonical === "kept")!;
  return { home, installed, listed };
}

/** Trusts the installed files as they are now (what `skills trust` records). */
async function retrust(home: string, installed: string): Promise<void> {
  const path = join(home, "registry.json");
  const registry = JSON.parse(await Deno.readTextFile(path));
  registry.skills[0].trusted_digest = await computeDigest(installed);
  await Deno.writeTextFile(path, JSON.stringify(registry));
}

/** The copy's stamp, which keeps its record (what the copy's files say) under `contents`. */
const stampOf = (skill: LoadedSkill) => `${skill.dir}.json`;
const readRecord = async (path: string) => JSON.parse(await Deno.readTextFile(path)).contents;

/** `kept` installed and run once: its stamp's path, and the stamp as written. */
async function keptRecord(root: string, description: string) {
  const kept = await installKept(root, description);
  const path = stampOf(await verifiedSkill(await kept.listed(), kept.home));
  return { ...kept, path, honest: JSON.parse(await Deno.readTextFile(path)) };
}

Deno.test("a run reads its manifest from the record kept in the verified copy's stamp, the same as from the copy", async () => {
  await using tmp = await tempDir();
  const { home, listed } = await installKept(tmp.path, "First words.");
  const first = await verifiedSkill(await listed(), home);
  // One file beside the copy keeps its digests and its record: no other file is written.
  const beside = [...Deno.readDirSync(dirname(first.dir))].map((e) => e.name)
    .filter((name) => name.startsWith(basename(first.dir))).sort();
  assert.deepEqual(beside, [basename(first.dir), `${basename(first.dir)}.json`]);
  const stored = await readRecord(stampOf(first));
  assert.equal(stored.contents.manifest.description, "First words.");
  assert.deepEqual(stored.contents.manifest.envPatterns, ["KEPT_TOKEN"]);

  // The next run takes the record and gets what reading the copy gave.
  const second = await verifiedSkill(await listed(), home);
  assert.deepEqual(second, first);
});

Deno.test("a record of another digest, folder or version is never used: the copy's manifest is read again", async () => {
  await using tmp = await tempDir();
  const { home, listed, path, honest } = await keptRecord(tmp.path, "Honest words.");
  const poisoned = (change: (record: typeof honest.contents) => void) => {
    const stamp = structuredClone(honest);
    stamp.contents.contents.manifest.description = "Poisoned words.";
    stamp.contents.contents.manifest.envPatterns = ["*"];
    change(stamp.contents);
    return JSON.stringify(stamp);
  };
  const cases: Record<string, string> = {
    "another digest": poisoned((r) => r.digest = `sha256:${"0".repeat(64)}`),
    "another folder": poisoned((r) => {
      r.contents.dir = join(tmp.path, "elsewhere");
      r.contents.skillMdPath = join(tmp.path, "elsewhere", "SKILL.md");
    }),
    "another version of skills": poisoned((r) => r.cli = "0.0.0-older"),
    "another format": poisoned((r) => r.version = 999),
    "not JSON": "{ half",
  };
  for (const [label, text] of Object.entries(cases)) {
    await Deno.writeTextFile(path, text);
    const again = await verifiedSkill(await listed(), home);
    assert.equal(again.manifest.description, "Honest words.", label);
    assert.deepEqual(again.manifest.envPatterns, ["KEPT_TOKEN"], label);
    // ...and the stamp is written again, with the honest record, for the next run.
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), honest, label);
  }
});

Deno.test("a skill trusted again at new files runs with its new manifest, not the old record", async () => {
  await using tmp = await tempDir();
  const { home, installed, listed } = await installKept(tmp.path, "Before the change.");
  const before = await verifiedSkill(await listed(), home);
  assert.equal(before.manifest.description, "Before the change.");
  await Deno.writeTextFile(
    join(installed, "SKILL.md"),
    skillMd("kept", "After the change.", "permissions:\n  env: [OTHER_TOKEN]\n"),
  );
  await retrust(home, installed);
  const after = await verifiedSkill(await listed(), home);
  assert.notEqual(after.dir, before.dir, "a new digest, a new copy");
  assert.equal(after.manifest.description, "After the change.");
  assert.deepEqual(after.manifest.envPatterns, ["OTHER_TOKEN"]);
});

Deno.test("a bundled skill's record is kept too, and gives what its copy says", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const listed = async () =>
    (await loadCatalog(home)).skills.find((s) => s.canonical === "hello-extended")!;
  const first = await verifiedSkill(await listed(), home);
  const path = join(home, ".cache", "run", "bundled-hello-extended.record.json");
  assert.equal(JSON.parse(await Deno.readTextFile(path)).contents.dir, first.dir);
  assert.deepEqual(await verifiedSkill(await listed(), home), first);
});

Deno.test("contents JSON cannot spell exactly are not kept (the manifest is read each time)", async () => {
  await using tmp = await tempDir();
  const { home, listed } = await installKept(tmp.path, "Plain words.");
  const contents = copyContents(await verifiedSkill(await listed(), home));
  const cases: Record<string, unknown> = {
    "an infinite number": Infinity,
    "not a number": NaN,
    "a date": new Date(0),
  };
  for (const [label, value] of Object.entries(cases)) {
    const odd = structuredClone(contents);
    (odd.manifest as unknown as Record<string, unknown>).metadata = { value };
    assert.equal(storedContents("sha256:any", odd), undefined, label);
  }
  assert.notEqual(storedContents("sha256:any", contents), undefined);
});

Deno.test("a record naming a script outside the copy's scripts/ folder is never used", async () => {
  await using tmp = await tempDir();
  const { home, listed, path, honest } = await keptRecord(tmp.path, "Kept words.");
  const planted = join(tmp.path, "planted.py");
  await Deno.writeTextFile(planted, "print('planted')\n");
  for (
    const script of [
      { ...honest.contents.contents.scripts[0], path: planted },
      { ...honest.contents.contents.scripts[0], file: "../../planted.py", path: planted },
    ]
  ) {
    const stamp = structuredClone(honest);
    stamp.contents.contents.scripts = [script];
    await Deno.writeTextFile(path, JSON.stringify(stamp));
    const again = await verifiedSkill(await listed(), home);
    assert.equal(again.scripts[0]!.path, join(again.dir, "scripts", "go.py"));
  }
});
