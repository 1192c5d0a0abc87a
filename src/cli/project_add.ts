/**
 * `skills add <source> --project`, the asking and the rendering: after the fetch and
 * selection `add` does in the project's change, runtime/project/install's `ProjectInstall`
 * plans each selected skill
 * (installed / already installed / refused, as `skills add`); this shows each summary, asks,
 * and lets it commit each accepted skill into `<root>/.agents/skills/<name>/` with its
 * `skills-lock.json` entry, then settle (the user's trust, `--agent` links).
 */

import { revisionLabel, shortRevision } from "../core/sources/sources.ts";
import { describeNetPolicy, NO_NETWORK } from "../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../core/policy/workspace.ts";
import type { AgentName } from "../core/agents.ts";
import type { Context } from "../core/io.ts";
import { inert } from "../core/terminal_text.ts";
import { type Candidate, type Fetched, sourceLabel } from "../runtime/lifecycle/fetch_source.ts";
import type { ProjectPlan } from "../runtime/lifecycle/install_plan.ts";
import type { Change } from "../runtime/lifecycle/change.ts";
import type { ProjectScope } from "../core/records/scope.ts";
import { ProjectInstall } from "../runtime/project/install.ts";
import { auditSummary, findingJson } from "./ui/audit_ui.ts";
import {
  commitLabel,
  confirmAndCommitEach,
  fields,
  listOrNone,
  refuse,
  type Refused,
} from "./ui/lifecycle_ui.ts";
import { renderLinks } from "./ui/project_ui.ts";
import { writeJson } from "./ui/render.ts";

interface ProjectAddOptions {
  agents: AgentName[];
  /** `--name NEW` (one skill) and `--name OLD=NEW` (any of several), as for $SKILLS_HOME. */
  name: string | undefined;
  renames: ReadonlyMap<string, string>;
  allowRisky: boolean;
  yes: boolean;
  json: boolean;
}

function summary(
  ctx: Context,
  plan: ProjectPlan,
  fetched: Fetched,
  lockfile: string,
): string {
  const m = plan.candidate.manifest!;
  return `\nSkill '${plan.canonical}'${
    plan.name !== m.name ? ` (from '${inert(m.name)}')` : ""
  } (project)\n` + fields([
    ["Description", m.description],
    [
      "Source",
      `${sourceLabel(fetched.source)}${plan.candidate.rel ? ` (${plan.candidate.rel})` : ""}`,
    ],
    [revisionLabel(fetched.source), commitLabel(fetched)],
    ["Scripts", listOrNone(plan.candidate.scripts.map((s) => s.name))],
    ["Toolsets", listOrNone(m.toolsets)],
    ["Env allowed", listOrNone(m.envPatterns)],
    ["Network", describeNetPolicy(m.network ?? NO_NETWORK)],
    ["Writes", SCRIPT_WRITES_SUMMARY],
    ["Digest", plan.digest],
    ["Installs to", plan.target],
    ["Lockfile", lockfile],
  ]) + auditSummary(ctx, plan.audit);
}

/**
 * Installs the selected skills into the project; returns the exit status.
 * long because: one project transaction: plan, refuse, fetch, write, lock; each step reads the one before.
 */
export async function addToProject(
  ctx: Context,
  options: ProjectAddOptions,
  change: Change<ProjectScope>,
  fetched: Fetched,
  selected: readonly Candidate[],
): Promise<number> {
  const project = new ProjectInstall(change, ctx.cwd);
  const planning = await project.plan(fetched, selected, {
    rename: options.name,
    renames: options.renames,
    allowRisky: options.allowRisky,
  });
  if (selected.length === 1 && planning.refused.length === 1) throw planning.refused[0]!.error;
  const refused: Refused[] = [];
  for (const r of planning.refused) refuse(ctx, refused, r.label, r.error);
  const lockfile = project.lockfile;
  for (const plan of planning.plans) ctx.stderr.write(summary(ctx, plan, fetched, lockfile));
  // Critical findings nobody accepted: shown above, then refused without a question.
  for (const { plan, error } of planning.risky) {
    if (selected.length === 1) throw error;
    refuse(ctx, refused, plan.canonical, error);
  }
  const at = fetched.commit?.sha ?? "its current files";
  const installed = await confirmAndCommitEach(ctx, planning.safe, {
    yes: options.yes,
    question: (plan) =>
      `Install skill '${plan.canonical}' into the project from ${
        sourceLabel(fetched.source)
      } at ${at}?`,
    commit: (plan) => project.commit(plan),
  }, refused);
  const links = await project.settle(installed, planning.already, options.agents, ctx.env);
  const status = refused.length > 0 || links.some((l) => l.status === "refused") ? 1 : 0;
  if (options.json) {
    writeJson(ctx, {
      scope: "project",
      lockfile,
      installed: installed.map((p) => ({
        name: p.name,
        canonical: p.canonical,
        path: p.target,
        source: p.entry.source,
        commit_sha: p.entry.commit,
        branch: p.entry.branch,
        tag: p.entry.tag,
        ref: p.entry.ref,
        trusted: true,
        trusted_digest: p.digest,
        scripts: p.candidate.scripts.map((s) => s.name),
        toolsets: p.candidate.manifest?.toolsets ?? [],
        permissions: p.entry.permissions,
        audit: {
          rules_version: p.audit.rules_version,
          counts: p.audit.counts,
          endpoints: p.audit.endpoints,
          findings: p.audit.findings.filter((f) => f.severity !== "info").map(findingJson),
        },
      })),
      already_installed: planning.already.map((a) => ({
        canonical: a.canonical,
        commit_sha: a.entry.commit,
        path: a.target,
      })),
      refused: refused.map((r) => ({ name: r.name, error: r.code, message: r.message })),
      links,
    });
    return status;
  }
  const out: string[] = [];
  for (const p of installed) {
    const at = p.entry.commit ? ` at ${shortRevision(p.entry.commit)}` : "";
    out.push(`Installed '${p.canonical}'${at} into ${p.target} (recorded in skills-lock.json)`);
  }
  for (const a of planning.already) {
    const at = a.entry.commit ? ` at ${shortRevision(a.entry.commit)}` : "";
    out.push(`Already installed '${a.canonical}'${at} in the project (nothing to do)`);
  }
  for (const r of refused) {
    out.push(`Refused '${r.name}': ${r.message}`);
    if (r.hint) out.push(`  hint: ${r.hint}`);
  }
  out.push(...renderLinks(links));
  if (out.length > 0) ctx.stdout.write(out.join("\n") + "\n");
  if (installed.length > 0) {
    ctx.stderr.write(`Commit ${lockfile} and .agents/skills/ with your project\n`);
  }
  return status;
}
