/**
 * What a lock entry says of the world around the file (lifecycle/lock_entries.ts): a
 * folder's files and digest as an entry records them, how a locked folder drifted, and the
 * source an entry names, written relative to the project and read back from it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { LockedSkill } from "../../../src/core/records/lockfile.ts";
import {
  describeFiles,
  digestOfLocked,
  diskDrift,
  lockedSource,
  projectSkillDir,
  sourceOfLocked,
} from "../../../src/runtime/lifecycle/lock_entries.ts";
import { tempDir } from "../../helpers/cli.ts";

async function writeSkill(dir: string): Promise<void> {
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), "---\nname: alpha\ndescription: a\n---\n");
  await Deno.writeTextFile(join(dir, "scripts", "run.py"), "print('hi')\n");
}

function entryOf(described: { files: Record<string, string>; digest: string }): LockedSkill {
  return {
    name: "alpha",
    source: { type: "local", url: "vendor/alpha", subpath: "" },
    branch: null,
    tag: null,
    ref: null,
    commit: null,
    digest: described.digest,
    files: described.files,
    permissions: { env: [] },
  };
}

Deno.test("a folder described as a lock entry adds up to its digest, and drift names the file changed", async () => {
  await using tmp = await tempDir();
  const dir = projectSkillDir(tmp.path, "alpha");
  assert.equal(dir, join(tmp.path, ".agents", "skills", "alpha"));
  await writeSkill(dir);
  const described = await describeFiles(dir);
  assert.deepEqual(Object.keys(described.files), ["SKILL.md", "scripts/run.py"]);
  const entry = entryOf(described);
  assert.equal(await digestOfLocked(entry), described.digest);
  assert.deepEqual(await diskDrift(tmp.path, "alpha", entry), []);
  await Deno.writeTextFile(join(dir, "scripts", "run.py"), "print('changed')\n");
  await Deno.writeTextFile(join(dir, "extra.txt"), "new\n");
  assert.deepEqual(await diskDrift(tmp.path, "alpha", entry), [
    { path: "extra.txt", change: "added" },
    { path: "scripts/run.py", change: "changed" },
  ]);
  assert.equal(await diskDrift(tmp.path, "beta", entry), null);
});

Deno.test("a folder holding a symlink cannot be described as a lock entry", async () => {
  await using tmp = await tempDir();
  await writeSkill(tmp.path);
  await Deno.symlink("SKILL.md", join(tmp.path, "link.md"));
  await assert.rejects(() => describeFiles(tmp.path), /symlink: link\.md/);
});

Deno.test("a local source inside the project is locked relative to it and found from the root again", async () => {
  await using tmp = await tempDir();
  const vendored = join(tmp.path, "vendor", "alpha");
  const locked = lockedSource({ type: "local", path: vendored }, "ignored", tmp.path);
  assert.deepEqual(locked, { type: "local", url: "vendor/alpha", subpath: "" });
  const outside = lockedSource({ type: "local", path: "/opt/skills/alpha" }, "", tmp.path);
  assert.equal(outside.url, "/opt/skills/alpha");
  const back = sourceOfLocked(locked, tmp.path);
  assert.equal(back.kind, "local-folder");
  assert.equal(back.kind === "local-folder" ? back.path : undefined, vendored);
});

Deno.test("a git source is locked as given, with its subpath, and parsed again when read back", () => {
  const url = "https://github.com/acme/skills.git";
  const locked = lockedSource({ type: "git", url }, "skills/alpha", "/project");
  assert.deepEqual(locked, { type: "git", url, subpath: "skills/alpha" });
  const back = sourceOfLocked(locked, "/project");
  assert.equal(back.kind, "remote-git");
});
