/**
 * runtime/authoring — writing a new skill for its author: `skills init`'s scaffold, a SKILL.md
 * with a PEP 723 script that answers `--help` and its test, planned first so nothing is written
 * over an existing file (scaffold.ts). Not a change to installed skills, so not lifecycle's.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/authoring", mayImport: ["core", "runtime/os"] } as const;
