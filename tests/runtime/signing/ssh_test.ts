/**
 * SSH signatures with `ssh-keygen -Y` (runtime/signing/ssh.ts and dsse_ssh.ts), with real
 * ed25519 keys: a signature verifies to the principal of the allowed-signers line with its key,
 * any other key or changed data is refused, and each namespace stands for one kind of thing —
 * a signature over a skill set is no signature over an OCI payload, and the reverse.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { sshSign, sshSignIn, sshVerify } from "../../../src/runtime/signing/ssh.ts";
import {
  preAuthEncoding,
  sshSignBytes,
  sshVerifyBytes,
} from "../../../src/runtime/signing/dsse_ssh.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/cli.ts";
import { sshKeyPair } from "../../helpers/ssh_keys.ts";

const PAYLOAD = "localhost:5000/skills/pdf:1.0.0@sha256:" + "a".repeat(64);

async function signers(dir: string, ...lines: string[]): Promise<string> {
  const file = join(dir, "allowed_signers");
  await Deno.writeTextFile(file, lines.join(""));
  return file;
}

Deno.test("sshSign/sshVerify: the listed key's principal, and a refusal for another key or other data", async () => {
  await using dir = await tempDir();
  const alice = await sshKeyPair(dir.path, "alice");
  const mallory = await sshKeyPair(dir.path, "mallory");
  const allowed = await signers(dir.path, alice.line);
  const signature = await sshSign(alice.key, PAYLOAD);
  assert.match(signature, /^-----BEGIN SSH SIGNATURE-----/);
  assert.deepEqual(await sshVerify(allowed, signature, PAYLOAD), {
    principal: "alice@example.com",
  });

  const other = await sshVerify(allowed, await sshSign(mallory.key, PAYLOAD), PAYLOAD);
  assert.deepEqual(other, { refused: "its signer is not in the allowed signers" });
  const changed = await sshVerify(allowed, signature, PAYLOAD.replace("1.0.0", "1.0.1"));
  assert.ok(
    "refused" in changed && /does not verify/.test(changed.refused),
    JSON.stringify(changed),
  );
});

Deno.test("sshVerify: a signature made for git (another namespace) is no skill signature", async () => {
  await using dir = await tempDir();
  const alice = await sshKeyPair(dir.path, "alice");
  const allowed = await signers(dir.path, alice.line);
  const forGit = await sshSignIn("git", alice.key, new TextEncoder().encode(PAYLOAD));
  const result = await sshVerify(allowed, forGit, PAYLOAD);
  assert.ok("refused" in result, "a git signature must not verify as a skill signature");
});

Deno.test("sshSignIn: a missing key is an execution_failed error naming the key", async () => {
  await using dir = await tempDir();
  const missing = join(dir.path, "no-such-key");
  await assert.rejects(
    sshSignIn("agent-skills-oci", missing, new Uint8Array([1])),
    (e) => isSkillError(e) && e.code === "execution_failed" && e.message.includes(missing),
  );
});

Deno.test("preAuthEncoding is DSSE v1's: lengths in bytes, then the payload unchanged", () => {
  const payload = new TextEncoder().encode('{"é":1}');
  const encoded = new TextDecoder().decode(
    preAuthEncoding("application/vnd.in-toto+json", payload),
  );
  assert.equal(encoded, 'DSSEv1 28 application/vnd.in-toto+json 8 {"é":1}');
});

Deno.test("sshSignBytes/sshVerifyBytes: a set signature verifies; tampered data is marked, and it never passes as an OCI one", async () => {
  await using dir = await tempDir();
  const alice = await sshKeyPair(dir.path, "alice");
  const allowed = await signers(dir.path, alice.line);
  const data = preAuthEncoding("application/vnd.in-toto+json", new TextEncoder().encode("{}"));
  const signature = await sshSignBytes(alice.key, data);
  assert.deepEqual(await sshVerifyBytes(allowed, signature, data), {
    principal: "alice@example.com",
  });

  const tampered = await sshVerifyBytes(allowed, signature, preAuthEncoding("x", data));
  assert.equal("tampered" in tampered && tampered.tampered, true);
  const asOci = await sshVerify(allowed, signature, new TextDecoder().decode(data));
  assert.ok("refused" in asOci, "a set signature must not verify as an OCI signature");
  const ociSignature = await sshSign(alice.key, new TextDecoder().decode(data));
  assert.ok("refused" in await sshVerifyBytes(allowed, ociSignature, data));
});
