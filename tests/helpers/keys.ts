/**
 * Real SSH signing keys for tests (`ssh-keygen`), and the allowed-signers line that names
 * each one `<name>@example.com`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";

/** A fresh ed25519 key `dir/name` (no passphrase) and its allowed-signers line. */
export async function keypair(dir: string, name: string): Promise<{ key: string; line: string }> {
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
