/**
 * runtime/store — `$SKILLS_HOME` on disk: where it is and its layout (home.ts), the
 * cross-process lock (lock.ts), each record on disk — the model of each in core/records, under
 * the same name — the registry's atomic persistence (registry.ts), a project's
 * `skills-lock.json` (lockfile.ts), this user's approvals of project skills and the agent links
 * `skills link` made (project_records.ts), the journal a change writes in its staging,
 * reading the two older formats too (journal.ts); staging directories of either scope (staging.ts),
 * crash recovery of either scope (recovery.ts), the consistency check and repair of
 * `skills check` (consistency.ts), and derived data kept under the SHA-256 of what it was
 * derived from (keyed_cache.ts).
 *
 * Commands never drive staging or journals themselves: runtime/lifecycle does.
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/store", mayImport: ["core", "runtime/os"] } as const;
