/**
 * runtime/project — what only a project has (issue 17), over the one lifecycle: a project's
 * changes are lifecycle's `Change` in the project's scope (staging in `<root>/.agents/.staging`,
 * the journal, the lockfile written last; runtime/store/lockfile.ts reads and writes
 * `skills-lock.json`). Here: restoring the lockfile, verified file by file (restore.ts;
 * vercel-labs' format, foreign.ts); lockfile vs disk vs trust (drift.ts); this user's
 * approvals of project skills and `skills trust` of one, reviewed, approved by the front end,
 * recorded with the lockfile kept in step (approvals.ts); links and copies into the folders
 * agents read, for either scope, copies refreshed after an update or install (links.ts).
 *
 * The commands' workflows over both scopes (add, install, update, outdated, trust, untrust,
 * remove) are runtime/workflows', which imports this folder; this folder never imports them.
 * Fetching stays the lifecycle's (a Change stages clones in `$SKILLS_HOME`); discovery of
 * project skills is the catalog's (catalog/scopes.ts).
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/project",
  mayImport: [
    "core",
    "generated",
    "runtime/os",
    "runtime/git",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/lifecycle",
    "runtime/audit",
    "runtime/oci",
    "runtime/governance",
    "runtime/services",
  ],
} as const;
