/**
 * The writing steps of a change (runtime/lifecycle/commit.ts), called directly on a real
 * `$SKILLS_HOME`: a removal moves only the folders this tool manages and drops the entries in
 * one registry write, a plan another command overtook is a conflict that changes nothing,
 * trust records the digest and untrust withdraws it, recorded commits skip a changed entry,
 * and a staged copy takes only regular files at safe paths, without set-id or group bits.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  recordCommits,
  removeSkills,
  stageCopy,
  trustSkill,
  untrustSkill,
} from "../../../src/runtime/lifecycle/commit.ts";
import { findEntry, type RegistryEntry } from "../../../src/core/records/registry.ts";
import { createStaging, disposeStaging, type Staging } from "../../../src/runtime/store/staging.ts";
import { readRegistry } from "../../../src/runtime/store/registry.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/cli.ts";
import { localEntry, registerEntries } from "../../helpers/install_fixture.ts";
import { writeSkillMd } from "../../helpers/tree.ts";

async function installed(home: string, name: string, at = join(home, name)) {
  await writeSkillMd(at, `name: ${name}\ndescription: d`, "body\n");
  const entry = localEntry(name, at, { updated_at: "2026-01-01T00:00:00Z" });
  await registerEntries(home, entry);
  return entry;
}

async function withStaging<T>(home: string, work: (staging: Staging) => Promise<T>): Promise<T> {
  const staging = createStaging(home);
  try {
    return await work(staging);
  } finally {
    disposeStaging(staging);
  }
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("removeSkills: a managed folder leaves with its entry; an unmanaged one is only dropped", async () => {
  await using home = await tempDir();
  await using elsewhere = await tempDir();
  const pdf = await installed(home.path, "pdf");
  const outside = await installed(home.path, "outside", join(elsewhere.path, "outside"));
  const { removed } = await withStaging(
    home.path,
    (staging) => removeSkills(home.path, staging, [pdf, outside]),
  );
  assert.deepEqual(removed, ["pdf", "outside"]);
  assert.equal(await exists(join(home.path, "pdf")), false);
  assert.equal(await exists(join(elsewhere.path, "outside", "SKILL.md")), true);
  assert.deepEqual((await readRegistry(home.path)).skills, []);
});

Deno.test("removeSkills: a plan another command overtook is a conflict and nothing moves", async () => {
  await using home = await tempDir();
  const pdf = await installed(home.path, "pdf");
  const docx = await installed(home.path, "docx");
  await registerEntries(home.path, { ...docx, updated_at: "2026-02-02T00:00:00Z" });
  await assert.rejects(
    withStaging(home.path, (staging) => removeSkills(home.path, staging, [pdf, docx])),
    (e) => isSkillError(e) && e.code === "conflict" && e.message.includes("'docx'"),
  );
  assert.equal(await exists(join(home.path, "pdf", "SKILL.md")), true);
  const names = (await readRegistry(home.path)).skills.map((s) => s.name_canonical).sort();
  assert.deepEqual(names, ["docx", "pdf"]);
});

Deno.test("trustSkill records the digest; untrustSkill withdraws it; a stale entry is a conflict", async () => {
  await using home = await tempDir();
  const pdf = await installed(home.path, "pdf");
  const trusted = await trustSkill(home.path, { ...pdf, trusted: false }, "sha256:abc");
  assert.equal(trusted.trusted_digest, "sha256:abc");
  const stored = findEntry(await readRegistry(home.path), "pdf")!;
  assert.equal(stored.trusted, true);
  assert.equal(stored.trusted_digest, "sha256:abc");

  const untrusted = await untrustSkill(home.path, stored);
  assert.deepEqual([untrusted.trusted, untrusted.trusted_digest], [false, null]);
  const stale: RegistryEntry = { ...stored, updated_at: "1999-01-01T00:00:00Z" };
  await assert.rejects(trustSkill(home.path, stale, "sha256:def"), /changed by another command/);
  assert.equal(findEntry(await readRegistry(home.path), "pdf")!.trusted_digest, null);
});

Deno.test("recordCommits moves the commit of unchanged entries only", async () => {
  await using home = await tempDir();
  const pdf = await installed(home.path, "pdf");
  const docx = await installed(home.path, "docx");
  await registerEntries(home.path, { ...docx, updated_at: "2026-03-03T00:00:00Z" });
  await recordCommits(home.path, [{ entry: pdf, sha: "1".repeat(40) }, {
    entry: docx,
    sha: "2".repeat(40),
  }]);
  const registry = await readRegistry(home.path);
  assert.equal(findEntry(registry, "pdf")!.commit_sha, "1".repeat(40));
  assert.equal(findEntry(registry, "docx")!.commit_sha, null);
});

Deno.test("stageCopy copies regular files at safe paths, modes without set-id or group write", async () => {
  await using home = await tempDir();
  await using from = await tempDir();
  await Deno.mkdir(join(from.path, "scripts"));
  await Deno.writeTextFile(join(from.path, "scripts", "run.py"), "print(1)\n");
  await Deno.chmod(join(from.path, "scripts", "run.py"), 0o6775);
  await Deno.symlink("/etc/passwd", join(from.path, "link"));
  await withStaging(home.path, async (staging) => {
    const dest = await stageCopy(staging, from.path, "pdf", ["scripts/run.py"]);
    assert.equal(dest, join(staging.path, "new", "pdf"));
    assert.equal(await Deno.readTextFile(join(dest, "scripts", "run.py")), "print(1)\n");
    assert.equal((await Deno.stat(join(dest, "scripts", "run.py"))).mode! & 0o7777, 0o755);
    await assert.rejects(
      stageCopy(staging, from.path, "x", ["../outside"]),
      (e) => isSkillError(e) && e.code === "invalid_path",
    );
    await assert.rejects(
      stageCopy(staging, from.path, "y", ["link"]),
      (e) => isSkillError(e) && e.code === "integrity_mismatch",
    );
  });
});
