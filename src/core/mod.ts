/**
 * core — pure logic, no `Deno.*` (the OS is a parameter): manifests and front matter,
 * names, sources, activation, the environment policy, PEP 723 metadata, path rules,
 * registry records, the project lockfile, project trust and link records, where agents read
 * skills and how much of a skills listing they show, digests, change summaries, envelopes
 * and errors, and the narrow command context (io.ts). Everything here can be tested without touching the machine.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "core", mayImport: ["generated"] } as const;
