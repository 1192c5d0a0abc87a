/**
 * runtime/signing — who signed a skill, and whether the signer policy accepts them. SSH
 * signatures (`ssh-keygen -Y sign/verify`, the format git signs commits with) over an OCI
 * manifest digest (ssh.ts); the allowed-signers policy — `$SKILLS_HOME/allowed_signers` for
 * every install, and a project's committed `.agents/allowed_signers` in addition for its
 * skills (signer_policy.ts); git commits and tags checked with `git verify-commit`/`verify-tag`
 * against the same files, never the repository's own configuration (git_signature.ts); DSSE
 * envelopes (an attested skill set) signed and checked with SSH in a namespace of their own
 * (dsse_ssh.ts).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/signing",
  mayImport: ["core", "runtime/os", "runtime/git"],
} as const;
