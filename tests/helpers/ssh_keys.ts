/** Real ed25519 SSH keys for signing tests (`ssh-keygen`), with their allowed_signers line. */

import assert from "node:assert/strict";
import { join } from "node:path";

/** A key pair `name` in `dir`: the private key's path and `name@example.com <public key>`. */
export async function sshKeyPair(
  dir: string,
  name: string,
): Promise<{ key: string; line: string }> {
  const key = join(dir, name);
  const out = await new Deno.Command("ssh-keygen", {
    args: ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const pub = (await Deno.readTextFile(`${key}.pub`)).split(" ").slice(0, 2).join(" ");
  return { key, line: `${name}@example.com ${pub}\n` };
}
