/**
 * What `skills update` shows: each skill's outcome (up to date, pinned, repository moved with
 * the skill unchanged, the changes and audit of a new version, updated, refused) as text and
 * as JSON, the same for installed and locked project skills.
 */

import { describeNetworkList } from "../../core/policy/net_grants.ts";
import { describeError, type SkillError } from "../../core/errors.ts";
import type { ChangeSummary } from "../../core/records/changes.ts";
import { inert } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";
import type { UpdatePlan } from "../../runtime/lifecycle/update_planner.ts";
import type { UpdateStatus } from "../../runtime/workflows/update.ts";
import { shortSha } from "./render.ts";
import { auditDeltaLines, findingJson } from "./audit_ui.ts";

/** What rendering needs of a plan, an installed skill's or a locked project skill's. */
interface PlanView {
  /** The scope whose record it is: only the registry keeps an acceptance of findings. */
  scope: "user" | "project";
  canonical: string;
  kind: "up_to_date" | "pinned" | "moved" | "update";
  entry: { source: { type: "git" | "local" | "oci" | "web" | "npm"; url: string } };
  oldSha: string | null;
  newSha: string | null;
  tracking: string;
  localChanges: boolean;
  /** The new version's changes and audit (an installed skill's record keeps acceptances). */
  staged?:
    & { changes: ChangeSummary }
    & Partial<Pick<UserStaged, "audit" | "risky" | "moved">>
    & { entry?: { allowed_risky?: unknown; [extra: string]: unknown } };
}

type UserStaged = NonNullable<UpdatePlan["staged"]>;

interface Outcome {
  name: string;
  status: UpdateStatus;
  plan: PlanView | undefined;
  error: SkillError | undefined;
}

const MARK = { added: "+", modified: "~", removed: "-" } as const;

function renderChanges(changes: ChangeSummary): string[] {
  const lines = changes.files.map((f) =>
    `  ${MARK[f.change]} ${f.path}${f.kind === "other" ? "" : `  [${f.kind}]`}`
  );
  if (changes.files.length === 0) lines.push("  (no file changes in this skill)");
  const show = (v: string[]) => (v.length === 0 ? "none" : v.join(", "));
  if (changes.network) {
    lines.push(
      `  ! permissions.network: ${describeNetworkList(changes.network.before)} → ${
        describeNetworkList(changes.network.after)
      }`,
    );
  }
  if (changes.permissions) {
    lines.push(
      `  ! permissions.env: ${show(changes.permissions.before)} → ${
        show(changes.permissions.after)
      }`,
    );
  }
  const flagged = Object.entries(changes.flags).filter(([, v]) => v).map(([k]) => k);
  if (flagged.length > 0) lines.push(`  review: ${flagged.join(", ")} changed`);
  return lines;
}

/**
 * Where the repository moved the skill's folder, which the update follows
 * (runtime/lifecycle/named_skills.ts).
 */
function movedLine(plan: PlanView): string[] {
  const moved = plan.staged?.moved;
  if (moved === undefined) return [];
  return [`  moved in its repository: ${inert(moved.from || ".")} → ${inert(moved.to || ".")}`];
}

/** "from <sha> to <sha>", or for a skill copied from a directory, where it is copied from. */
export function versions(plan: PlanView): string {
  if (plan.entry.source.type === "local") {
    return `from its source directory ${plan.entry.source.url}`;
  }
  return `from ${shortSha(plan.oldSha)} to ${shortSha(plan.newSha)}`;
}

/** What the new commit adds to the audit: new critical/high findings, new endpoints. */
function renderAudit(plan: PlanView, ctx: Pick<Context, "color">): string[] {
  const staged = plan.staged!;
  if (staged.audit === undefined) return [];
  const lines = auditDeltaLines(ctx, staged.audit.added);
  if (lines.length === 0) lines.push("  audit: nothing new at high or critical, no new endpoints");
  else lines.unshift("  audit: the new version adds");
  if ((staged.risky ?? []).length > 0) {
    lines.push("  ! new critical findings: refused without --allow-risky");
  } else if (staged.entry?.allowed_risky && staged.audit.added.findings.length > 0) {
    lines.push("  ! critical findings accepted with --allow-risky");
  }
  return lines;
}

export function render(
  o: Outcome,
  ctx: Pick<Context, "color">,
  force = false,
  dryRun = false,
): string {
  const plan = o.plan;
  const local = plan?.entry.source.type === "local";
  switch (o.status) {
    case "up_to_date":
      return local
        ? `${o.name}: up to date (${plan?.tracking})\n`
        : `${o.name}: up to date (${shortSha(plan?.oldSha)}, ${plan?.tracking})\n`;
    case "pinned":
      return `${o.name}: pinned to ${shortSha(plan?.oldSha)}; left alone (move it with --ref)\n`;
    case "moved":
      return `${o.name}: repository moved, skill unchanged (${shortSha(plan?.oldSha)} → ${
        shortSha(plan?.newSha)
      }, ${plan?.tracking}); files kept, ${dryRun ? "would record" : "recorded"} the new commit\n`;
    case "would_update": {
      const head = local
        ? `${o.name}: new files in ${plan?.entry.source.url}`
        : `${o.name}: ${shortSha(plan?.oldSha)} → ${shortSha(plan?.newSha)} (${plan?.tracking})`;
      const lines = [
        head,
        ...movedLine(plan!),
        ...renderChanges(plan!.staged!.changes),
        ...renderAudit(plan!, ctx),
      ];
      if (plan?.localChanges) {
        lines.push(
          force
            ? "  ! local changes will be discarded (--force)"
            : "  ! local changes would be discarded (needs --force)",
        );
      }
      return lines.join("\n") + "\n";
    }
    case "updated":
      return local
        ? `${o.name}: updated from ${plan?.entry.source.url}\n`
        : `${o.name}: updated to ${shortSha(plan?.newSha)}\n`;
    case "declined":
      return `${o.name}: not updated (declined)\n`;
    case "blocked":
    case "failed": {
      // The message can quote the repository (a folder's name, a manifest's field): inert.
      const hint = o.error?.hint ? `  hint: ${inert(o.error.hint)}\n` : "";
      return `${o.name}: ${inert(describeError(o.error))}\n${hint}`;
    }
  }
}

export function toJson(o: Outcome) {
  const plan = o.plan;
  return {
    name: o.name,
    status: o.status,
    old_sha: plan?.oldSha ?? null,
    new_sha: plan?.newSha ?? null,
    tracking: plan?.tracking ?? null,
    local_changes: plan?.localChanges ?? null,
    changes: plan?.staged?.changes ?? null,
    moved: plan?.staged?.moved ?? null,
    audit: plan?.staged?.audit
      ? {
        rules_version: plan.staged.audit.report.rules_version,
        counts: plan.staged.audit.report.counts,
        added: plan.staged.audit.added.findings.map(findingJson),
        new_endpoints: plan.staged.audit.added.endpoints,
        refused: (plan.staged.risky ?? []).length > 0,
        allowed_risky: plan.staged.entry?.allowed_risky ?? null,
      }
      : null,
    error: o.error
      ? { code: o.error.code, message: o.error.message, hint: o.error.hint ?? null }
      : null,
  };
}
