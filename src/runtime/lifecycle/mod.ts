/**
 * runtime/lifecycle — every change to the skills of either scope (core/records/scope.ts:
 * `$SKILLS_HOME`, or a project root with its lockfile), as one transaction object
 * (change.ts: `await using change = await beginChange(scope, …)`) that owns the crash-safety
 * protocol — recovery after dead commands, the staging directories, the journal, the
 * registry lock and cleanup — for install, update, restore, remove, trust and untrust. Its
 * writing steps run under the lock with the journal and write the scope's record last, the
 * registry or `skills-lock.json` (commit.ts, used by change.ts only; the lockfile on disk:
 * lockfile.ts). Around it: getting a source's files into staging and finding skills in them
 * (fetch_source.ts), choosing and planning an install for either scope, the scope deciding
 * only where the folder goes and which record it gets (install_plan.ts), deciding and
 * staging an update
 * (update.ts; what is outdated, skill by skill and one fetch per remote, is the planner both
 * scopes share, with the `Scope` type: update_planner.ts) — both audit what they would install (runtime/audit) and refuse critical
 * findings the user did not accept with --allow-risky — which entries a removal means
 * (remove.ts), what a trust decision is about (trust.ts), and scaffolding a new skill
 * (scaffold.ts). Front ends (CLI commands, MCP, a library) only parse, ask and render;
 * they never touch staging or journals.
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
  ],
} as const;
