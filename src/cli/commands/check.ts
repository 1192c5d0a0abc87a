/** `skills check`: the doctor — skill status, activation hint, tools, home consistency. */

import { missingProtections } from "../../core/policy/protections.ts";
import { type Context, debug } from "../../core/io.ts";
import {
  type ConsistencyReport,
  findUnused,
  inspectHome,
  isConsistent,
  pruneUnused,
  repairHome,
} from "../../runtime/store/consistency.ts";
import { probeTool } from "../../runtime/os/probe.ts";
import { registryPath } from "../../runtime/store/registry.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { checkSpec } from "../specs/check.ts";
import { shortSha, style, writeJson } from "../ui/render.ts";
import { openSession } from "../session.ts";
import { type RunState, runStates } from "../../runtime/trust/gate.ts";
import { bundledRootPath, type SkillRecord } from "../../runtime/catalog/catalog.ts";
import { UsageError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import type { Catalog } from "../../runtime/catalog/catalog.ts";
import { projectDrift } from "../../runtime/project/drift.ts";
import { trustedDigest, verifyLinks } from "../../runtime/project/links.ts";

export const help = renderHelp(checkSpec);

interface CheckOptions extends ParsedCommon {
  repair: boolean;
}

export function parse(argv: readonly string[]): CheckOptions {
  const { values, positionals } = parseSpec(checkSpec, argv);
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      "Run `skills check --help` for usage",
    );
  }
  return { ...commonFlags(values), repair: values.repair === true };
}

/** A skill that was never trusted is `ok` here (its `trusted` field says so). */
type SkillStatus = "ok" | "modified" | "toolset_error" | "risky" | "error";

function skillStatus(
  state: RunState | undefined,
  toolsetError: string | undefined,
  audit?: AuditState,
): SkillStatus {
  if (state?.state === "modified") return "modified";
  if (toolsetError !== undefined) return "toolset_error";
  return audit !== undefined && audit.unaccepted.length > 0 ? "risky" : "ok";
}

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

async function auditStates(
  skills: readonly SkillRecord[],
  home: string,
): Promise<Map<string, AuditState>> {
  const states = new Map<string, AuditState>();
  const installed = skills.filter((s) => s.origin !== "core" && s.entry !== undefined);
  if (installed.length === 0) return states;
  const { installedAudit } = await import("../../runtime/audit/record.ts");
  const { criticalFindings, findingLabel } = await import("../../core/audit/audit.ts");
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
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

/**
 * Starts the toolset host of every runnable skill that has toolsets and collects what
 * failed to import: a skill whose tools cannot load is not healthy, even if it lists fine.
 */
async function toolsetProblems(
  skills: readonly SkillRecord[],
  states: ReadonlyMap<string, RunState>,
  home: string,
  env: Record<string, string>,
): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  const withToolsets = skills.filter((s) =>
    s.manifest.toolsets.length > 0 && states.get(s.canonical)?.state === "ok"
  );
  if (withToolsets.length === 0) return problems;
  const { ToolsetHost } = await import("../../runtime/exec/toolset_host.ts");
  for (const skill of withToolsets) {
    try {
      const host = await ToolsetHost.start(skill, { home, env, timeoutMs: 20_000 });
      await host.close();
      const failed = host.errors.map((e) => `${e.toolset}: ${e.message}`);
      if (failed.length > 0) {
        problems.set(skill.canonical, `toolset failed to load: ${failed.join("; ")}`);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      problems.set(skill.canonical, `toolset failed to start: ${reason}`);
    }
  }
  return problems;
}

interface SandboxReport {
  mode: "bwrap" | "policy";
  setting: string;
  reason: string;
  hint?: string;
  /** False when SKILLS_SANDBOX=required cannot be met (scripts would be refused). */
  usable: boolean;
}

/** Which sandbox scripts run in, and why (runtime/sandbox/mode). */
async function sandboxReport(env: Record<string, string>, home: string): Promise<SandboxReport> {
  const { resolveSandbox } = await import("../../runtime/sandbox/mode.ts");
  let status;
  try {
    status = await resolveSandbox(env, home);
  } catch (error) {
    return { mode: "policy", setting: "invalid", reason: (error as Error).message, usable: false };
  }
  const report: SandboxReport = {
    mode: status.kind,
    setting: status.setting,
    reason: status.reason,
    usable: status.kind === "bwrap" || status.setting !== "required",
  };
  if (status.kind === "policy" && status.hint !== undefined) report.hint = status.hint;
  return report;
}

function sandboxLine(report: SandboxReport): string {
  const setting = `SKILLS_SANDBOX=${report.setting}`;
  if (report.mode === "bwrap") return `OS sandbox (${setting}): ${report.reason}`;
  if (!report.usable) return `no OS sandbox and ${setting}: scripts are refused - ${report.reason}`;
  return `policy mode (${setting}): ${report.reason}`;
}

export async function run(options: CheckOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx);
  let repaired: ConsistencyReport | null = null;
  // What this binary materialises under .cache/core; other versions' copies are clutter.
  const { parentWatchDir } = await import("../../runtime/exec/parent_watch.ts");
  const { toolsetHostPath } = await import("../../runtime/exec/toolset_host.ts");
  const { sandboxProbePath } = await import("../../runtime/sandbox/mode.ts");
  const keepCore = [
    bundledRootPath(session.home),
    parentWatchDir(session.home),
    toolsetHostPath(session.home),
    sandboxProbePath(session.home),
  ];
  let pruned: string[] = [];
  if (options.repair) {
    repaired = await repairHome(session.home);
    pruned = await pruneUnused(session.home, { keepCore });
  }
  const consistency = await inspectHome(session.home);
  const unused = await findUnused(session.home, { keepCore });
  const { catalog, active } = session;
  const python = ctx.env.SKILLS_PYTHON || "python3";
  const uv = ctx.env.SKILLS_UV || "uv";
  const tools = await Promise.all([
    probeTool("python3", python),
    probeTool("uv", uv),
    probeTool("git", "git"),
  ]);
  debug(ctx, `home ${session.home} (registry ${registryPath(session.home)})`);
  for (const t of tools) {
    debug(
      ctx,
      `${t.name}: ${t.found ? `found ${t.version ?? ""}`.trim() : t.detail ?? "not found"}`,
    );
  }
  const sandbox = await sandboxReport(ctx.env, session.home);
  debug(ctx, `sandbox: ${sandbox.mode} (${sandbox.reason})`);
  const states = await runStates(catalog.skills, session.home);
  const toolsetErrors = await toolsetProblems(catalog.skills, states, session.home, ctx.env);
  const audits = await auditStates(catalog.skills, session.home);
  const skills = [
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
  const project = await projectReport(session.home, catalog);
  const healthy = skills.every((x) => x.status === "ok") &&
    isConsistent(consistency) && project.healthy && sandbox.usable;
  const warnings = [...session.activationWarnings, ...catalog.notes];

  if (options.json) {
    writeJson(ctx, {
      version: VERSION,
      healthy,
      home: session.home,
      registry: registryPath(session.home),
      skills,
      active: [...active].sort(),
      tools,
      sandbox: {
        mode: sandbox.mode,
        setting: sandbox.setting,
        reason: sandbox.reason,
        // What this machine's mode does not enforce (docs/security.md).
        missing: missingProtections(sandbox.mode).map((p) => ({
          id: p.id,
          protection: p.label,
          instead: typeof p.policy === "string" ? p.policy : null,
        })),
      },
      consistency,
      unused,
      repaired,
      removed_unused: pruned,
      warnings,
      project: project.json,
      links: project.links,
    });
    return healthy ? 0 : 1;
  }
  const s = style(ctx.color);
  const out: string[] = [`skills ${VERSION}`, `Home: ${session.home}`, "", "Skills:"];
  for (const skill of skills) {
    const state = skill.active ? "active" : "inactive";
    if (skill.status === "error") {
      out.push(`  ${s.red("✗")} ${skill.name} (${state}) - Load failed: ${skill.reason}`);
      continue;
    }
    if (skill.status === "modified") {
      out.push(`  ${s.red("✗")} ${skill.name} (${state}) - ${skill.reason}; ${skill.fix}`);
      continue;
    }
    if (skill.status === "risky") {
      out.push(`  ${s.red("✗")} ${skill.name} (${state}) - ${skill.reason}; ${skill.fix}`);
      continue;
    }
    if (skill.status === "toolset_error") {
      out.push(`  ${s.yellow("!")} ${skill.name} (${state}) - ${skill.reason}`);
      continue;
    }
    const mark = skill.active ? s.green("✓") : "○";
    const tag = skill.source === "core"
      ? "core"
      : `${skill.scope === "project" ? "project " : ""}${shortSha(skill.commit_sha)}`;
    const trust = skill.trusted ? "" : ` ${s.yellow("(untrusted)")}`;
    const accepted = skill.audit?.critical.length
      ? ` ${s.yellow(`(${plural(skill.audit.critical.length, "critical finding")} accepted)`)}`
      : "";
    out.push(
      `  ${mark} ${skill.name} (${state}) - ${plural(skill.scripts, "script")}, ${
        plural(skill.toolsets, "toolset")
      } [${tag}]${trust}${accepted}`,
    );
  }
  const reaudited = [...audits.values()].filter((a) => a.refreshed).length;
  if (reaudited > 0) {
    out.push(
      `  ○ audited ${plural(reaudited, "installed skill")} again (audit rules ${
        [...audits.values()][0]!.rules_version
      })`,
    );
  }
  if (active.size === 0) {
    const example = skills.find((x) => x.status === "ok")?.name ?? "<name>";
    out.push("", `To enable: export AGENT_SKILLS=${example}`);
  }
  for (const w of warnings) out.push(`${s.yellow("warning")}: ${w}`);
  out.push(...project.lines(s));
  out.push("", "Tools:");
  for (const t of tools) {
    const mark = t.found ? s.green("✓") : t.name === "uv" ? "○" : s.red("✗");
    const why = t.found ? "" : ` - ${t.detail ?? "unavailable"}`;
    const note = !t.found && t.name === "uv"
      ? " (optional: needed only for scripts that declare dependencies)"
      : "";
    out.push(`  ${mark} ${t.name}${t.version ? ` ${t.version}` : ""}${why}${note}`);
  }
  out.push("", "Sandbox:");
  const sandboxMark = sandbox.mode === "bwrap"
    ? s.green("✓")
    : sandbox.usable
    ? sandbox.setting === "off" ? "○" : s.yellow("!")
    : s.red("✗");
  out.push(`  ${sandboxMark} ${sandboxLine(sandbox)}`);
  if (sandbox.hint !== undefined && sandbox.mode === "policy" && sandbox.setting !== "off") {
    out.push(`    hint: ${sandbox.hint}`);
  }
  const missing = missingProtections(sandbox.mode);
  if (missing.length > 0) {
    out.push("  Not enforced here without the OS sandbox:");
    for (const p of missing) {
      const instead = typeof p.policy === "string" ? ` (instead: ${p.policy})` : "";
      out.push(`    ${s.yellow("-")} ${p.label}${instead}`);
    }
  }
  out.push("", "Home:");
  if (repaired) {
    out.push(
      `  repaired: ${repaired.missing.length} entries without files dropped, ${repaired.orphans.length} orphans moved to .trash, ${repaired.leftovers.length} leftovers cleared, ${pruned.length} unused files removed`,
    );
  }
  if (isConsistent(consistency)) out.push(`  ${s.green("✓")} registry and skill directories agree`);
  for (const m of consistency.missing) {
    out.push(`  ${s.red("✗")} registry entry '${m}' has no files`);
  }
  for (const o of consistency.orphans) out.push(`  ${s.red("✗")} orphaned skill directory ${o}`);
  if (!isConsistent(consistency)) out.push("  Run `skills check --repair` to fix");
  if (unused.length > 0) {
    out.push(
      `  ○ ${unused.length} unused file(s) from other versions or removed skills (removed by \`skills check --repair\`)`,
    );
  }
  if (consistency.leftovers.length > 0) {
    out.push(
      `  ○ ${consistency.leftovers.length} leftover(s) from interrupted commands (cleared by the next change)`,
    );
  }
  ctx.stdout.write(out.join("\n") + "\n");
  return healthy ? 0 : 1;
}

/**
 * The project seen from here (issue 17): skills-lock.json vs the folders on disk vs this
 * user's trust, and the links `skills link` made (project and user scope), each drift with
 * its fix. Untrusted project skills are a note: that is how a fresh clone starts.
 */
async function projectReport(home: string, catalog: Catalog) {
  const project = catalog.project;
  const root = project?.root.root;
  const projectSkills = catalog.skills.filter((s) => s.scope === "project");
  const drift = project === undefined
    ? []
    : await projectDrift(project.root.root, home, project.lock, projectSkills);
  const byDir = new Map(catalog.skills.map((s) => [s.dir, s]));
  const links = await verifyLinks(home, root, (target) => {
    const skill = byDir.get(target);
    return skill === undefined ? undefined : trustedDigest(skill);
  });
  const shown = project !== undefined &&
    (project.lock.state !== "absent" || projectSkills.length > 0 || drift.length > 0);
  return {
    healthy: drift.every((d) => d.severity !== "error") && links.length === 0,
    json: shown
      ? {
        root,
        repository: project!.root.repository,
        lockfile: project!.lock.state === "absent" ? null : project!.lock.path,
        lockfile_state: project!.lock.state,
        drift: drift.map(({ name, kind, problem, fix, severity, files }) => ({
          name,
          kind,
          problem,
          fix,
          severity,
          files: files ?? [],
        })),
      }
      : null,
    links: links.map((l) => ({
      path: l.link.path,
      skill: l.link.skill,
      agent: l.link.agent,
      problem: l.problem,
      fix: l.fix,
    })),
    lines: (s: ReturnType<typeof style>): string[] => {
      const out: string[] = [];
      if (shown) {
        const lock = project!.lock;
        out.push("", `Project: ${root}`);
        out.push(
          lock.state === "absent"
            ? "  ○ no skills-lock.json (record skills with `skills add <source> --project`)"
            : lock.state === "ok"
            ? `  ${s.green("✓")} skills-lock.json records ${
              Object.keys(lock.lock.skills).length
            } skill(s)`
            : `  ${lock.state === "invalid" ? s.red("✗") : "○"} skills-lock.json`,
        );
        for (const d of drift) {
          const mark = d.severity === "error" ? s.red("✗") : "○";
          out.push(`  ${mark} ${d.name}: ${d.problem}; ${d.fix}`);
        }
      }
      if (links.length > 0) out.push("", "Links:");
      for (const l of links) out.push(`  ${s.red("✗")} ${l.link.skill}: ${l.problem}; ${l.fix}`);
      return out;
    },
  };
}
