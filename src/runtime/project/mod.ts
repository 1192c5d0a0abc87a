/**
 * runtime/project — the workflows of skills kept in a project (issue 17), over the one
 * lifecycle: a project's changes are lifecycle's `Change` in the project's scope (staging in
 * `<root>/.agents/.staging`, the journal, the lockfile written last; lifecycle/lockfile.ts
 * reads and writes `skills-lock.json`); `skills add` of either scope, over lifecycle's one
 * install planner, asking the front end's `AddAsker` and returning what it renders (add.ts:
 * the change, the fetch, the choice, plans, refusals, commits, then trust and links);
 * `skills install` from the lockfile, and `skills remove` of both scopes
 * (install.ts); `skills update` of both scopes, one step per skill whatever its scope,
 * each planned by lifecycle's one update planner with its scope (update.ts); restoring the lockfile, verified file by file (restore.ts); lockfile vs disk
 * vs trust (drift.ts); this user's approvals of project skills and `skills trust` of one,
 * reviewed, approved by the front end, recorded with the lockfile kept in step
 * (approvals.ts);
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
    "runtime/governance",
    "runtime/npm",
    "runtime/services",
  ],
} as const;
