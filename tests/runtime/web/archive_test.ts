/**
 * Archives from websites read with every entry checked while reading: hostile archives
 * (traversal, absolute paths, symbolic and hard links, devices, bombs in gzip and zip, too
 * many entries) are refused by `readArchive` before a single file is handed back, and an
 * honest zip, tar and tar.gz give their files (a wrapping folder unwrapped, modes kept).
 */

import assert from "node:assert/strict";
import { readArchive } from "../../../src/runtime/web/archive.ts";
import { type ArchiveLimits, archiveLimits } from "../../../src/runtime/web/entries.ts";
import { SkillError } from "../../../src/core/errors.ts";
import { gzip, tarBytes, zipBytes } from "../../helpers/archives.ts";

const LIMITS: ArchiveLimits = archiveLimits({});
const SKILL = "---\nname: demo\ndescription: A demo.\n---\nBody.\n";

async function refused(bytes: Uint8Array, pattern: RegExp, limits = LIMITS): Promise<void> {
  await assert.rejects(readArchive(bytes, limits, "https://example.test/a"), (error: unknown) => {
    assert.ok(error instanceof SkillError, String(error));
    assert.equal(error.code, "integrity_mismatch");
    assert.match(error.message, pattern);
    assert.match(error.message, /Nothing was written/);
    return true;
  });
}

Deno.test("readArchive() reads an honest tar.gz, tar and zip, unwrapping one top folder and keeping the executable bit", async () => {
  const tar = tarBytes([
    { path: "demo/", type: "5" },
    { path: "demo/SKILL.md", body: SKILL },
    { path: "demo/scripts/run.sh", body: "#!/bin/sh\necho hi\n", mode: 0o755 },
  ]);
  for (const bytes of [tar, await gzip(tar)]) {
    const files = await readArchive(bytes, LIMITS, "x");
    assert.deepEqual(files.map((f) => [f.path, f.executable]), [
      ["SKILL.md", false],
      ["scripts/run.sh", true],
    ]);
    assert.equal(new TextDecoder().decode(files[0]!.bytes), SKILL);
  }
  const zip = await zipBytes([
    { name: "SKILL.md", body: SKILL },
    { name: "scripts/run.sh", body: "echo\n", mode: 0o100755 },
  ]);
  const files = await readArchive(zip, LIMITS, "x");
  assert.deepEqual(files.map((f) => [f.path, f.executable]), [["SKILL.md", false], [
    "scripts/run.sh",
    true,
  ]]);
});

Deno.test("readArchive() refuses tar entries that leave the skill or are no plain file", async () => {
  const cases: [Parameters<typeof tarBytes>[0][number], RegExp][] = [
    [{ path: "../escape.md", body: "x" }, /'\.\.\/escape\.md' is not a path inside the skill/],
    [{ path: "a/../../escape.md", body: "x" }, /is not a path inside the skill/],
    [{ path: "/etc/cron.d/x", body: "x" }, /'\/etc\/cron\.d\/x' is not a path inside the skill/],
    [{ path: "link", type: "2", link: "/etc/passwd" }, /'link' is a symbolic link/],
    [{ path: "inside", type: "2", link: "SKILL.md" }, /'inside' is a symbolic link/],
    [{ path: "hard", type: "1", link: "/etc/shadow" }, /'hard' is a hard link/],
    [{ path: "tty", type: "3" }, /'tty' is a device or special file/],
    [{ path: "fifo", type: "6" }, /'fifo' is a device or special file/],
    [{ path: ".git/hooks/post-checkout", body: "x" }, /is not a path inside the skill/],
  ];
  for (const [entry, pattern] of cases) {
    const tar = tarBytes([{ path: "SKILL.md", body: SKILL }, entry]);
    await refused(await gzip(tar), pattern);
  }
});

Deno.test("readArchive() stops a gzip bomb at the entry that claims too much, long before inflating it", async () => {
  // 16 MiB of zeros gzip to ~16 KiB; the limit is 1 MiB: the read stops at the header.
  const zeros = new Uint8Array(16 * 1024 * 1024);
  const bomb = await gzip(
    tarBytes([{ path: "SKILL.md", body: SKILL }, { path: "big.bin", body: zeros }]),
  );
  assert.ok(bomb.length < 64 * 1024, `the bomb is small (${bomb.length} bytes)`);
  const small = { ...LIMITS, extractMaxBytes: 1024 * 1024 };
  const started = performance.now();
  await refused(bomb, /unpacks to more than 1048576 bytes/, small);
  assert.ok(performance.now() - started < 500, "refused without inflating 16 MiB");
});

Deno.test("readArchive() refuses a zip symlink, a device, traversal, a lying size and too many entries", async () => {
  const skill = { name: "SKILL.md", body: SKILL };
  await refused(
    await zipBytes([skill, { name: "ln", body: "/etc/passwd", mode: 0o120777 }]),
    /'ln' is a symbolic link/,
  );
  await refused(await zipBytes([skill, { name: "dev", mode: 0o020644 }]), /'dev' is a device/);
  await refused(
    await zipBytes([skill, { name: "../../x", body: "x" }]),
    /not a path inside the skill/,
  );
  await refused(
    await zipBytes([skill, { name: "/abs", body: "x" }]),
    /not a path inside the skill/,
  );
  // Declares 10 bytes, inflates to 1 MiB: stopped one byte past what it declared.
  await refused(
    await zipBytes([skill, { name: "liar", body: new Uint8Array(1024 * 1024), declaredSize: 10 }]),
    /'liar' unpacks to another size than it declares/,
  );
  const many = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.md`, body: "x" }));
  await refused(await zipBytes([skill, ...many]), /more than 5 entries/, {
    ...LIMITS,
    extractMaxFiles: 5,
  });
});

Deno.test("archiveLimits() defaults to 10 MiB / 25 MiB / 1,000 files and reads the peer's variables", () => {
  assert.deepEqual(archiveLimits({}), {
    downloadMaxBytes: 10 * 1024 * 1024,
    extractMaxBytes: 25 * 1024 * 1024,
    extractMaxFiles: 1000,
  });
  assert.equal(archiveLimits({ SKILLS_EXTRACT_MAX_FILES: "5" }).extractMaxFiles, 5);
  assert.equal(archiveLimits({ SKILLS_EXTRACT_MAX_FILES: "-1" }).extractMaxFiles, 1000);
});
