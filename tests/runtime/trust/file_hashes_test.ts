import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { MAX_SKILL_FILE_BYTES } from "../../../src/core/limits.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import { tempDir } from "../../helpers/cli.ts";

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

Deno.test("computeDigest() refuses a file over the size limit before reading it", async () => {
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
