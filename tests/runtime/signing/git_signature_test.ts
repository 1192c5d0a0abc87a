/**
 * Who signed a commit or tag (runtime/signing/git_signature.ts), in a real repository with
 * commits and tags signed by real SSH keys: the listed signer's principal, a refusal for an
 * unsigned commit or an unlisted key, and the repository's own configuration (read in place)
 * never picks the allowed signers.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { gitSigner } from "../../../src/runtime/signing/git_signature.ts";
import { tempDir } from "../../helpers/cli.ts";
import { sshKeyPair } from "../../helpers/ssh_keys.ts";

const ENV = { PATH: "/usr/bin:/bin", HOME: "/nonexistent" };

async function git(repo: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com", ...args],
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** A repository with one commit, signed by `key` when given; its sha. */
async function commit(repo: string, key?: string): Promise<string> {
  await Deno.writeTextFile(join(repo, "SKILL.md"), `---\nname: x\n---\n${crypto.randomUUID()}\n`);
  await git(repo, "add", ".");
  const sign = key ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}`, "commit", "-S"] : [
    "commit",
  ];
  await git(repo, ...sign, "-q", "-m", "change");
  return await git(repo, "rev-parse", "HEAD");
}

async function fixture() {
  const dir = await tempDir();
  const alice = await sshKeyPair(dir.path, "alice");
  const mallory = await sshKeyPair(dir.path, "mallory");
  const allowed = join(dir.path, "allowed_signers");
  await Deno.writeTextFile(allowed, alice.line);
  const repo = join(dir.path, "repo");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q");
  return { dir, alice, mallory, allowed, repo };
}

Deno.test("gitSigner: a commit signed by a listed key is its principal's; unsigned and unlisted are refused", async () => {
  const { dir, alice, mallory, allowed, repo } = await fixture();
  await using _ = dir;
  const signed = await commit(repo, alice.key);
  assert.deepEqual(await gitSigner(repo, "file", signed, null, allowed, { env: ENV }), {
    principal: "alice@example.com",
  });
  const unsigned = await commit(repo);
  assert.deepEqual(await gitSigner(repo, "file", unsigned, null, allowed, { env: ENV }), {
    refused: "its commit is not signed",
  });
  const byMallory = await commit(repo, mallory.key);
  assert.deepEqual(await gitSigner(repo, "file", byMallory, null, allowed, { env: ENV }), {
    refused: "its signer is not in the allowed signers",
  });
});

Deno.test("gitSigner: an unsigned commit fetched by a tag the listed key signed is the tag signer's", async () => {
  const { dir, alice, allowed, repo } = await fixture();
  await using _ = dir;
  const sha = await commit(repo);
  await git(
    repo,
    "-c",
    "gpg.format=ssh",
    "-c",
    `user.signingkey=${alice.key}`,
    "tag",
    "-s",
    "v1",
    "-m",
    "v1",
  );
  assert.deepEqual(await gitSigner(repo, "file", sha, "v1", allowed, { env: ENV }), {
    principal: "alice@example.com",
  });
});

Deno.test("gitSigner: the repository's own config cannot name its own allowed signers", async () => {
  const { dir, mallory, allowed, repo } = await fixture();
  await using _ = dir;
  const own = join(repo, ".git", "mallory_signers");
  await Deno.writeTextFile(own, mallory.line);
  await git(repo, "config", "gpg.format", "ssh");
  await git(repo, "config", "gpg.ssh.allowedSignersFile", own);
  const sha = await commit(repo, mallory.key);
  const result = await gitSigner(repo, "file", sha, null, allowed, { env: ENV });
  assert.ok("refused" in result, JSON.stringify(result));
});
