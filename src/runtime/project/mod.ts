/**
 * runtime/project — skills kept in a project (issue 17): the lockfile `skills-lock.json` at
 * the repository root, written atomically and read as untrusted input (lockfile.ts); the
 * project's own transaction (transaction.ts: staging in `<root>/.agents/.staging` on the
 * skills' filesystem, an intent journal, renames, the lockfile written last, recovery of
 * what a dead command left); `skills add --project` with the naming rules of lifecycle's
 * install.ts, `skills install` from the lockfile, and `skills remove` of both scopes
 * (install.ts); `skills update` of both scopes, one step per skill whatever its scope
 * (update.ts); restoring the lockfile, verified file by file (restore.ts); lockfile vs disk
 * vs trust (drift.ts); this user's approvals of project skills and `skills trust` of one,
 * reviewed, recorded with the lockfile kept in step (trust.ts);
 * links and copies into the folders agents read, copies refreshed after an update or install
 * (links.ts); and which locked or installed skills have new files upstream (outdated.ts, through
 * lifecycle/update_planner.ts, as update.ts).
 *
 * Fetching stays the lifecycle's (a Change stages clones in `$SKILLS_HOME`); discovery of
 * project skills is the catalog's (catalog/scopes.ts). Workflows that span both scopes live
 * here, as this folder may import lifecycle and lifecycle may not import it (ARCHITECTURE.md,
 * "One lifecycle, two scopes"). Front ends only parse, ask, render.
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
