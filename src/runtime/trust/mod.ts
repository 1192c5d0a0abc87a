/**
 * runtime/trust — what a skill's files hash to (file_hashes.ts, with the size+mtime cache
 * that keeps verification cheap) and the gate every script and toolset passes before it
 * runs: trusted, and unchanged since it was trusted (gate.ts).
 *
 * Recording or withdrawing trust changes the registry, so it is a lifecycle operation
 * (runtime/lifecycle/trust.ts).
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/trust",
  mayImport: ["core", "runtime/os", "runtime/store", "runtime/catalog"],
} as const;
