/**
 * `skills trust` / `skills untrust` of a project skill, the asking and the rendering: the
 * review, the approval (kept in `$SKILLS_HOME/project-trust.json`, bound to the digest of
 * the files reviewed) and the lockfile kept in step are runtime/project/approvals'.
 */

import { describeNetPolicy, NO_NETWORK } from "../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../core/policy/workspace.ts";
import { declined } from "../core/errors.ts";
import { type Context, warn } from "../core/io.ts";
import type { SkillRecord } from "../runtime/catalog/catalog.ts";
import { describeTracking } from "../runtime/lifecycle/update_installed.ts";
import { describeFileDrift } from "../runtime/project/drift.ts";
import {
  projectSkillNamed as findProjectSkill,
  recordProjectTrust,
  reviewProjectTrust,
  withdrawProjectTrust,
} from "../runtime/project/approvals.ts";
import { confirmAction, fields, listOrNone } from "./ui/lifecycle_ui.ts";
import { writeJson } from "./ui/render.ts";

/** The project skill `name` means here (it wins over a user skill of that name), if any. */
export function projectSkillNamed(
  ctx: Context,
  home: string,
  name: string,
): Promise<SkillRecord | undefined> {
  return findProjectSkill(home, ctx.cwd, ctx.env, name);
}

// long because: the trust prompt's steps in order: inspect, drift, ask, record; each reads the one before.
export async function trustProjectSkill(
  ctx: Context,
  home: string,
  skill: SkillRecord,
  options: { yes: boolean; json: boolean },
): Promise<number> {
  const name = skill.canonical;
  const project = skill.project!;
  const review = await reviewProjectTrust(skill);
  const { digest, locked, drift, relock, inspected } = review;
  const result = {
    name,
    scope: "project",
    trusted: true,
    trusted_digest: digest,
    changed: !review.already,
  };
  if (review.already) {
    if (options.json) writeJson(ctx, result);
    else ctx.stdout.write(`'${name}' is already trusted (${digest})\n`);
    return 0;
  }
  const lockState = locked === undefined
    ? "not in skills-lock.json"
    : drift.length === 0
    ? "files match skills-lock.json"
    : `files differ from skills-lock.json (${describeFileDrift(drift)})`;
  const m = inspected.manifest;
  ctx.stderr.write(
    `\nSkill '${name}' (project, ${project.rel})\n` + fields([
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
    ]),
  );
  const ok = await confirmAction(ctx, `Trust project skill '${name}' with its current files?`, {
    yes: options.yes,
    action: `Cannot trust skill '${name}'`,
  });
  if (!ok) throw declined(`Skill '${name}' was not trusted`);
  await recordProjectTrust(home, review);
  if (options.json) writeJson(ctx, { ...result, lockfile_permissions_updated: relock });
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

export async function untrustProjectSkill(
  ctx: Context,
  home: string,
  skill: SkillRecord,
  json: boolean,
): Promise<number> {
  const was = await withdrawProjectTrust(home, skill);
  const name = skill.canonical;
  if (json) writeJson(ctx, { name, scope: "project", trusted: false, changed: was });
  else {ctx.stdout.write(
      was ? `Untrusted project skill '${name}'\n` : `'${name}' was not trusted\n`,
    );}
  return 0;
}
