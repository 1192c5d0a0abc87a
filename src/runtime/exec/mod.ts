/**
 * runtime/exec — running a skill's code: the launch plan by language, Python's uv and
 * PEP 723 (languages/); the OS sandbox request for it (runtime/sandbox does the isolating)
 * and, in policy mode, the spawn of a child that leads its own process group, with the kill
 * helper that ends its whole tree (spawn/); one script run with its limits (runner.ts); the service
 * that resolves and gates a script through the catalog and trust for the CLI, chat and MCP
 * (script_service.ts), then prepares, runs and reports it (prepared_run.ts); the run plan that
 * lets the next `skills run` of an unchanged skill skip the catalog and trust (run_plan.ts),
 * and which of the two prepares a `skills run` (run_preparation.ts);
 * the workspace's secret files, and in policy mode its walk before and after a run
 * (workspace_walk.ts); a sandboxed run's copy-on-write workspace from the run's side
 * (transaction.ts; runtime/workspace applies the diff); the run's receipt (receipt.ts); a
 * piped stdin handed on to the script, bounded (stdin_feed.ts);
 * typed toolsets in an out-of-process Python host (toolset_host.ts, toolset_host.py), whose
 * tool lists are kept by what decides them, so an unchanged toolset's tools are listed
 * without starting it (toolsets/); and
 * the parent watch that stops scripts outliving a killed CLI (parent_watch.ts, .py).
 * The .py files are embedded into src/generated/ by scripts/gen_bundled.ts.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/exec",
  mayImport: [
    "core",
    "generated",
    "runtime/os",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/sandbox",
    "runtime/masks",
    "runtime/governance",
    "runtime/workspace",
  ],
  // Its folders, bottom first: each imports only those before it (tests/architecture).
  folders: [
    "runtime/exec/languages",
    "runtime/exec/spawn",
    "runtime/exec/toolsets",
    "runtime/exec",
  ],
} as const;
