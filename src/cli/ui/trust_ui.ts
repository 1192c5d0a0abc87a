/**
 * `skills trust` / `skills untrust` of a project skill, the asking and the rendering: the
 * review shown before the question, and what was recorded. The review, the approval (kept
 * in `$SKILLS_HOME/project-trust.json`, bound to the digest of the files reviewed) and the
 * lockfile kept in step are runtime/project/approvals'.
 */

import { describeNetPolicy, NO_NETWORK } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace_rules.ts";
import { type Context, warn } from "../../core/io.ts";
import { describeTracking } from "../../runtime/lifecycle/update_installed.ts";
import { describeFileDrift } from "../../runtime/project/drift.ts";
import type { TrustReview } from "../../runtime/project/approvals.ts";
import { confirmAction, fields, listOrNone } from "./lifecycle_ui.ts";
import { writeJson } from "./render.ts";

/** The terminal's approval of a project skill: its review on stderr, then the question. */
export function approveOnTerminal(
  ctx: Context,
  options: { yes: boolean },
): (review: TrustReview) => Promise<boolean> {
  return (review) => {
    const name = review.skill.canonical;
    ctx.stderr.write(reviewText(review));
    return confirmAction(ctx, `Trust project skill '${name}' with its current files?`, {
      yes: options.yes,
      action: `Cannot trust skill '${name}'`,
    });
  };
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

/** What `skills trust` of a project skill did (or found done already); the exit status. */
export function renderProjectTrust(ctx: Context, review: TrustReview, json: boolean): number {
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

/** What `skills untrust` of a project skill did: `was`, whether it had an approval. */
export function renderProjectUntrust(
  ctx: Context,
  name: string,
  was: boolean,
  json: boolean,
): number {
  if (json) writeJson(ctx, { name, scope: "project", trusted: false, changed: was });
  else {ctx.stdout.write(
      was ? `Untrusted project skill '${name}'\n` : `'${name}' was not trusted\n`,
    );}
  return 0;
}
