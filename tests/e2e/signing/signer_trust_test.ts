/**
 * One signer policy, end to end with real keys and repositories: trust on first use (the signer
 * recorded at install; an update signed by someone else refused, exit 23, unless
 * --accept-signer-change, which is recorded), --allow-unsigned explicit and recorded (and
 * powerless against the system's policy), and `add`'s summary and `skills info` saying who
 * signed and how it was verified.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { sshKeyPair } from "../../helpers/ssh_keys.ts";
import { readTree, writeShellSkill } from "../../helpers/tree.ts";

Deno.test("trust on first use: an update signed by another allowed signer is refused (23) until --accept-signer-change, which is recorded and shown", async () => {
  await using tmp = await tempDir();
  const alice = await sshKeyPair(tmp.path, "alice");
  const bob = await sshKeyPair(tmp.path, "bob");
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "allowed_signers"), alice.line + bob.line);
  const env = { SKILLS_HOME: home, HOME: tmp.path };
  const sign = (key: string) => ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}.pub`];
  const repo = join(tmp.path, "repo");
  await writeShellSkill(repo, "name: tofu\ndescription: Signed.", "# One\n");
  await git(tmp.path, ["init", "--quiet", repo]);
  await git(repo, ["add", "-A"]);
  await git(repo, [...sign(alice.key), "commit", "-qS", "-m", "by alice"]);

  const add = await runCli(["add", `file://${repo}`, "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr, /Signature: ssh, alice@example\.com \(allowed_signers\)/);

  await writeShellSkill(repo, "name: tofu\ndescription: Signed.", "# Two\n");
  await git(repo, ["add", "-A"]);
  await git(repo, [...sign(bob.key), "commit", "-qS", "-m", "by bob"]);
  const before = await readTree(home);
  const refused = await runCli(["update", "tofu", "--yes"], { env });
  assert.equal(refused.code, 23, refused.stderr);
  assert.match(
    refused.stderr,
    /signed by alice@example\.com when installed, and its new version by bob@example\.com/,
  );
  assert.match(refused.stderr, /--accept-signer-change/);
  assert.deepEqual(await readTree(home), before, "nothing updated");

  const accepted = await runCli(["update", "tofu", "--yes", "--accept-signer-change"], { env });
  assert.equal(accepted.code, 0, accepted.stderr);
  const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
  assert.equal(entry.signed.by, "bob@example.com");
  assert.equal(entry.signed.previous, "alice@example.com");
  assert.equal(entry.signed.accepted, "--accept-signer-change");
  const info = await runCli(["info", "tofu"], { env });
  assert.match(
    info.stdout,
    /^Signature +ssh, bob@example\.com \(allowed_signers\); signer changed from alice@example\.com/m,
  );
});

Deno.test("--allow-unsigned passes the user's signature rule, recorded and shown, and runs; it cannot waive the system's", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "policy.yaml"), "signatures:\n  required: true\n");
  const env = { SKILLS_HOME: home, HOME: tmp.path };
  await writeShellSkill(join(tmp.path, "plain"), "name: plain\ndescription: Unsigned.", "# P\n");

  const refused = await runCli(["add", join(tmp.path, "plain"), "--yes"], { env });
  assert.equal(refused.code, 21, refused.stderr);
  assert.match(refused.stderr, /--allow-unsigned/);
  const added = await runCli(["add", join(tmp.path, "plain"), "--yes", "--allow-unsigned"], {
    env,
  });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, /Signature: unsigned, accepted with --allow-unsigned/);
  const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
  assert.equal(entry.signed.format, "none");
  assert.equal(entry.signed.accepted, "--allow-unsigned");
  const info = await runCli(["info", "plain"], { env });
  assert.match(info.stdout, /^Signature +unsigned, accepted with --allow-unsigned on \d{4}-/m);
  const run = await runCli(["run", "plain", "run"], { env: { ...env, SKILLS_SANDBOX: "off" } });
  assert.equal(run.code, 0, run.stderr);

  // The system's requirement is the organisation's: the user's flag does not reach it.
  const system = join(tmp.path, "etc-policy.yaml");
  await Deno.writeTextFile(system, "signatures: { required: true }\n");
  const systemEnv = { ...env, SKILLS_SYSTEM_POLICY: system };
  await writeShellSkill(join(tmp.path, "other"), "name: other\ndescription: Unsigned.", "# O\n");
  const waived = await runCli(["add", join(tmp.path, "other"), "--yes", "--allow-unsigned"], {
    env: systemEnv,
  });
  assert.equal(waived.code, 21, waived.stderr);
  assert.match(waived.stderr, /etc-policy\.yaml:1 \(signatures\.required\)/);
  assert.match(waived.stderr, /cannot be waived/);
  const blocked = await runCli(["run", "plain", "run"], {
    env: { ...systemEnv, SKILLS_SANDBOX: "off" },
  });
  assert.equal(blocked.code, 21, blocked.stderr);
});
