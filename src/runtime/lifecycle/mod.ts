/**
 * runtime/lifecycle — every change to the skills of either scope (core/records/scope.ts:
 * `$SKILLS_HOME`, or a project root with its lockfile), as one transaction object
 * (change.ts: `await using change = await beginChange(scope, …)`) that owns the crash-safety
 * protocol — recovery after dead commands, the staging directories, the journal, the
 * registry lock and cleanup — for install, update, restore, remove, trust and untrust. Its
 * writing steps run under the lock with the journal and write the scope's record last, the
 * registry or `skills-lock.json` (commit.ts, used by change.ts only; the lockfile on disk is
 * runtime/store/lockfile.ts; what a lock entry says of a folder and its source: lock_entries.ts). Around it: a source resolved once into its kind — local folder, local repository, remote
 * git, OCI, a website's index or file — from what the user typed or a record's URL (resolve_source.ts: the only place that
 * asks the filesystem about a source or decides a repository is on this machine), its files
 * got into staging by a switch on that kind, and the skills found in them (fetch_source.ts);
 * the two planners, each taking the scope and running the same steps for every skill, the
 * scope deciding only where the folder is and which record the commit writes (a registry
 * entry or a lock entry): installs, with the naming rules (install_plan.ts), and updates,
 * with the deciding part `skills outdated` shares — what is outdated, skill by skill and one
 * fetch per remote (update_planner.ts; the registry's side: update_installed.ts; a skill found
 * in a fetch by the name its SKILL.md declares — one its repository moved, or a peer lockfile's
 * entry without its path: named_skills.ts). Both audit
 * what they would install (runtime/audit) and refuse critical findings the user did not
 * accept with --allow-risky. Also which installed skill a name means for trust, untrust and
 * remove, and what a trust decision is about (targets.ts). Front ends (CLI commands, MCP, a
 * library) only parse, ask and render; they never touch staging or journals.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/lifecycle",
  mayImport: [
    "core",
    "generated",
    "runtime/os",
    "runtime/git",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/audit",
    "runtime/oci",
    "runtime/signing",
    "runtime/governance",
    "runtime/web",
    "runtime/npm",
    "runtime/services",
  ],
} as const;
