/**
 * runtime/governance — an organisation's policy found and read (`policy_files`: the system's
 * `/etc/skills/policy.yaml`, the user's `$SKILLS_HOME/policy.yaml`, the project's
 * `<project>/.agents/policy.yaml`; nothing parsed, and no YAML parser loaded, when none
 * exists), and what a project proves about its skills: the lockfile exported as a bill of
 * materials and the signed digest of the whole set (`attestation`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/governance",
  mayImport: [
    "core",
    "runtime/os",
    "runtime/signing",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/sigstore",
    "runtime/git",
  ],
} as const;
