/**
 * SSH signatures with `ssh-keygen -Y`: the data is the payload `runtime/oci/signature.ts`
 * writes (the artifact's registry, repository and tag with its manifest digest), the
 * namespace says what was signed, so a signature made for git (namespace `git`) or a file can
 * never stand in for one over a skill. ssh-keygen runs with an empty environment, the key and
 * the signature as files, the data on stdin; nothing is read from the working directory.
 */

import { SkillError } from "../../core/errors.ts";

/** The `-n` namespace of every signature `skills publish --sign` makes. */
const SKILL_SIGNATURE_NAMESPACE = "agent-skills-oci";

interface KeygenResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function keygen(args: string[], stdin: Uint8Array): Promise<KeygenResult> {
  let child;
  try {
    child = new Deno.Command("ssh-keygen", {
      args,
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin:/usr/local/bin", LC_ALL: "C" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new SkillError(
      "dependency_unavailable",
      `Cannot check SSH signatures: ssh-keygen could not be started (${(error as Error).message})`,
      { hint: "Install OpenSSH's ssh-keygen (8.2 or later)" },
    );
  }
  const writer = child.stdin.getWriter();
  await writer.write(stdin).catch(() => {});
  await writer.close().catch(() => {});
  const out = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Signs `data` with the private key at `keyPath`; returns the armored SSH signature. */
export function sshSign(keyPath: string, data: string): Promise<string> {
  return sshSignIn(SKILL_SIGNATURE_NAMESPACE, keyPath, new TextEncoder().encode(data));
}

/** The armored SSH signature of `data` made with the key at `keyPath` in `namespace`. */
export async function sshSignIn(
  namespace: string,
  keyPath: string,
  data: Uint8Array,
): Promise<string> {
  const out = await keygen(["-Y", "sign", "-q", "-f", keyPath, "-n", namespace], data);
  if (out.code !== 0 || !out.stdout.includes("BEGIN SSH SIGNATURE")) {
    throw new SkillError(
      "execution_failed",
      `Cannot sign with ${keyPath}: ${out.stderr || "ssh-keygen made no signature"}`,
      { hint: "Give an SSH private key without a passphrase (or load it in ssh-agent)" },
    );
  }
  return out.stdout + "\n";
}

/**
 * The principal of `allowedSigners` whose key made `signature` over `data`, or a reason it
 * is refused (no principal has that key, or the signature does not verify).
 */
export async function sshVerify(
  allowedSigners: string,
  signature: string,
  data: string,
): Promise<{ principal: string } | { refused: string }> {
  const file = await Deno.makeTempFile({ prefix: "skills-sig-" });
  try {
    await Deno.writeTextFile(file, signature);
    const found = await keygen(
      ["-Y", "find-principals", "-s", file, "-f", allowedSigners, "-n", SKILL_SIGNATURE_NAMESPACE],
      new Uint8Array(),
    );
    const principal = found.code === 0 ? found.stdout.split("\n")[0]?.trim() : undefined;
    if (!principal) return { refused: "its signer is not in the allowed signers" };
    const verified = await keygen(
      [
        "-Y",
        "verify",
        "-f",
        allowedSigners,
        "-I",
        principal,
        "-n",
        SKILL_SIGNATURE_NAMESPACE,
        "-s",
        file,
      ],
      new TextEncoder().encode(data),
    );
    if (verified.code !== 0) {
      return { refused: `the signature does not verify (${verified.stderr || "ssh-keygen"})` };
    }
    return { principal };
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}
