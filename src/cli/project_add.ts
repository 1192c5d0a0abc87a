/**
 * `skills add <source> --project`: after the fetch and selection `add` does, each selected
 * skill is planned on its own (installed / already installed / refused, as `skills add`),
 * summarised, confirmed, then committed on its own by the project transaction into
 * `<root>/.agents/skills/<name>/` with its `skills-lock.json` entry; the user who confirmed
 * trusts it (in their `$SKILLS_HOME`), and `--agent` links it for those agents.
 */

import { revisionLabel, shortRevision } from "../core/sources/sources.ts";
import { describeNetPolicy, NO_NETWORK } from "../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../core/policy/workspace.ts";
import type { AgentName } from "../core/agents.ts";
import { type Context, warn } from "../core/io.ts";
import { withLockedSkill } from "../core/records/lockfile_model.ts";
import { loadCatalog } from "../runtime/catalog/catalog.ts";
import { findProjectRoot } from "../runtime/catalog/scopes.ts";
import { type Fetched, sourceLabel } from "../runtime/lifecycle/fetch_source.ts";
import { type Candidate, riskyError } from "../runtime/lifecycle/install.ts";
import { planProjectInstall, type ProjectPlan } from "../runtime/project/install.ts";
import { type LinkOutcome, linkSkills } from "../runtime/project/links.ts";
import { lockfilePath, lockForChange, readProjectLock } from "../runtime/project/lockfile.ts";
import { beginProjectChange } from "../runtime/project/transaction.ts";
import { trustInstalled } from "../runtime/project/trust.ts";
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
  return `\nSkill '${plan.canonical}' (project)\n` + fields([
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

/** Installs the selected skills into the project; returns the exit status. */
export async function addToProject(
  ctx: Context,
  options: ProjectAddOptions,
  home: string,
  fetched: Fetched,
  selected: readonly Candidate[],
): Promise<number> {
  const { root } = findProjectRoot(ctx.cwd);
  await using tx = await beginProjectChange(root, home);
  for (const note of tx.recovered) warn(ctx, note);
  const lock = lockForChange(readProjectLock(root));
  const planning = await planProjectInstall(root, lock, fetched, selected, {
    allowRisky: options.allowRisky,
  });
  if (selected.length === 1 && planning.refused.length === 1) throw planning.refused[0]!.error;
  const refused: Refused[] = [];
  for (const r of planning.refused) refuse(ctx, refused, r.label, r.error);
  const lockfile = lockfilePath(root);
  for (const plan of planning.plans) ctx.stderr.write(summary(ctx, plan, fetched, lockfile));
  // Critical findings nobody accepted: shown above, then refused without a question.
  const safe: ProjectPlan[] = [];
  for (const plan of planning.plans) {
    const error = riskyError([plan], "install", undefined);
    if (error === undefined) safe.push(plan);
    else if (selected.length === 1) throw error;
    else refuse(ctx, refused, plan.canonical, error);
  }
  const at = fetched.commit?.sha ?? "its current files";
  const installed = await confirmAndCommitEach(ctx, safe, {
    yes: options.yes,
    question: (plan) =>
      `Install skill '${plan.canonical}' into the project from ${
        sourceLabel(fetched.source)
      } at ${at}?`,
    commit: async (plan) => {
      const staged = await tx.stageCopy(
        plan.candidate.dir,
        plan.canonical,
        Object.keys(plan.entry.files),
      );
      await tx.commit(
        [{ canonical: plan.canonical, staged }],
        (current) => withLockedSkill(current, plan.canonical, plan.entry),
      );
    },
  }, refused);
  // The user confirmed these files: they are trusted by this user, bound to their digest.
  await trustInstalled(home, root, installed.map((p) => p.canonical));
  let links: LinkOutcome[] = [];
  const names = new Set([...installed, ...planning.already].map((p) => p.canonical));
  if (options.agents.length > 0 && names.size > 0) {
    const catalog = await loadCatalog(home, { cwd: ctx.cwd, env: ctx.env });
    const skills = catalog.skills.filter((s) => s.scope === "project" && names.has(s.canonical));
    links = await linkSkills(home, ctx.env, skills, options.agents, { kind: "project", root }, {
      copy: false,
    });
  }
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
