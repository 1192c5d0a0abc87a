/**
 * runtime/store — `$SKILLS_HOME` on disk: where it is and its layout (home.ts), the
 * cross-process lock (lock.ts), the registry's atomic persistence (registry.ts), staging
 * directories of either scope (staging.ts), the one journal format a change writes there,
 * reading the two older ones too (journal.ts), crash recovery of either scope (recovery.ts), the
 * consistency check and repair of `skills check` (consistency.ts), and this user's approvals
 * of project skills and the agent links `skills link` made (core/records/project_records.ts).
 *
 * Commands never drive staging or journals themselves: runtime/lifecycle does.
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/store", mayImport: ["core", "runtime/os"] } as const;
