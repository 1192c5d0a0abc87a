/** What a run would change in the workspace, shown before `--review` asks (stderr). */

import { inert } from "../../core/terminal_text.ts";
import type { ApplyPlan } from "../../runtime/workspace/apply.ts";

/** One line per path (the script's names made inert): created, changed, deleted, held back. */
export function renderPlan(plan: ApplyPlan): string {
  const lines: string[] = ["The script's changes to the workspace:"];
  const list = (label: string, paths: readonly string[]) => {
    for (const rel of paths) lines.push(`  ${label.padEnd(10)} ${inert(rel)}`);
  };
  list("created", plan.created);
  list("changed", plan.changed);
  list("deleted", plan.deleted);
  for (const { rel, reason } of plan.heldBack) {
    lines.push(`  ${"held back".padEnd(10)} ${inert(rel)} (${reason}: never applied)`);
  }
  if (lines.length === 1) lines.push("  (none)");
  return `${lines.join("\n")}\n`;
}
