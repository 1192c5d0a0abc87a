/**
 * SSH signatures over DSSE envelopes (the signing wrapper in-toto attestations use): the
 * signature is `ssh-keygen -Y sign` over DSSE's pre-authentication encoding of the payload
 * type and payload, in a namespace of its own, so a signature over a skill set can never
 * stand in for one over an OCI manifest or a git commit (ssh.ts signs those). The envelope's
 * `sig` is the armored SSH signature, base64-encoded as DSSE carries every signature.
 */

import { keygen, sshSignIn } from "./ssh.ts";

/** The `-n` namespace of an attested skill set. */
const SET_NAMESPACE = "agent-skills-set";

/** DSSE v1 pre-authentication encoding: what is signed, never the payload alone. */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(
    `DSSEv1 ${new TextEncoder().encode(payloadType).length} ${payloadType} ${payload.length} `,
  );
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

/** The armored SSH signature of `data` made with the private key at `keyPath`. */
export function sshSignBytes(keyPath: string, data: Uint8Array): Promise<string> {
  return sshSignIn(SET_NAMESPACE, keyPath, data);
}

/**
 * The principal of `allowedSigners` whose key made `signature` over `data`, or why not.
 */
export async function sshVerifyBytes(
  allowedSigners: string,
  signature: string,
  data: Uint8Array,
): Promise<{ principal: string } | { refused: string; tampered?: boolean }> {
  const file = await Deno.makeTempFile({ prefix: "skills-set-sig-" });
  try {
    await Deno.writeTextFile(file, signature);
    const found = await keygen(
      ["-Y", "find-principals", "-s", file, "-f", allowedSigners, "-n", SET_NAMESPACE],
      new Uint8Array(),
    );
    const principal = found.code === 0 ? found.stdout.split("\n")[0]?.trim() : undefined;
    if (!principal) return { refused: "its signer is not in the allowed signers" };
    const verified = await keygen(
      ["-Y", "verify", "-f", allowedSigners, "-I", principal, "-n", SET_NAMESPACE, "-s", file],
      data,
    );
    if (verified.code !== 0) {
      return {
        refused: `the signature does not verify (${verified.stderr || "ssh-keygen"})`,
        tampered: true,
      };
    }
    return { principal };
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}
