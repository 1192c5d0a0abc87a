/**
 * The doctor's look at every skill: does it load, are its files still the ones trusted, do
 * its toolsets import, and does its audit under today's rules find anything critical the
 * user did not accept. Each skill becomes one row with its status, the reason and the fix.
 */

import type { Context } from "../../core/io.ts";
import type { LoadedSkill } from "../catalog/catalog.ts";
import type { Session } from "../catalog/catalog_session.ts";
import { type RunState, runStates } from "../trust/gate.ts";
import { toolsetProblems } from "./toolset_probe.ts";

/** A skill that was never trusted is `ok` here (its `trusted` field says so). */
type SkillStatus = "ok" | "modified" | "toolset_error" | "risky" | "error";

/** An installed skill's audit under the current rules (redone when the rules changed). */
interface AuditState {
  rules_version: string;
  /** Audited again now: no kept audit, or one made by other rules or for other files. */
  refreshed: boolean;
  /** `rule file:line` of every critical finding. */
  critical: string[];
  /** Those not accepted with --allow-risky when the skill was installed or updated. */
  unaccepted: string[];
}

/** One skill as the doctor reports it (the `--json` report's `skills` rows). */
export interface SkillRow {
  name: string;
  status: SkillStatus;
  active: boolean;
  trusted: boolean;
  source: string;
  scope: string;
  scripts: number;
  toolsets: number;
  commit_sha: string | null;
  reason: string | null;
  fix: string | null;
  audit: AuditState | null;
}

/** The skills check's result: the rows by name, and the audits behind them. */
export interface SkillsResult {
  skills: SkillRow[];
  audits: Map<string, AuditState>;
}

function skillStatus(
  state: RunState | undefined,
  toolsetError: string | undefined,
  audit?: AuditState,
): SkillStatus {
  if (state?.state === "modified") return "modified";
  if (toolsetError !== undefined) return "toolset_error";
  return audit !== undefined && audit.unaccepted.length > 0 ? "risky" : "ok";
}

async function auditStates(
  skills: readonly LoadedSkill[],
  home: string,
): Promise<Map<string, AuditState>> {
  const states = new Map<string, AuditState>();
  const installed = skills.filter((s) => s.origin !== "core" && s.entry !== undefined);
  if (installed.length === 0) return states;
  const { installedAudit } = await import("../audit/installed_audit.ts");
  const { criticalFindings, findingLabel } = await import("../../core/audit/file_findings.ts");
  for (const skill of installed) {
    // A skill that cannot be read now is reported by the load and consistency checks.
    const audited = await installedAudit(home, skill.entry!).catch(() => undefined);
    if (audited === undefined) continue;
    const { report, refreshed } = audited;
    const critical = criticalFindings(report).map(findingLabel);
    const accepted = new Set(skill.entry!.allowed_risky?.findings ?? []);
    states.set(skill.canonical, {
      rules_version: report.rules_version,
      refreshed,
      critical,
      unaccepted: critical.filter((c) => !accepted.has(c)),
    });
  }
  return states;
}

function problemOf(state: RunState | undefined, toolsetError: string | undefined): string | null {
  if (state?.state === "modified") return state.reason;
  return toolsetError ?? null;
}

function riskOf(audit: AuditState | undefined): string | null {
  if (audit === undefined || audit.unaccepted.length === 0) return null;
  const n = audit.unaccepted.length;
  return `audit: ${n} critical finding${n === 1 ? "" : "s"} (${audit.unaccepted.join(", ")})`;
}

function fixOf(state: RunState | undefined, toolsetError: string | undefined): string | null {
  if (state?.state === "modified") return state.fix;
  return toolsetError === undefined ? null : "fix the toolset's import error (see the reason)";
}

/** Every skill of the catalog (and every one that failed to load), by name. */
export async function skillsCheck(ctx: Context, session: Session): Promise<SkillsResult> {
  const { catalog, active, home } = session;
  const states = await runStates(catalog.skills, home);
  const toolsetErrors = await toolsetProblems(catalog.skills, states, home, ctx.env);
  const audits = await auditStates(catalog.skills, home);
  const skills: SkillRow[] = [
    ...catalog.skills.map((s) => ({
      name: s.canonical,
      status: skillStatus(
        states.get(s.canonical),
        toolsetErrors.get(s.canonical),
        audits.get(s.canonical),
      ),
      active: active.has(s.canonical),
      trusted: s.trusted,
      source: s.origin,
      scope: s.scope,
      scripts: s.scripts.length,
      toolsets: s.manifest.toolsets.length,
      commit_sha: s.entry?.commit_sha ?? s.project?.locked?.commit ?? null,
      reason: problemOf(states.get(s.canonical), toolsetErrors.get(s.canonical)) ??
        riskOf(audits.get(s.canonical)),
      fix: fixOf(states.get(s.canonical), toolsetErrors.get(s.canonical)) ??
        (audits.get(s.canonical)?.unaccepted.length
          ? `review it (skills audit ${s.canonical}); remove it, or update it to a clean version`
          : null),
      audit: audits.get(s.canonical) ?? null,
    })),
    ...catalog.failures.map((f) => ({
      name: f.canonical,
      status: "error" as const,
      active: active.has(f.canonical),
      trusted: f.trusted,
      source: f.origin,
      scope: f.scope,
      scripts: 0,
      toolsets: 0,
      commit_sha: f.entry?.commit_sha ?? null,
      reason: f.reason as string | null,
      fix: null as string | null,
      audit: null as AuditState | null,
    })),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { skills, audits };
}
