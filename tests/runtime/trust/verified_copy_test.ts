/**
 * The verified copy's stamp is written once the copy is in place (by whoever reads its
 * contents, trust/snapshot.ts): a copy another build put in place and has not stamped yet is
 * taken only when its own files hash to this build's digest, and one whose build was killed
 * before it stamped it is still pruned.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import { verifiedCopy } from "../../../src/runtime/trust/verified_copy.ts";
import { tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";

const HONEST = "print('honest')";

async function source(root: string, body = HONEST): Promise<{ dir: string; digest: string }> {
  const dir = join(root, "src");
  await writeTree(dir, { "SKILL.md": skillMd("copied"), "scripts/go.py": pyScript(body) });
  return { dir, digest: await computeDigest(dir) };
}

/** The entries of the run folder beside the copies (stamps, asides, builds), sorted. */
function runFolder(home: string): string[] {
  return [...Deno.readDirSync(join(home, ".cache", "run"))].map((e) => e.name).sort();
}

Deno.test("a copy put in place but not stamped yet is taken by its files' digest, then stamped once", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const { dir, digest } = await source(tmp.path);
  const built = await verifiedCopy(home, "copied", dir, digest);
  assert.equal(
    built.stamped,
    false,
    "a fresh build leaves the stamp to the reader of its contents",
  );
  const id = built.dir.split("/").pop()!;
  assert.deepEqual(runFolder(home), [id]);

  // Another run meanwhile: its own build finds this copy in place, hashes it and takes it.
  const taken = await verifiedCopy(home, "copied", dir, digest);
  assert.equal(taken.dir, built.dir);
  assert.equal(taken.digest, built.digest);
  assert.deepEqual(runFolder(home), [id], "no copy moved aside, no build left");

  taken.keep({ kept: "contents" });
  const stamped = await verifiedCopy(home, "copied", dir, digest);
  assert.equal(stamped.stamped, true);
  assert.deepEqual(stamped.kept, { kept: "contents" });
});

Deno.test("an unstamped copy whose files do not hash to the build's digest is moved aside, never run", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const { dir, digest } = await source(tmp.path);
  const built = await verifiedCopy(home, "copied", dir, digest);
  const script = join(built.dir, "scripts", "go.py");
  await Deno.writeTextFile(script, pyScript("print('planted')"));

  const again = await verifiedCopy(home, "copied", dir, digest);
  assert.equal(again.dir, built.dir);
  assert.equal(await Deno.readTextFile(script), pyScript(HONEST), "the copy in place is honest");
  const aside = runFolder(home).filter((name) => name.includes(".old-"));
  assert.equal(aside.length, 1, "the tampered copy is moved aside (a run may still use it)");
  assert.equal(
    await Deno.readTextFile(join(home, ".cache", "run", aside[0]!, "scripts", "go.py")),
    pyScript("print('planted')"),
  );
});

Deno.test("copies of other digests unused for ten minutes are pruned: by the stamp's age, or the folder's when its build never stamped it", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const run = join(home, ".cache", "run");
  // Left by earlier runs: a stamped copy and one whose build was killed before it stamped it.
  const stampedId = `copied-${"a".repeat(32)}`;
  const unstampedId = `copied-${"b".repeat(32)}`;
  const recentId = `copied-${"c".repeat(32)}`;
  for (const id of [stampedId, unstampedId, recentId]) {
    await writeTree(join(run, id), { "SKILL.md": skillMd("copied") });
  }
  await Deno.writeTextFile(join(run, `${stampedId}.json`), "{}");
  const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
  for (const path of [`${stampedId}.json`, unstampedId]) {
    Deno.utimeSync(join(run, path), elevenMinutesAgo, elevenMinutesAgo);
  }

  const { dir, digest } = await source(tmp.path);
  const built = await verifiedCopy(home, "copied", dir, digest);
  assert.deepEqual(runFolder(home), [recentId, built.dir.split("/").pop()!].sort());
});
