/**
 * `skills add`, the asking and the rendering for either scope: the asker runtime/workflows/add
 * is given (progress, notes, the chooser, each skill's summary, the question before each
 * install) and what is printed of its outcome (`--list`'s table, what was installed, already
 * installed, refused and linked, in text or `--json`).
 */

import { describeSignature } from "../../core/governance/signature_text.ts";
import { describeNetPolicy, NO_NETWORK } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace_rules.ts";
import { inert } from "../../core/terminal_text.ts";
import { revisionLabel, shortRevision } from "../../core/sources/sources.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import {
  type Candidate,
  type Fetched,
  pathArgument,
  sourceLabel,
} from "../../runtime/lifecycle/fetch_source.ts";
import type { AddAsker, AddOutcome, AddReview } from "../../runtime/workflows/add.ts";
import type { SkippedTwin } from "../../runtime/workflows/add_steps.ts";
import type { ClosureMember } from "../../runtime/workflows/dependencies.ts";
import {
  chooseFromList,
  commitLabel,
  confirmAction,
  fields,
  firstFew,
  listOrNone,
  mcpServersLine,
  progress,
  warningLines,
} from "./lifecycle_ui.ts";
import { table, writeJson } from "./render.ts";
import { auditSummary, findingJson } from "./audit_ui.ts";
import { renderLinks } from "./project_ui.ts";

/** The flags of `skills add` that change what is asked and printed. */
interface AddView {
  /** `--yes`: nothing is asked; several skills are not chosen from a list. */
  yes: boolean;
  json: boolean;
  /** `--agent` was given: `--json` reports the links. */
  agents: readonly string[];
}

/** The terminal's answers for `skills add`: everything said on stderr, stdout stays data. */
export function addAsker(ctx: Context, options: AddView): AddAsker {
  const say = progress(ctx);
  return {
    progress: say,
    note: (text) => warn(ctx, text),
    fetched: (fetched) => {
      if (fetched.commit !== null) {
        const verb = fetched.source.kind === "oci"
          ? "Pulled"
          : fetched.source.type === "web" || fetched.source.type === "npm"
          ? "Downloaded and verified"
          : "Checked out";
        say(`${verb} ${commitLabel(fetched)}`);
      }
      // Who signed what was fetched, and how it was verified (runtime/signing, sigstore).
      const signature = describeSignature(fetched.signed);
      if (signature !== null) say(`Signature: ${inert(signature)}`);
    },
    found: (fetched, candidates) =>
      debug(ctx, `found ${candidates.length} skill(s) in ${fetched.base}`),
    choose: async (candidates, source) => {
      if (!ctx.isTty || options.yes) return undefined;
      const picked = await chooseFromList(
        ctx,
        `Found ${candidates.length} skills in ${sourceLabel(source)}:`,
        candidates.map((c) => ({
          label: c.name ?? c.rel,
          detail: c.errors.length > 0 ? `(invalid: ${c.errors[0]!.message})` : c.description,
        })),
      );
      return picked.map((i) => candidates[i]!);
    },
    skippedLinks: (linked) => warn(ctx, skippedLinksLine(linked)),
    skippedTwins: (twins) => skippedTwinsLines(twins).forEach((line) => warn(ctx, line)),
    skippedFragments: (fragments) => warn(ctx, skippedFragmentsLine(fragments)),
    selected: (selected) => {
      for (const c of selected) {
        for (const line of warningLines(c.name ?? c.rel, c.dir, c.warnings)) warn(ctx, line);
      }
    },
    refused: (name, error) => warn(ctx, `Not installing '${name}': ${error.message}`),
    closure: (members) => ctx.stderr.write(closureSummary(members)),
    review: (review) => ctx.stderr.write(summary(ctx, review)),
    confirm: (review) =>
      confirmAction(ctx, question(review), {
        yes: options.yes,
        action: `Cannot install skill '${review.plan.canonical}'`,
      }),
  };
}

/**
 * The one summary of what the chosen skills require: every dependency with who requires it
 * and the version chosen, then the permissions and network grants of them all together.
 */
function closureSummary(members: readonly ClosureMember[]): string {
  const lines = [
    `\nThis also installs ${members.length} dependenc${members.length === 1 ? "y" : "ies"}:`,
  ];
  const env = new Set<string>();
  const hosts = new Set<string>();
  for (const m of members) {
    const version = m.tag ?? m.fetched.commit?.sha.slice(0, 12) ?? "its current files";
    lines.push(
      `  ${inert(m.candidate.canonical ?? m.candidate.rel)} (${inert(m.requirement)} at ${
        inert(version)
      }) required by ${m.requiredBy.map((t) => inert(t)).join(", ")}`,
    );
    for (const pattern of m.candidate.manifest?.envPatterns ?? []) env.add(pattern);
    const network = m.candidate.manifest?.network;
    if (network !== undefined) {
      const described = describeNetPolicy(network);
      if (described !== "none") hosts.add(described);
    }
  }
  lines.push(
    `  env permissions of the dependencies: ${[...env].map((t) => inert(t)).join(", ") || "none"}`,
  );
  lines.push(
    `  network of the dependencies: ${[...hosts].map((t) => inert(t)).join("; ") || "none"}`,
  );
  return lines.join("\n") + "\n";
}

function question({ scope, plan, fetched }: AddReview): string {
  const from = sourceLabel(fetched.source);
  const at = fetched.commit?.sha ?? "its current files";
  return scope === "project"
    ? `Install skill '${plan.canonical}' into the project from ${from} at ${at}?`
    : `Install untrusted skill '${plan.canonical}' from ${from} at ${at}?`;
}

/** The scripts a skill may keep running, said so a reader knows what that means. */
function servicesLine(services: readonly string[]): string {
  return `${services.join(", ")} (may keep running: skills run --background)`;
}

/** A skill's summary before the question: what it is, asks for and ships, and its audit. */
function summary(ctx: Context, review: AddReview): string {
  const { plan, fetched } = review;
  const m = plan.candidate.manifest!;
  const source = fetched.source;
  return `\nSkill '${plan.canonical}'${plan.name !== m.name ? ` (from '${inert(m.name)}')` : ""}${
    review.scope === "project" ? " (project)" : ""
  }\n` +
    fields([
      ["Description", m.description],
      ["Source", `${sourceLabel(source)}${plan.candidate.rel ? ` (${plan.candidate.rel})` : ""}`],
      [revisionLabel(source), commitLabel(fetched)],
      ["Scripts", listOrNone(plan.candidate.scripts.map((s) => s.name))],
      ["Toolsets", listOrNone(m.toolsets)],
      ["Env allowed", listOrNone(m.envPatterns)],
      ["Network", describeNetPolicy(m.network ?? NO_NETWORK)],
      ["Services", m.services?.length ? servicesLine(m.services) : null],
      ["MCP servers", m.mcpServers?.length ? mcpServersLine(m.mcpServers) : null],
      ["Writes", SCRIPT_WRITES_SUMMARY],
      ["Digest", plan.digest],
      ["Installs to", plan.target],
      ["Lockfile", review.scope === "project" ? review.lockfile : null],
    ]) + auditSummary(ctx, plan.audit) +
    (review.scope === "project" || review.plan.entry.allowed_risky === undefined
      ? ""
      : `  ${"Risk:".padEnd(12)} critical findings accepted with --allow-risky\n`);
}

/** Prints what `skills add` did; returns the exit status. */
export function renderAdded(ctx: Context, options: AddView, outcome: AddOutcome): number {
  if (outcome.kind === "list") return renderList(ctx, options, outcome.fetched, outcome.candidates);
  if (outcome.kind === "project") return renderProjectInstalled(ctx, outcome, options.json);
  return renderInstalled(ctx, options, outcome);
}

function renderList(
  ctx: Context,
  options: AddView,
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

/** The exit status of an install: 1 when something was refused (the rest still installed). */
function statusOf(outcome: Extract<AddOutcome, { refused: unknown }>): number {
  return outcome.refused.length > 0 || outcome.links.some((l) => l.status === "refused") ? 1 : 0;
}

/**
 * The outcome of an install into `$SKILLS_HOME`: what was installed, what already was (exit
 * 0 either way), what was refused (exit 1, the rest still installed).
 */
function renderInstalled(
  ctx: Context,
  options: AddView,
  outcome: Extract<AddOutcome, { kind: "user" }>,
): number {
  const { installed: plans, already, refused, links } = outcome;
  const status = statusOf(outcome);
  if (options.json) {
    writeJson(ctx, {
      already_installed: already.map((a) => ({
        canonical: a.canonical,
        commit_sha: a.entry.commit_sha,
        path: a.entry.installed_path,
      })),
      refused: refused.map((r) => ({ name: r.name, error: r.code, message: r.message })),
      ...skippedJson(outcome),
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
        audit: auditJson(p.audit),
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
  const names = [...plans.map((p) => p.canonical), ...already.map((a) => a.canonical)];
  if (names.length > 0) ctx.stderr.write(`${activationHint(names)}\n`);
  return status;
}

/** Past this many skills, the hint names `all` instead of a list no one would type. */
const NAMES_LISTED = 8;

/** How to activate what was installed: its names, or `all` when they are many. */
export function activationHint(names: readonly string[]): string {
  if (names.length <= NAMES_LISTED) return `Activate with: export AGENT_SKILLS=${names.join(",")}`;
  return `Activate with: export AGENT_SKILLS=all (every trusted skill; ${names.length} were ` +
    `installed), or name the ones you want: export AGENT_SKILLS=${names[0]},${names[1]}`;
}

/**
 * `skipped_links` and `skipped_twins` for `--json`, each present only when `--skill '*'` left
 * such folders out.
 */
function skippedJson(outcome: {
  skippedLinks: readonly { path: string; target: string }[];
  skippedTwins: readonly { path: string; kept: string; because: string }[];
  skippedFragments: readonly string[];
}) {
  return {
    ...(outcome.skippedLinks.length > 0 ? { skipped_links: outcome.skippedLinks } : {}),
    ...(outcome.skippedTwins.length > 0 ? { skipped_twins: outcome.skippedTwins } : {}),
    ...(outcome.skippedFragments.length > 0
      ? { skipped_without_front_matter: outcome.skippedFragments }
      : {}),
  };
}

/** The folders `--skill '*'` left out as documents named SKILL.md, the first few named. */
function skippedFragmentsLine(fragments: readonly Candidate[]): string {
  const shown = firstFew(fragments.map((c) => inert(c.rel)));
  return `Skipped ${fragments.length} folder(s) whose SKILL.md has no front matter, or none ` +
    `naming a name or a description, which no agent loads as a skill (${shown}); name one ` +
    `with --skill to see it refused`;
}

/** Why a kept twin stands first, as the warning says it. */
const KEPT_BECAUSE: Record<SkippedTwin["because"], string> = {
  collection: "named like one of the source's top skills/ folder, which every agent's installer " +
    "reads: a plugin's copy is packaged for that plugin's agent",
  declared: "named like one the source names as its own (its plugin manifest or skills/ folder)",
  "agent-folder": "named like one the source keeps in an agent's folder at its top (such as " +
    ".agents/skills/), found elsewhere by the search",
  shallower: "named like one found nearer the top, found only by the deeper search of a tree " +
    "with no skills/ folder, agent folder or plugin manifest",
  identical: "that are copies of one it installs, file for file and byte for byte",
};

/** The skills `--skill '*'` left out for same-named ones it installs: a line for each reason. */
function skippedTwinsLines(twins: ReadonlyMap<Candidate, SkippedTwin>): string[] {
  const byReason = Map.groupBy(twins, ([, twin]) => twin.because);
  return [...byReason].map(([because, pairs]) => {
    const shown = firstFew(
      pairs.map(([c, { kept }]) => `${inert(c.rel)} (kept ${inert(kept.rel)})`),
    );
    const [first] = pairs[0]!;
    const another = because === "identical"
      ? ""
      : `; install one too with --skill ${inert(pathArgument(first))} --name ${
        inert(pathArgument(first))
      }=NEW`;
    return `Skipped ${pairs.length} skill(s) ${KEPT_BECAUSE[because]}: ${shown}${another}`;
  });
}

/** How many folders `--skill '*'` left out as links, the first few named. */
function skippedLinksLine(linked: readonly Candidate[]): string {
  const shown = firstFew(linked.map((c) => `${inert(c.rel)} -> ${inert(c.linked ?? "?")}`));
  return `Skipped ${linked.length} folder(s) whose SKILL.md is a symlink, never followed ` +
    `(${shown}); name one with --skill to see it refused`;
}

/** The audit of an installed skill as `--json` reports it: the findings above info. */
function auditJson(audit: AddReview["plan"]["audit"]) {
  return {
    rules_version: audit.rules_version,
    counts: audit.counts,
    endpoints: audit.endpoints,
    findings: audit.findings.filter((f) => f.severity !== "info").map(findingJson),
  };
}

/** The outcome of `skills add --project`, as the install into `$SKILLS_HOME`'s. */
function renderProjectInstalled(
  ctx: Context,
  outcome: Extract<AddOutcome, { kind: "project" }>,
  json: boolean,
): number {
  const { lockfile, installed, already, refused, links } = outcome;
  const status = statusOf(outcome);
  if (json) {
    writeJson(ctx, {
      scope: "project",
      lockfile,
      ...skippedJson(outcome),
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
        audit: auditJson(p.audit),
      })),
      already_installed: already.map((a) => ({
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
  for (const a of already) {
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
