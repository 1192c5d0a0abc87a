/** What a run would change in the workspace, shown before `--review` asks (stderr). */

import { inert } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";
import type { ApplyPlan } from "../../runtime/workspace/apply.ts";

/** One line per path (the script's names made inert): created, changed, deleted, held back. */
function renderPlan(plan: ApplyPlan): string {
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

/**
 * `run --review`, `chat --review`: the diff a run left, shown on stderr, and the question
 * whether to apply it (anything but y/yes, or no answer, is no: nothing is written).
 */
export async function askToApply(
  ctx: Pick<Context, "stderr" | "readLine">,
  plan: ApplyPlan,
): Promise<boolean> {
  ctx.stderr.write(renderPlan(plan));
  const { confirm } = await import("./tty.ts");
  return await confirm(ctx, "Apply these changes to the workspace?");
}
