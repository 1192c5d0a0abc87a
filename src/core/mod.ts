/**
 * core — pure logic, no `Deno.*` (the OS is a parameter), in subject folders (manifests
 * and front matter, sources, the policies a script runs under, records, scripts, the audit,
 * governance) over the files here that every subject uses: errors and envelopes, the names
 * of skills and scripts (names.ts), path rules, activation, where agents read skills and how
 * much of a skills listing they show, and the narrow command context (io.ts). Everything
 * here can be tested without touching the machine.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "core",
  mayImport: ["generated"],
  // Its folders, bottom first: each imports only those before it (tests/architecture).
  folders: [
    "core/scripts",
    "core",
    "core/policy",
    "core/manifest",
    "core/sources",
    "core/records",
    "core/audit/flow",
    "core/audit/literals",
    "core/audit",
    "core/governance",
  ],
} as const;
