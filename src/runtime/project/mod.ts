/**
 * runtime/project — skills kept in a project (issue 17): the lockfile `skills-lock.json` at
 * the repository root, written atomically and read as untrusted input (lockfile.ts); the
 * project's own transaction (transaction.ts: staging in `<root>/.agents/.staging` on the
 * skills' filesystem, an intent journal, renames, the lockfile written last, recovery of
 * what a dead command left); planning `skills add --project` (install.ts) and `update` of
 * a locked skill (update.ts); restoring the lockfile, verified file by file (restore.ts);
 * lockfile vs disk vs trust (drift.ts); this user's approvals of project skills (trust.ts);
 * links and copies into the folders agents read, copies refreshed after an update or install
 * (links.ts); and which locked or installed skills have new files upstream (outdated.ts, through
 * lifecycle/update_planner.ts, as update.ts).
 *
 * Fetching stays the lifecycle's (a Change stages clones in `$SKILLS_HOME`); discovery of
 * project skills is the catalog's (catalog/scopes.ts). Front ends only parse, ask, render.
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
  ],
} as const;
