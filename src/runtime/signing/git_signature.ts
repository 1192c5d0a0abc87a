/**
 * Who signed a git commit (or the tag it was fetched by), checked with `git verify-commit`
 * and `git verify-tag` against an allowed-signers file. The settings that decide the answer —
 * `gpg.format=ssh`, `gpg.ssh.allowedSignersFile`, `gpg.ssh.program` — are given on the
 * command line, which overrides any configuration file, so a repository's own config (a
 * local repository is read in place) can neither pick the signers nor the program run.
 */

import type { Transport } from "../../core/sources/sources.ts";
import { gitConfigArgs, type GitOptions, runGit } from "../git/command.ts";

function verifyArgv(transport: Transport, allowedSigners: string, verb: string, name: string) {
  return [
    ...gitConfigArgs(transport),
    "-c",
    "gpg.format=ssh",
    "-c",
    `gpg.ssh.allowedSignersFile=${allowedSigners}`,
    "-c",
    "gpg.ssh.program=ssh-keygen",
    "-c",
    "gpg.ssh.revocationFile=",
    verb,
    "--",
    name,
  ];
}

/** `Good "git" signature for alice@example.com with ED25519 key SHA256:…` → the principal. */
function goodSigner(stderr: string): string | undefined {
  return /Good "git" signature for (.+?) with /.exec(stderr)?.[1];
}

/**
 * The principal who signed `sha` (or `tag`, when the commit was fetched by one) by the
 * allowed signers, or why not.
 */
export async function gitSigner(
  repository: string,
  transport: Transport,
  sha: string,
  tag: string | null,
  allowedSigners: string,
  options: GitOptions,
): Promise<{ principal: string } | { refused: string }> {
  const tries: [string, string][] = [["verify-commit", sha]];
  if (tag !== null) tries.push(["verify-tag", tag]);
  let reason = "its commit is not signed";
  for (const [verb, name] of tries) {
    const out = await runGit(
      verifyArgv(transport, allowedSigners, verb, name),
      transport,
      options,
      repository,
    );
    const principal = goodSigner(out.stderr);
    if (out.code === 0 && principal !== undefined) return { principal };
    if (/No principal matched|not an allowed signer|Could not verify/i.test(out.stderr)) {
      reason = "its signer is not in the allowed signers";
    } else if (/signature/i.test(out.stderr) && !/no signature/i.test(out.stderr)) {
      reason = `its signature does not verify (${out.stderr.trim().split("\n")[0]})`;
    }
  }
  return { refused: reason };
}
