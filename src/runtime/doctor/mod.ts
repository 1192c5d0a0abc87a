/**
 * runtime/doctor — what state the skills and this machine are in, gathered for a report:
 * `skills check` (doctor.ts: `examine`, its one workflow) with its checks as records
 * (checks.ts: what each looks at, when it is healthy, its `--json` fields, its `--repair`) —
 * every skill's run state, toolsets and audit (skill_states.ts), the sandbox in force
 * (sandbox_report.ts), the project's lockfile, folders, trust and links (project_report.ts),
 * the home's consistency and the tools on PATH — and `skills info` (skill_info.ts). Both
 * start a skill's toolset host to see what it offers (toolset_probe.ts).
 *
 * It only reads and, under `--repair`, lets runtime/store repair the home; the text the
 * commands print is cli/ui/doctor_ui.ts's and cli/commands/info.ts's.
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/doctor",
  mayImport: [
    "core",
    "runtime/os",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/audit",
    "runtime/exec",
    "runtime/sandbox",
    "runtime/project",
  ],
} as const;
