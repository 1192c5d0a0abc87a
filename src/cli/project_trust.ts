/**
 * `skills trust` / `skills untrust` of a project skill: the approval is this user's, kept in
 * `$SKILLS_HOME/project-trust.json` and bound to the digest of the files reviewed. Trust keeps
 * the lockfile in step: when the skill's files are the locked ones but the lockfile's
 * `permissions.env` differ from what its SKILL.md asks (a hand edit), the approval is
 * recorded there too.
 */

import { describeNetPolicy, networkList, NO_NETWORK } from "../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../core/policy/workspace.ts";
import { declined, SkillError } from "../core/errors.ts";
import { type Context, warn } from "../core/io.ts";
import { diffFiles, permissionsProblem, withLockedSkill } from "../core/records/lockfile_model.ts";
import { canonicalSkillName } from "../core/manifest/names.ts";
import { loadCatalog, type SkillRecord } from "../runtime/catalog/catalog.ts";
import { inspectSkillDir } from "../runtime/catalog/loader.ts";
import { describeTracking } from "../runtime/lifecycle/update.ts";
import { describeFileDrift } from "../runtime/project/drift.ts";
import { describeFiles } from "../runtime/project/lockfile.ts";
import { beginProjectChange } from "../runtime/project/transaction.ts";
import { approvalOf, setProjectTrust } from "../runtime/project/trust.ts";
import { fileHashes } from "../runtime/trust/file_hashes.ts";
import { confirmAction, fields, listOrNone } from "./ui/lifecycle_ui.ts";
import { writeJson } from "./ui/render.ts";

/** The project skill `name` means here (it wins over a user skill of that name), if any. */
export async function projectSkillNamed(
  ctx: Context,
  home: string,
  name: string,
): Promise<SkillRecord | undefined> {
  const canonical = canonicalSkillName(name);
  const catalog = await loadCatalog(home, { cwd: ctx.cwd, env: ctx.env });
  const skill = catalog.skills.find((s) => s.canonical === canonical);
  return skill?.scope === "project" ? skill : undefined;
}

export async function trustProjectSkill(
  ctx: Context,
  home: string,
  skill: SkillRecord,
  options: { yes: boolean; json: boolean },
): Promise<number> {
  const name = skill.canonical;
  const project = skill.project!;
  const inspected = await inspectSkillDir(skill.dir);
  const errors = inspected.diagnostics.filter((d) => d.level === "error");
  if (errors.length > 0) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot trust skill '${name}': ${errors.map((e) => e.message).join("; ")}`,
      { hint: `Run \`skills validate ${skill.dir}\` for details` },
    );
  }
  const { digest } = await describeFiles(skill.dir);
  const locked = project.locked;
  const drift = locked === undefined ? [] : diffFiles(locked.files, await fileHashes(skill.dir));
  const asked = inspected.manifest?.envPatterns ?? [];
  const askedNetwork = networkList(inspected.manifest?.network);
  const relock = locked !== undefined && drift.length === 0 &&
    permissionsProblem(locked.permissions, { env: asked, network: askedNetwork }) !== undefined;
  const already = project.trustedDigest === digest && !relock;
  const result = {
    name,
    scope: "project",
    trusted: true,
    trusted_digest: digest,
    changed: !already,
  };
  if (already) {
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
      ["Env allowed", listOrNone(asked)],
      ["Network", describeNetPolicy(inspected.manifest?.network ?? NO_NETWORK)],
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
  await setProjectTrust(home, [approvalOf(skill, digest)]);
  if (relock) {
    await using tx = await beginProjectChange(project.root, home);
    await tx.commit([], (lock) => {
      const entry = lock.skills[name];
      return entry === undefined ? lock : withLockedSkill(lock, name, {
        ...entry,
        permissions: { ...entry.permissions, env: [...asked], network: askedNetwork },
      });
    });
  }
  if (options.json) writeJson(ctx, { ...result, lockfile_permissions_updated: relock });
  else {
    ctx.stdout.write(`Trusted project skill '${name}' (${digest})\n`);
    if (relock) {
      ctx.stdout.write(
        `Recorded permissions.env [${asked.join(", ")}] and permissions.network [${
          askedNetwork.join(", ")
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
  const was = skill.project?.trustedDigest !== null;
  if (was) await setProjectTrust(home, [approvalOf(skill, null)]);
  const name = skill.canonical;
  if (json) writeJson(ctx, { name, scope: "project", trusted: false, changed: was });
  else {ctx.stdout.write(
      was ? `Untrusted project skill '${name}'\n` : `'${name}' was not trusted\n`,
    );}
  return 0;
}
