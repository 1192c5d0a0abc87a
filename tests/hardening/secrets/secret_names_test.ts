/**
 * Secret files by name, with no bound (runtime/masks/secret_files.ts): a script reads none
 * of them at any depth, in a read-only workspace too, however many files stand before them
 * (a run that filled 20,000 files ahead of `backend/`, 25,000 entries at the top), and a
 * symlinked secret is masked by its target, as is a link whose target is a secret.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type Lab, setupLab } from "../sandbox/sandbox_helpers.ts";
import { needsSandbox, visibleFolder } from "../../helpers/sandbox.ts";
import { writeTree } from "../../helpers/tree.ts";

const NESTED: Record<string, string> = {
  "backend/.env": "DB_PASSWORD=backend-env-secret",
  "web/app/.npmrc": "//registry.npmjs.org/:_authToken=npm-secret-token",
  "deploy/.netrc": "machine example.com password netrc-secret",
  "tools/ci/.git-credentials": "https://ci:git-credentials-secret@example.com",
  "ops/keys/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY----- ssh-key-secret",
};

/** Each `rel` read by the script: it must fail (masked), never show the secret. */
async function assertUnreadable(
  lab: Lab,
  rels: readonly string[],
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<void> {
  const seen = await lab.attempt(rels.map((rel) => `read:${rel}`), env, flags);
  for (const rel of rels) {
    const result = seen[`read:${rel}`]!;
    assert.equal(result.ok, false, `${rel} was readable: ${result.detail}`);
    assert.doesNotMatch(result.detail, /secret/, rel);
  }
}

/** `count` small files in `folder` (sorted before `backend/`, so a walk lists them first). */
function fill(folder: string, count: number): void {
  Deno.mkdirSync(folder, { recursive: true });
  for (let i = 0; i < count; i++) Deno.writeTextFileSync(join(folder, `f${i}.txt`), "");
}

Deno.test(
  "nested .env, .npmrc, .netrc, .git-credentials and keys are unreadable in a read-only workspace",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    await writeTree(lab.callerDir, NESTED);
    const rels = Object.keys(NESTED);
    await assertUnreadable(lab, rels, ["--read-only"]);
    await assertUnreadable(lab, rels, [], { SKILLS_READ_ONLY: "1" });
    await assertUnreadable(lab, rels); // and writable
    // The rest of the workspace is still there to read.
    const data = await lab.attempt(["read:data.txt"], {}, ["--read-only"]);
    assert.equal(data["read:data.txt"]!.detail, "the user's data\n");
  },
);

Deno.test(
  "20,000 files ahead of backend/ do not expose backend/.env",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    fill(join(lab.callerDir, "aaa-build"), 20_500);
    await writeTree(lab.callerDir, { "backend/.env": NESTED["backend/.env"]! });
    await assertUnreadable(lab, ["backend/.env"]);
    await assertUnreadable(lab, ["backend/.env"], ["--read-only"]);
  },
);

Deno.test(
  "a workspace with 25,000 top-level entries still hides its secrets",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    fill(lab.callerDir, 25_000);
    await writeTree(lab.callerDir, { "zz/.env.local": "TOKEN=top-level-secret" });
    await assertUnreadable(lab, ["zz/.env.local", ".env"]);
  },
);

Deno.test(
  "a symlinked secret is masked by its target, and so is a link whose target is a secret",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    // Outside the workspace, where the sandbox shows the filesystem (read-only): not in /tmp,
    // which is private inside.
    await using visible = await visibleFolder(".masks-outside-");
    const outside = visible.path;
    await writeTree(outside, {
      "shared/.env": "TOKEN=linked-target-secret",
      "creds.txt": "TOKEN=linked-by-name-secret",
    });
    await Deno.mkdir(join(lab.callerDir, "app", "config"), { recursive: true });
    // A link named like a secret, to a plain name outside; a plainly named link to a secret.
    await Deno.symlink(join(outside, "creds.txt"), join(lab.callerDir, "app", ".env"));
    await Deno.symlink(
      join(outside, "shared", ".env"),
      join(lab.callerDir, "app", "config", "settings"),
    );
    // A chain: a link to a link to the secret.
    await Deno.symlink("config/settings", join(lab.callerDir, "app", "current"));
    await assertUnreadable(lab, [
      "app/.env",
      "app/config/settings",
      "app/current",
      `${outside}/creds.txt`,
      `${outside}/shared/.env`,
    ], ["--read-only"]);
  },
);
