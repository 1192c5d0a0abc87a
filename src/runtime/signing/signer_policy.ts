/**
 * The signer policy: which allowed-signers files (OpenSSH `allowed_signers` format, as git's
 * gpg.ssh.allowedSignersFile) apply to an install, and checking a signer against all of them.
 *
 * - `$SKILLS_HOME/allowed_signers` — the user's: when it exists, every install and restore
 *   (user or project scope, git or OCI) needs a signature by a signer it lists.
 * - `<project>/.agents/allowed_signers` — committed with a project: when it exists, that
 *   project's skills (`add --project`, `install`) need a signer it lists too.
 *
 * Where both apply, the signer must be in both: a cloned project can narrow the user's policy
 * but never widen it (its file comes from the repository and is hostile input).
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { inert } from "../../core/terminal_text.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { sshVerify } from "./ssh.ts";

const USER_SIGNERS_FILE = "allowed_signers";
const PROJECT_SIGNERS_FILE = ".agents/allowed_signers";

export interface SignerPolicy {
  /** Every file must accept the signer. */
  files: string[];
}

/** The policy for an install into `home` (and into the project at `projectRoot`), or null. */
export function signerPolicy(home: string, projectRoot?: string): SignerPolicy | null {
  const files = [join(home, USER_SIGNERS_FILE)];
  if (projectRoot !== undefined) files.push(join(projectRoot, ...PROJECT_SIGNERS_FILE.split("/")));
  const present = files.filter((file) => {
    const info = lstatSyncOrNull(file);
    if (info === null) return false;
    if (!info.isFile) {
      throw new SkillError("untrusted", `Cannot read the signer policy ${file}: it is not a file`, {
        hint: "Make it a regular file in the allowed_signers format (ssh-keygen(1))",
      });
    }
    return true;
  });
  return present.length === 0 ? null : { files: present };
}

/** What the lockfile and registry keep of a verified signature. */
export interface Signed {
  /** The principal of the allowed-signers line whose key made the signature. */
  by: string;
  /** `none`: unsigned, accepted with --allow-unsigned where a policy asked for a signature. */
  format: "ssh" | "sigstore" | "oms" | "gitsign" | "none";
  /** A certificate's OIDC issuer (Sigstore keyless). */
  issuer?: string;
  /** A key's fingerprint (Sigstore key-based). */
  key?: string;
  /** How an unsigned skill or a new signer was accepted (`--allow-unsigned`, …) and when. */
  accepted?: string;
  at?: string;
  /** A signer change accepted at update: who signed before. */
  previous?: string;
}

/**
 * Checks SSH signatures, each over its own `data` (what it says it signs, already checked to
 * speak for what is installed), against every file of the policy; returns who signed, or
 * throws `untrusted` naming `what` and why (`unbound`: why the signatures left out spoke for
 * something else, when none was left).
 */
export async function requireSigned(
  policy: SignerPolicy,
  signatures: readonly { signature: string; data: string }[],
  what: string,
  unbound?: string,
): Promise<Signed> {
  if (signatures.length === 0) {
    throw refusal(what, unbound ?? "it is not signed", policy);
  }
  let reason = "";
  for (const { signature, data } of signatures) {
    let by: string | undefined;
    for (const file of policy.files) {
      const result = await sshVerify(file, signature, data);
      if ("refused" in result) {
        reason = `${result.refused} (${file})`;
        by = undefined;
        break;
      }
      by ??= result.principal;
    }
    if (by !== undefined) return { by, format: "ssh" };
  }
  throw refusal(what, reason, policy);
}

export function refusal(what: string, reason: string, policy: SignerPolicy): SkillError {
  return new SkillError("untrusted", `Cannot install ${what}: ${inert(reason)}`, {
    hint: `The signer policy (${
      policy.files.join(", ")
    }) requires a signature by a listed signer; nothing was installed`,
  });
}
