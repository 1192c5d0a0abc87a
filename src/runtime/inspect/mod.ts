/**
 * runtime/inspect — the read-only commands' looks at skills and this machine, gathered for a
 * report, each command's one workflow: `skills check` (doctor.ts, its checks as records in
 * checks.ts), `skills info` (skill_info.ts) and `skills audit` (audit_target.ts); the doctor
 * starts a skill's toolset host to see that it starts and what it offers, info reads the tool
 * list kept for it when there is one (toolset_probe.ts).
 *
 *   doctor.ts          `skills check`: `examine` opens the session, repairs when asked and
 *                      lets every check look; the checks are records (checks.ts: what each
 *                      looks at, when it is healthy, its `--json` fields, its `--repair`) —
 *                      every skill's run state, toolsets and audit (skill_states.ts), the
 *                      sandbox in force (sandbox_report.ts), the project's lockfile, folders,
 *                      trust and links (project_report.ts), the home and the tools on PATH
 *   skill_info.ts      `skills info`: one skill's record, lock entry, manifest and tools
 *   audit_target.ts    `skills audit`: a directory, an installed skill or a source (fetched
 *                      by a lifecycle preview change, removed with it), audited
 *
 * The doctor starts a skill's toolset host to see that it starts and what it offers; info
 * reads the tool list kept for the same inputs when there is one (toolset_probe.ts).
 * Nothing here changes a skill; only `--repair` has runtime/store repair the home. The text
 * the commands print is theirs (cli/ui/doctor_ui.ts, cli/commands/info.ts, cli/commands/audit.ts).
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/inspect",
  mayImport: [
    "core",
    "runtime/os",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/audit",
    "runtime/exec",
    "runtime/sandbox",
    "runtime/masks",
    "runtime/lifecycle",
    "runtime/project",
  ],
} as const;
