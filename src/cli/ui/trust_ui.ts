/**
 * `skills trust` / `skills untrust` of a skill of either scope, the asking and the rendering:
 * the review shown before the question, and what was recorded. The workflows are
 * `workflows/trust.ts` and `workflows/untrust.ts`; a project skill's review, approval (kept in
 * `$SKILLS_HOME/project-trust.json`, bound to the digest of the files reviewed) and the
 * lockfile kept in step are runtime/project/approvals'.
 */

import { describeNetPolicy, NO_NETWORK } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace_rules.ts";
import { type Context, warn } from "../../core/io.ts";
import { describeTracking } from "../../runtime/lifecycle/update_installed.ts";
import { describeFileDrift } from "../../runtime/project/drift.ts";
import type { TrustReview } from "../../runtime/project/approvals.ts";
import type { UntrustOutcome } from "../../runtime/workflows/untrust.ts";
import type {
  InstalledReview,
  TrustOutcome,
  TrustQuestion,
} from "../../runtime/workflows/trust.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import { confirmAction, fields, listOrNone } from "./lifecycle_ui.ts";
import { writeJson } from "./render.ts";

/**
 * The terminal's approval of a skill of either scope: its review on stderr, then the
 * question (`--yes` answers it; off a terminal it is refused).
 */
export function approveOnTerminal(
  ctx: Context,
  options: { yes: boolean },
): (question: TrustQuestion) => Promise<boolean> {
  return (question) => {
    const name = question.scope === "project" ? question.review.skill.canonical : question.entry
      .name_canonical;
    const which = question.scope === "project" ? "project skill" : "skill";
    ctx.stderr.write(
      question.scope === "project" ? reviewText(question.review) : installedReviewText(question),
    );
    return confirmAction(ctx, `Trust ${which} '${name}' with its current files?`, {
      yes: options.yes,
      action: `Cannot trust skill '${name}'`,
    });
  };
}

/** Where an installed skill's trust stands against the digest of its files now. */
function trustState(entry: RegistryEntry, digest: string): string {
  if (!entry.trusted || entry.trusted_digest === null) return "not trusted";
  return entry.trusted_digest === digest
    ? "trusted (files match)"
    : "trusted, but the files changed since";
}

/** An installed skill as `skills trust` shows it before the question. */
function installedReviewText({ entry, inspected, digest }: InstalledReview): string {
  const m = inspected.manifest;
  return `\nSkill '${entry.name_canonical}'\n` + fields([
    ["Description", m?.description],
    ["Source", `${entry.source.url}${entry.source.subpath ? ` (${entry.source.subpath})` : ""}`],
    ["Commit", entry.commit_sha],
    ["Tracking", describeTracking(entry)],
    ["Scripts", listOrNone(inspected.record?.scripts.map((s) => s.name) ?? [])],
    ["Toolsets", listOrNone(m?.toolsets ?? [])],
    ["Env allowed", listOrNone(m?.envPatterns ?? [])],
    ["Network", describeNetPolicy(m?.network ?? NO_NETWORK)],
    [
      "Services",
      m?.services?.length
        ? `${m.services.join(", ")} (may keep running: skills run --background)`
        : "none",
    ],
    ["Writes", SCRIPT_WRITES_SUMMARY],
    ["State", trustState(entry, digest)],
    ["Digest", digest],
  ]);
}

function reviewText(review: TrustReview): string {
  const { skill, digest, locked, drift, inspected } = review;
  const project = skill.project!;
  const lockState = locked === undefined
    ? "not in skills-lock.json"
    : drift.length === 0
    ? "files match skills-lock.json"
    : `files differ from skills-lock.json (${describeFileDrift(drift)})`;
  const m = inspected.manifest;
  return `\nSkill '${skill.canonical}' (project, ${project.rel})\n` + fields([
    ["Description", m?.description],
    [
      "Source",
      locked
        ? `${locked.source.url}${locked.source.subpath ? ` (${locked.source.subpath})` : ""}`
        : "the project itself",
    ],
    ["Commit", locked?.commit ?? null],
    ["Tracking", locked ? describeTracking(locked) : null],
    ["Lockfile", lockState],
    ["Scripts", listOrNone(inspected.record?.scripts.map((s) => s.name) ?? [])],
    ["Toolsets", listOrNone(m?.toolsets ?? [])],
    ["Env allowed", listOrNone(review.env)],
    ["Network", describeNetPolicy(m?.network ?? NO_NETWORK)],
    ["Writes", SCRIPT_WRITES_SUMMARY],
    [
      "State",
      project.trustedDigest === null ? "not trusted" : "trusted, but the files changed since",
    ],
    ["Digest", digest],
  ]);
}

/** What `skills trust` did (or found done already), in either scope; the exit status. */
export function renderTrust(ctx: Context, outcome: TrustOutcome, json: boolean): number {
  if (outcome.scope === "project") return renderProjectTrust(ctx, outcome.review, json);
  if (outcome.scope === "bundled") {
    if (json) writeJson(ctx, { name: outcome.name, trusted: true, bundled: true });
    else ctx.stdout.write(`'${outcome.name}' is bundled and always trusted\n`);
    return 0;
  }
  const { name, digest, entry, changed } = outcome;
  if (json) {
    writeJson(ctx, { name, trusted: entry.trusted, trusted_digest: entry.trusted_digest, changed });
  } else if (changed) ctx.stdout.write(`Trusted '${name}' (${digest})\n`);
  else ctx.stdout.write(`'${name}' is already trusted (${digest})\n`);
  return 0;
}

/** What `skills trust` of a project skill did (or found done already); the exit status. */
function renderProjectTrust(ctx: Context, review: TrustReview, json: boolean): number {
  const { digest, locked, drift, relock } = review;
  const name = review.skill.canonical;
  const result = {
    name,
    scope: "project",
    trusted: true,
    trusted_digest: digest,
    changed: !review.already,
  };
  if (review.already) {
    if (json) writeJson(ctx, result);
    else ctx.stdout.write(`'${name}' is already trusted (${digest})\n`);
    return 0;
  }
  if (json) writeJson(ctx, { ...result, lockfile_permissions_updated: relock });
  else {
    ctx.stdout.write(`Trusted project skill '${name}' (${digest})\n`);
    if (relock) {
      ctx.stdout.write(
        `Recorded permissions.env [${review.env.join(", ")}] and permissions.network [${
          review.network.join(", ")
        }] in skills-lock.json\n`,
      );
    }
  }
  if (locked !== undefined && drift.length > 0) {
    warn(
      ctx,
      `'${name}' differs from skills-lock.json; \`skills install --frozen\` will fail until the lock and the files agree`,
    );
  }
  return 0;
}

/** What `skills untrust` did, in either scope (a project skill's JSON names its scope). */
export function renderUntrust(ctx: Context, outcome: UntrustOutcome, json: boolean): number {
  const { name, changed } = outcome;
  const project = outcome.scope === "project";
  if (json) {
    writeJson(ctx, { name, ...(project ? { scope: "project" } : {}), trusted: false, changed });
  } else if (!changed) ctx.stdout.write(`'${name}' was not trusted\n`);
  else ctx.stdout.write(project ? `Untrusted project skill '${name}'\n` : `Untrusted '${name}'\n`);
  return 0;
}
