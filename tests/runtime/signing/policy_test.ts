/**
 * The signer policy (runtime/signing/policy.ts): which allowed-signers files apply — the
 * user's for every install, a project's committed one in addition — and that a signer must be
 * in every file that applies, so a cloned project narrows the user's policy but never widens it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { requireSigned, signerPolicy } from "../../../src/runtime/signing/policy.ts";
import { sshSign } from "../../../src/runtime/signing/ssh.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/cli.ts";
import { sshKeyPair } from "../../helpers/ssh_keys.ts";

const DATA = "registry.example/skills/pdf:1@sha256:" + "b".repeat(64);

Deno.test("signerPolicy: none without files, the user's file, and the project's in addition", async () => {
  await using home = await tempDir();
  await using project = await tempDir();
  assert.equal(signerPolicy(home.path, project.path), null);

  await Deno.mkdir(join(project.path, ".agents"));
  await Deno.writeTextFile(join(project.path, ".agents", "allowed_signers"), "");
  assert.deepEqual(signerPolicy(home.path, project.path), {
    files: [join(project.path, ".agents", "allowed_signers")],
  });
  assert.equal(signerPolicy(home.path), null, "a project's file applies to its own skills only");

  await Deno.writeTextFile(join(home.path, "allowed_signers"), "");
  assert.deepEqual(signerPolicy(home.path, project.path)?.files, [
    join(home.path, "allowed_signers"),
    join(project.path, ".agents", "allowed_signers"),
  ]);
});

Deno.test("signerPolicy: an allowed_signers that is no file (a folder, a link) is refused, not skipped", async () => {
  await using home = await tempDir();
  await Deno.mkdir(join(home.path, "allowed_signers"));
  assert.throws(
    () => signerPolicy(home.path),
    (e) => isSkillError(e) && e.code === "untrusted" && /not a file/.test(e.message),
  );
  await using project = await tempDir();
  await Deno.mkdir(join(project.path, ".agents"));
  await Deno.symlink("/etc/passwd", join(project.path, ".agents", "allowed_signers"));
  assert.throws(() => signerPolicy(project.path + "-none", project.path), /not a file/);
});

Deno.test("requireSigned: a signer in every file is who signed; one the project leaves out is refused", async () => {
  await using dir = await tempDir();
  const alice = await sshKeyPair(dir.path, "alice");
  const bob = await sshKeyPair(dir.path, "bob");
  const user = join(dir.path, "user_signers");
  const project = join(dir.path, "project_signers");
  await Deno.writeTextFile(user, alice.line + bob.line);
  await Deno.writeTextFile(project, alice.line);
  const policy = { files: [user, project] };

  const byAlice = { signature: await sshSign(alice.key, DATA), data: DATA };
  const byBob = { signature: await sshSign(bob.key, DATA), data: DATA };
  assert.deepEqual(await requireSigned(policy, [byBob, byAlice], "pdf"), {
    by: "alice@example.com",
    format: "ssh",
  });
  await assert.rejects(
    requireSigned(policy, [byBob], "pdf"),
    (e) =>
      isSkillError(e) && e.code === "untrusted" &&
      e.message === `Cannot install pdf: its signer is not in the allowed signers (${project})` &&
      e.hint!.includes("nothing was installed"),
  );
});

Deno.test("requireSigned: no signature is refused, saying why the ones left out did not count", async () => {
  const policy = { files: ["/nonexistent/allowed_signers"] };
  await assert.rejects(requireSigned(policy, [], "pdf"), /Cannot install pdf: it is not signed/);
  await assert.rejects(
    requireSigned(policy, [], "pdf", "its signature names another tag\u001b[2J"),
    (e) =>
      isSkillError(e) &&
      e.message.startsWith("Cannot install pdf: its signature names another tag") &&
      !e.message.includes("\u001b"),
  );
});
