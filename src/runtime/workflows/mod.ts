/**
 * runtime/workflows — what a lifecycle command does, below any front end and for either scope:
 * `skills add`, `install`, `update`, `outdated`, `trust`, `untrust` and `remove`, each one
 * function taking the request (where it runs, what was asked, the scope as an option) and an
 * asker (what to show, what to confirm, which to choose), and returning what was done for the
 * front end to render. A CLI command, the MCP server or a program parses, calls the workflow
 * with its asker, and renders; it never orchestrates the two scopes itself.
 *
 * One module per command (add.ts, install.ts, update.ts with the steps of both scopes in
 * update_steps.ts, outdated.ts, trust.ts, untrust.ts, remove.ts), the request every workflow
 * is given with how a name picks its scope (request.ts), and what skills require of skills
 * (dependencies.ts: the closure `add` resolves before anything is asked, the dependencies
 * `remove` takes along when nothing else needs them, `skills why`). How `skills run` is
 * prepared, from the run plan or through the catalog of every scope, is
 * exec/run_preparation.ts. The transaction, the planners, fetching and the records are
 * runtime/lifecycle's; what only a project has (its lockfile restored, drift, this user's
 * approvals, links and copies) is runtime/project's. This folder may import both; neither
 * imports it.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/workflows",
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
    "runtime/project",
    "runtime/npm",
  ],
} as const;
