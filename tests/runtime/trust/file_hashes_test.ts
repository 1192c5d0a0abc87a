import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { MAX_SKILL_FILE_BYTES } from "../../../src/core/manifest/limits.ts";
import {
  cachedDigest,
  computeDigest,
  DigestIndex,
  digestReading,
} from "../../../src/runtime/trust/file_hashes.ts";
import { tempDir } from "../../helpers/cli.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test("computeDigest() changes with any file's content or path", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "skill");
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), "a\n");
  await Deno.writeTextFile(join(dir, "scripts", "x.py"), "b\n");
  const first = await computeDigest(dir);
  assert.match(first, /^sha256:[0-9a-f]{64}$/);
  assert.equal(await computeDigest(dir), first);
  await Deno.writeTextFile(join(dir, "scripts", "x.py"), "c\n");
  const edited = await computeDigest(dir);
  assert.notEqual(edited, first);
  await Deno.rename(join(dir, "scripts", "x.py"), join(dir, "scripts", "y.py"));
  assert.notEqual(await computeDigest(dir), edited, "a rename changes the digest");
});

Deno.test("computeDigest() refuses a file over the size limit before reading it", {
  ignore: SKIP_SLOW,
}, async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "skill");
  await Deno.mkdir(join(dir, "assets"), { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), "a\n");
  // Sparse: the size is there, the disk space is not.
  await Deno.writeFile(join(dir, "assets", "huge.bin"), new Uint8Array(0));
  await Deno.truncate(join(dir, "assets", "huge.bin"), MAX_SKILL_FILE_BYTES + 1);
  await assert.rejects(
    () => computeDigest(dir),
    (e: unknown) =>
      e instanceof SkillError &&
      e.message ===
        "Skill file assets/huge.bin is 104857601 bytes; files over 104857600 bytes (100 MiB) are refused",
  );
  await Deno.truncate(join(dir, "assets", "huge.bin"), MAX_SKILL_FILE_BYTES);
  assert.match(await computeDigest(dir), /^sha256:/, "exactly at the limit is fine");
});

Deno.test(
  "cachedDigest() answers from stats alone only while no file or folder of the skill changed",
  { ignore: SKIP_SLOW },
  async () => {
    await using tmp = await tempDir();
    const dir = join(tmp.path, "skill");
    await Deno.mkdir(join(dir, "scripts", "lib"), { recursive: true });
    await Deno.mkdir(join(dir, "assets", "empty"), { recursive: true });
    await Deno.writeTextFile(join(dir, "SKILL.md"), "a\n");
    await Deno.writeTextFile(join(dir, "scripts", "x.py"), "b\n");
    await Deno.writeTextFile(join(dir, "scripts", "lib", "util.py"), "c\n");
    const cache = join(tmp.path, "digest.json");
    // Only keys of settled files and folders are trusted (a change within the timestamp
    // granularity could keep them): a cache of files just written would hold nothing the next
    // check could use, so none is written.
    const fresh = await cachedDigest(dir, cache);
    assert.equal(fresh, await computeDigest(dir));
    assert.equal(await Deno.lstat(cache).then(() => true, () => false), false, "no empty cache");
    // Let them settle, as an installed skill's have.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const trusted = await cachedDigest(dir, cache);
    assert.equal(trusted, fresh);
    assert.equal(trusted, await computeDigest(dir));
    const settledCache = await Deno.readTextFile(cache);
    assert.ok(JSON.parse(settledCache).dirs, "the folders' keys are kept");
    assert.equal(await cachedDigest(dir, cache), trusted, "unchanged: the same digest");

    /** Each change is made against the cache as it was before it. */
    const afterChange = async (change: () => Promise<void>, undo: () => Promise<void>) => {
      await Deno.writeTextFile(cache, settledCache);
      await change();
      const seen = await cachedDigest(dir, cache);
      assert.equal(seen, await computeDigest(dir));
      await undo();
      return seen;
    };
    const added = (path: string) =>
      afterChange(
        () => Deno.writeTextFile(join(dir, path), "new\n"),
        () => Deno.remove(join(dir, path)),
      );
    assert.notEqual(await added("scripts/lib/extra.py"), trusted, "a file added deep down");
    assert.notEqual(await added("assets/empty/payload.py"), trusted, "a file in an empty folder");
    assert.notEqual(await added("sitecustomize.py"), trusted, "a file added at the top");
    const swapped = await afterChange(async () => {
      // Same size, written aside and renamed over the original.
      await Deno.writeTextFile(join(dir, "scripts", "x.tmp"), "z\n");
      await Deno.rename(join(dir, "scripts", "x.tmp"), join(dir, "scripts", "x.py"));
    }, () => Deno.writeTextFile(join(dir, "scripts", "x.py"), "b\n"));
    assert.notEqual(swapped, trusted, "a file replaced by a rename");
    const gone = await afterChange(
      () => Deno.remove(join(dir, "scripts", "lib"), { recursive: true }),
      async () => {
        await Deno.mkdir(join(dir, "scripts", "lib"));
        await Deno.writeTextFile(join(dir, "scripts", "lib", "util.py"), "c\n");
      },
    );
    assert.notEqual(gone, trusted, "a folder removed");
  },
);

Deno.test("DigestIndex answers a listing from one file, and never for a skill changed since", {
  ignore: SKIP_SLOW,
}, async () => {
  await using tmp = await tempDir();
  const dirs = ["one", "two"].map((name) => join(tmp.path, name));
  for (const dir of dirs) {
    await Deno.mkdir(join(dir, "scripts"), { recursive: true });
    await Deno.writeTextFile(join(dir, "SKILL.md"), `${dir}\n`);
    await Deno.writeTextFile(join(dir, "scripts", "x.py"), "b\n");
  }
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const path = join(tmp.path, "digests.json");
  const index = DigestIndex.load(path);
  const digests = [];
  for (const dir of dirs) {
    assert.equal(index.digestOf(dir), undefined, "nothing recorded yet");
    digests.push(await index.check(dir, join(tmp.path, `digest-${dirs.indexOf(dir)}.json`)));
  }
  await index.save();
  for (const [i, dir] of dirs.entries()) assert.equal(digests[i], await computeDigest(dir));

  // The skills' own caches gone: the index alone answers.
  for (const i of [0, 1]) await Deno.remove(join(tmp.path, `digest-${i}.json`));
  const reloaded = DigestIndex.load(path);
  assert.deepEqual(dirs.map((dir) => reloaded.digestOf(dir)), digests);

  // Same size, new bytes: the file's change time moved, so the index no longer answers.
  await Deno.writeTextFile(join(dirs[0]!, "scripts", "x.py"), "z\n");
  await Deno.writeTextFile(join(dirs[1]!, "scripts", "new.py"), "n\n");
  const after = DigestIndex.load(path);
  assert.equal(after.digestOf(dirs[0]!), undefined, "an edited file");
  assert.equal(after.digestOf(dirs[1]!), undefined, "an added file");
  const edited = await after.check(dirs[0]!, join(tmp.path, "digest-0.json"));
  assert.notEqual(edited, digests[0]);
  assert.equal(edited, await computeDigest(dirs[0]!));
});

Deno.test("digestReading() hands over the bytes it hashed only when it read every file", {
  ignore: SKIP_SLOW,
}, async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "skill");
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), "a\n");
  await Deno.writeTextFile(join(dir, "scripts", "x.py"), "b\n");
  await Deno.chmod(join(dir, "scripts", "x.py"), 0o755);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const cache = join(tmp.path, "digest.json");
  // No cache yet (the first run after an install): every file read, its bytes kept.
  const cold = await digestReading(dir, cache);
  assert.equal(cold.digest, await computeDigest(dir));
  const decoded = cold.read!.map((
    f,
  ) => [f.path, new TextDecoder().decode(f.bytes), f.mode & 0o111]);
  assert.deepEqual(decoded.sort(), [["SKILL.md", "a\n", 0], ["scripts/x.py", "b\n", 0o111]]);
  // Answered from the cache: nothing read, nothing handed over (the copy reads for itself).
  const warm = await digestReading(dir, cache);
  assert.equal(warm.digest, cold.digest);
  assert.equal(warm.read, undefined);
  // One file changed: only it is read, so no complete set of bytes either.
  await Deno.writeTextFile(join(dir, "SKILL.md"), "changed\n");
  const partial = await digestReading(dir, cache);
  assert.equal(partial.digest, await computeDigest(dir));
  assert.equal(partial.read, undefined);
});
