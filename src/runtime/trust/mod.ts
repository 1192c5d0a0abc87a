/**
 * runtime/trust — what a skill's files hash to (file_hashes.ts: every file, bytecode
 * included, with a cache keyed by device, inode, size and ctime that keeps verification
 * cheap), the gate every script and toolset passes before it runs: trusted, and unchanged
 * since it was trusted (gate.ts), and the verified private copy code runs from
 * (verified_copy.ts: built aside and renamed into place, safe for runs that make it at once),
 * the skill loaded from the copy itself; bundled skills checked against their build-time
 * digests (snapshot.ts: `verifiedSkill`, the one boundary between trust and execution;
 * `verifiedInstructions`, the SKILL.md bytes a model may read, held to the digest without a
 * copy), and what the copy's files say kept in its stamp for the digest it was verified at
 * (copy_contents.ts), so a run parses no manifest the copy's digest already vouches for.
 *
 * Recording or withdrawing trust changes the registry, so it is a lifecycle operation
 * (runtime/lifecycle/targets.ts).
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/trust",
  mayImport: ["core", "generated", "runtime/os", "runtime/store", "runtime/catalog"],
} as const;
