/** `skills add <source>`: clone or copy, discover, validate, summarise, confirm, install. */

import { describeNetPolicy, NO_NETWORK } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace.ts";
import { inert } from "../../core/terminal_text.ts";
import { UsageError } from "../../core/errors.ts";
import {
  parseSkillSelector,
  type RefFlags,
  revisionLabel,
  shortRevision,
} from "../../core/sources/sources.ts";
import { canonicalSkillName } from "../../core/manifest/names.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { resolveRequest } from "../../runtime/lifecycle/resolve_source.ts";
import {
  type Candidate,
  type Fetched,
  inspectCandidates,
  selectCandidates,
  sourceLabel,
} from "../../runtime/lifecycle/fetch_source.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange, scopeOf } from "../../runtime/lifecycle/change.ts";
import type { AlreadyInstalled, InstallPlan } from "../../runtime/lifecycle/install_plan.ts";
import { saveAuditRecord } from "../../runtime/audit/record.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { addSpec } from "../specs/add.ts";
import {
  chooseFromList,
  commitLabel,
  confirmAndCommitEach,
  fields,
  listOrNone,
  progress,
  refuse,
  type Refused,
  warningLines,
} from "../ui/lifecycle_ui.ts";
import { table, writeJson } from "../ui/render.ts";
import { auditSummary, findingJson } from "../ui/audit_ui.ts";
import { parseAgentName } from "../../core/agents.ts";
import { linkAdded, type LinkOutcome } from "../../runtime/project/links.ts";
import { addToProject } from "../project_add.ts";
import { renderLinks } from "../ui/project_ui.ts";

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  addSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const empty = {
      source: "",
      refs: {},
      skills: [],
      name: undefined,
      renames: new Map<string, string>(),
      list: false,
      yes: false,
      allowRisky: false,
      project: false,
      agents: [],
    };
    if (flags.help) return { ...flags, ...empty };
    const source = requireOne("add", positionals, "source");
    const skills = (values.skill ?? []).map(parseSkillSelector);
    const { name, renames } = parseNames(values.name ?? [], skills);
    const renaming = name !== undefined || renames.size > 0;
    if (values.list && (renaming || values.yes)) {
      throw new UsageError("--list installs nothing; it takes no --name or --yes");
    }
    const refs: RefFlags = { ref: values.ref, branch: values.branch, tag: values.tag };
    const agents = [
      ...new Set((values.agent ?? []).flatMap((a) => a.split(",")).map(parseAgentName)),
    ];
    if (values.list && agents.length > 0) {
      throw new UsageError("--list installs nothing; it takes no --agent");
    }
    return {
      ...flags,
      source,
      refs,
      skills,
      /** `--name NEW`: the one skill installed under another name. */
      name,
      /** `--name OLD=NEW` (repeatable): the skill published as OLD installed as NEW. */
      renames,
      list: values.list === true,
      yes: values.yes === true,
      allowRisky: values["allow-risky"] === true,
      /** `--project`: into `<repo>/.agents/skills`, recorded in skills-lock.json. */
      project: values.project === true,
      /** `--agent`: link what was installed for these agents. */
      agents,
    };
  },
);

type AddOptions = OptionsOf<typeof parse>;

/**
 * `--name NEW` (one skill) or `--name OLD=NEW` (repeatable, any skill of a bulk install);
 * every NEW must be a valid name. The two forms do not mix.
 */
function parseNames(
  values: readonly string[],
  skills: readonly string[],
): { name: string | undefined; renames: Map<string, string> } {
  const renames = new Map<string, string>();
  const plain: string[] = [];
  for (const value of values) {
    const eq = value.indexOf("=");
    const next = eq === -1 ? value : value.slice(eq + 1);
    try {
      canonicalSkillName(next);
    } catch (error) {
      throw new UsageError(`Invalid --name: ${(error as Error).message}`);
    }
    if (eq === -1) plain.push(value);
    else {
      const old = value.slice(0, eq);
      if (old === "") throw new UsageError(`Invalid --name '${value}': OLD=NEW needs the OLD name`);
      if (renames.has(old)) throw new UsageError(`--name renames '${old}' twice`);
      renames.set(old, next);
    }
  }
  if (plain.length > 0 && (plain.length > 1 || renames.size > 0)) {
    throw new UsageError(
      "--name NEW renames a single skill; to rename several, give --name OLD=NEW for each",
    );
  }
  const name = plain[0];
  if (name !== undefined && (skills.includes("*") || skills.length > 1)) {
    throw new UsageError(
      "--name renames a single skill; it cannot be combined with several --skill",
      "Rename skills of a bulk install with --name OLD=NEW (repeatable)",
    );
  }
  return { name, renames };
}

// long because: the add workflow in order (resolve, fetch, select, plan, commit, report) in one change.
export async function run(options: AddOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const { source, request, selectors } = await resolveRequest(
    options.source,
    options.refs,
    options.skills,
    { cwd: ctx.cwd, env: ctx.env, home },
  );
  const say = progress(ctx);
  // Staging, crash recovery and Ctrl-C rollback are the change's; --list only previews.
  // One change of the scope the skills go to: `--project` installs into the project seen
  // from here (its signer policy applies too), else into $SKILLS_HOME.
  await using change = await beginChange(scopeOf(home, ctx.cwd, options.project), {
    env: ctx.env,
    signal: ctx.signal,
    progress: say,
    preview: options.list,
  });
  for (const note of change.recovered) warn(ctx, note);
  const fetched = await change.fetch(source, request);
  if (fetched.commit) {
    say(`${source.kind === "oci" ? "Pulled" : "Checked out"} ${commitLabel(fetched)}`);
  }
  const candidates = await inspectCandidates(fetched);
  debug(ctx, `found ${candidates.length} skill(s) in ${fetched.base}`);
  if (options.list) return renderList(ctx, options, fetched, candidates);

  let selected: Candidate[];
  if (selectors.length === 0 && candidates.length > 1 && ctx.isTty && !options.yes) {
    const picked = await chooseFromList(
      ctx,
      `Found ${candidates.length} skills in ${sourceLabel(source)}:`,
      candidates.map((c) => ({
        label: c.name ?? c.rel,
        detail: c.errors.length > 0 ? `(invalid: ${c.errors[0]!.message})` : c.description,
      })),
    );
    selected = picked.map((i) => candidates[i]!);
  } else {
    selected = selectCandidates(candidates, selectors, sourceLabel(source));
  }
  for (const c of selected) {
    for (const line of warningLines(c.name ?? c.rel, c.dir, c.warnings)) warn(ctx, line);
  }
  if (change.inProject()) return await addToProject(ctx, options, change, fetched, selected);
  if (!change.inUser()) throw new Error("unreachable: a change is of one of the two scopes");
  const planning = await change.planEach(fetched, selected, {
    rename: options.name,
    renames: options.renames,
    allowRisky: options.allowRisky,
  });
  // One skill asked for and refused: the error is the answer, as it always was.
  if (selected.length === 1 && planning.refused.length === 1) throw planning.refused[0]!.error;
  const { already } = planning;
  const refused: Refused[] = [];
  for (const r of planning.refused) refuse(ctx, refused, r.label, r.error);
  for (const plan of planning.plans) ctx.stderr.write(summary(ctx, plan, fetched));
  // Critical findings refuse a skill after its summary showed them and before any question:
  // the only one asked for is refused with the error; in a bulk selection, that skill alone.
  const { safe: plans, risky } = change.setRiskyApart(planning.plans);
  for (const { plan, error } of risky) {
    if (selected.length === 1) throw error;
    refuse(ctx, refused, plan.canonical, error);
  }
  // One commit for every accepted skill; only if it fails, each on its own, so that one
  // that fails does not take the others with it.
  const at = fetched.commit?.sha ?? "its current files";
  const commit = async (batch: readonly InstallPlan[]) => {
    for (const note of await change.commitInstall(batch)) warn(ctx, note);
    for (const plan of batch) await saveAuditRecord(home, plan.canonical, plan.digest, plan.audit);
  };
  const installed = await confirmAndCommitEach(ctx, plans, {
    yes: options.yes,
    question: (plan) =>
      `Install untrusted skill '${plan.canonical}' from ${sourceLabel(source)} at ${at}?`,
    commit: (plan) => commit([plan]),
    commitAll: commit,
  }, refused);
  // An installed skill is the user's: it is linked into the agents' user folders.
  const names = new Set([...installed, ...already].map((p) => p.canonical));
  const where = { scope: { kind: "user" } as const, cwd: ctx.cwd };
  const links = await linkAdded(home, ctx.env, where, names, options.agents);
  return renderInstalled(ctx, options, { installed, already, refused, links });
}

function summary(ctx: Context, plan: InstallPlan, fetched: Fetched): string {
  const m = plan.candidate.manifest!;
  const source = fetched.source;
  return `\nSkill '${plan.canonical}'${
    plan.name !== m.name ? ` (from '${inert(m.name)}')` : ""
  }\n` +
    fields([
      ["Description", m.description],
      ["Source", `${sourceLabel(source)}${plan.candidate.rel ? ` (${plan.candidate.rel})` : ""}`],
      [revisionLabel(source), commitLabel(fetched)],
      ["Scripts", listOrNone(plan.candidate.scripts.map((s) => s.name))],
      ["Toolsets", listOrNone(m.toolsets)],
      ["Env allowed", listOrNone(m.envPatterns)],
      ["Network", describeNetPolicy(m.network ?? NO_NETWORK)],
      ["Writes", SCRIPT_WRITES_SUMMARY],
      ["Digest", plan.digest],
      ["Installs to", plan.target],
    ]) + auditSummary(ctx, plan.audit) +
    (plan.entry.allowed_risky === undefined
      ? ""
      : `  ${"Risk:".padEnd(12)} critical findings accepted with --allow-risky\n`);
}

function renderList(
  ctx: Context,
  options: AddOptions,
  fetched: Fetched,
  candidates: readonly Candidate[],
): number {
  const skills = candidates.map((c) => ({
    name: c.name ?? null,
    canonical: c.canonical ?? null,
    path: c.rel,
    description: c.description,
    valid: c.errors.length === 0,
    errors: c.errors.map((e) => e.message),
    warnings: c.warnings.map((w) => w.message),
    scripts: c.scripts.map((s) => s.name),
    toolsets: c.manifest?.toolsets ?? [],
    permissions: { env: c.manifest?.envPatterns ?? [] },
  }));
  if (options.json) {
    writeJson(ctx, {
      source: sourceLabel(fetched.source),
      commit_sha: fetched.commit?.sha ?? null,
      branch: fetched.commit?.branch ?? null,
      tag: fetched.commit?.tag ?? null,
      skills,
    });
    return 0;
  }
  if (skills.length === 0) {
    ctx.stdout.write(`No skills found in ${sourceLabel(fetched.source)}\n`);
    return 0;
  }
  ctx.stdout.write(table(
    ["NAME", "PATH", "SCRIPTS", "DESCRIPTION"],
    skills.map((s) => [
      s.name ?? "?",
      s.path === "" ? "." : s.path,
      String(s.scripts.length),
      s.valid ? s.description : `INVALID: ${s.errors[0] ?? ""}`,
    ]),
  ));
  return 0;
}

/**
 * The outcome of an install: what was installed, what already was (exit 0 either way), what
 * was refused (exit 1, the rest still installed).
 */
function renderInstalled(
  ctx: Context,
  options: AddOptions,
  outcome: {
    installed: InstallPlan[];
    already: AlreadyInstalled[];
    refused: Refused[];
    links: LinkOutcome[];
  },
): number {
  const { installed: plans, already, refused, links } = outcome;
  const status = refused.length > 0 || links.some((l) => l.status === "refused") ? 1 : 0;
  if (options.json) {
    writeJson(ctx, {
      already_installed: already.map((a) => ({
        canonical: a.canonical,
        commit_sha: a.entry.commit_sha,
        path: a.entry.installed_path,
      })),
      refused: refused.map((r) => ({ name: r.name, error: r.code, message: r.message })),
      installed: plans.map((p) => ({
        name: p.entry.name,
        canonical: p.canonical,
        path: p.target,
        source: p.entry.source,
        commit_sha: p.entry.commit_sha,
        branch: p.entry.branch,
        tag: p.entry.tag,
        ref: p.entry.ref,
        trusted: p.entry.trusted,
        trusted_digest: p.entry.trusted_digest,
        scripts: p.candidate.scripts.map((s) => s.name),
        toolsets: p.candidate.manifest?.toolsets ?? [],
        permissions: { env: p.candidate.manifest?.envPatterns ?? [] },
        audit: {
          rules_version: p.audit.rules_version,
          counts: p.audit.counts,
          endpoints: p.audit.endpoints,
          findings: p.audit.findings.filter((f) => f.severity !== "info").map(findingJson),
        },
        allowed_risky: p.entry.allowed_risky ?? null,
      })),
      ...(options.agents.length > 0 ? { links } : {}),
    });
    return status;
  }
  for (const p of plans) {
    const at = p.entry.commit_sha ? ` at ${shortRevision(p.entry.commit_sha)}` : "";
    ctx.stdout.write(`Installed '${p.canonical}'${at} into ${p.target}\n`);
  }
  for (const a of already) {
    const at = a.entry.commit_sha ? ` at ${shortRevision(a.entry.commit_sha)}` : "";
    ctx.stdout.write(`Already installed '${a.canonical}'${at} (nothing to do)\n`);
  }
  for (const r of refused) {
    ctx.stdout.write(`Refused '${r.name}': ${r.message}\n`);
    if (r.hint) ctx.stdout.write(`  hint: ${r.hint}\n`);
  }
  for (const line of renderLinks(links)) ctx.stdout.write(`${line}\n`);
  if (refused.length > 0 && plans.length + already.length > 0) {
    ctx.stdout.write(
      `${plans.length} installed, ${already.length} already installed, ${refused.length} refused\n`,
    );
  }
  const names = [...plans.map((p) => p.canonical), ...already.map((a) => a.canonical)].join(",");
  if (names !== "") ctx.stderr.write(`Activate with: export AGENT_SKILLS=${names}\n`);
  return status;
}
