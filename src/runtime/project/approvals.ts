/**
 * This user's approval of project skills: recorded in `$SKILLS_HOME/project-trust.json`
 * (never in the project: a repository cannot trust itself), keyed by the project root and
 * the skill's folder, bound to the digest of the files the user approved. The gate
 * (trust/gate.ts) verifies that digest before any script or toolset runs, as it does for
 * installed skills.
 */

import { declined } from "../../core/errors.ts";
import type { SkillRecord } from "../catalog/loader.ts";
import { inspectForTrust } from "../lifecycle/targets.ts";
import { loadCatalog } from "../catalog/catalog.ts";
import type { InspectResult } from "../catalog/loader.ts";
import {
  diffFiles,
  type FileDrift,
  type LockedSkill,
  permissionsProblem,
  withLockedSkill,
} from "../../core/records/lockfile.ts";
import { networkList } from "../../core/policy/net_grants.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { beginChange } from "../lifecycle/change.ts";
import { withProjectTrust } from "../../core/records/project_records.ts";
import { removeIfExists } from "../os/fs.ts";
import { updateProjectTrust } from "../store/project_records.ts";
import { gateCachePath } from "../trust/gate.ts";
import { stopSkillServices } from "../services/control.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { describeFiles } from "../lifecycle/lock_entries.ts";
import { projectSkillDir } from "../lifecycle/lock_entries.ts";

interface Approval {
  root: string;
  /** The skill's folder relative to the root, with `/`. */
  rel: string;
  canonical: string;
  /** The digest of the files approved; null withdraws the approval. */
  digest: string | null;
  /** For the gate's cache, dropped so the next run verifies against fresh hashes. */
  dir: string;
}

/** Records (or withdraws) approvals of project skills, all in one write. */
export async function setProjectTrust(
  home: string,
  approvals: readonly Approval[],
  now = new Date(),
): Promise<void> {
  if (approvals.length === 0) return;
  await updateProjectTrust(home, (doc) => {
    for (const a of approvals) {
      const record = a.digest === null
        ? null
        : { name: a.canonical, digest: a.digest, trusted_at: now.toISOString() };
      doc = withProjectTrust(doc, a.root, a.rel, record);
    }
    return { doc, result: undefined };
  });
  for (const a of approvals) {
    await removeIfExists(
      gateCachePath({ scope: "project", dir: a.dir, canonical: a.canonical }, home),
    )
      .catch(() => {});
  }
}

/** The approval `skills trust <name>` records for a project skill of the catalog. */
function approvalOf(skill: SkillRecord, digest: string | null): Approval {
  const project = skill.project!;
  return {
    root: project.root,
    rel: project.rel,
    canonical: skill.canonical,
    digest,
    dir: skill.dir,
  };
}

/**
 * Approves the project's installed skills `names` (in `.agents/skills`) with the digest of
 * their files as they are now (the caller verified them against the lockfile).
 */
export async function trustInstalled(
  home: string,
  root: string,
  names: readonly string[],
): Promise<string[]> {
  const approvals: Approval[] = [];
  for (const name of names) {
    const dir = projectSkillDir(root, name);
    const { digest } = await describeFiles(dir);
    approvals.push({
      root,
      rel: `${PROJECT_SKILLS_DIR.join("/")}/${name}`,
      canonical: name,
      digest,
      dir,
    });
  }
  await setProjectTrust(home, approvals);
  return approvals.map((a) => a.canonical);
}

/** The project skill `name` means from `cwd` (it wins over a user skill of that name), if any. */
export async function projectSkillNamed(
  home: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
  name: string,
): Promise<SkillRecord | undefined> {
  const canonical = canonicalSkillName(name);
  const catalog = await loadCatalog(home, { cwd, env });
  const skill = catalog.skills.find((s) => s.canonical === canonical);
  return skill?.scope === "project" ? skill : undefined;
}

/** What `skills trust` of a project skill would record, read before the user is asked. */
export interface TrustReview {
  skill: SkillRecord;
  inspected: InspectResult;
  digest: string;
  locked: LockedSkill | undefined;
  /** How the files differ from the lockfile's (empty when they match or nothing is locked). */
  drift: FileDrift[];
  /** What its SKILL.md asks for now. */
  env: string[];
  network: string[];
  /**
   * The files are the locked ones but the lockfile's permissions differ from what the
   * SKILL.md asks (a hand edit): trusting records the approval there too.
   */
  relock: boolean;
  /** Trusted with these very files, and the lockfile agrees: nothing to do. */
  already: boolean;
}

/**
 * Reviews a project skill for `skills trust`: valid (else `invalid_manifest`), its digest,
 * how it stands against the lockfile. Writes nothing.
 */
async function reviewProjectTrust(skill: SkillRecord): Promise<TrustReview> {
  const name = skill.canonical;
  const project = skill.project!;
  const inspected = await inspectForTrust(name, skill.dir);
  const { digest } = await describeFiles(skill.dir);
  const locked = project.locked;
  const drift = locked === undefined ? [] : diffFiles(locked.files, await fileHashes(skill.dir));
  const env = [...(inspected.manifest?.envPatterns ?? [])];
  const network = networkList(inspected.manifest?.network);
  const relock = locked !== undefined && drift.length === 0 &&
    permissionsProblem(locked.permissions, { env, network }) !== undefined;
  const already = project.trustedDigest === digest && !relock;
  return { skill, inspected, digest, locked, drift, env, network, relock, already };
}

/**
 * Records the user's approval of a reviewed project skill (in `$SKILLS_HOME`), and, when the
 * review says so, the permissions its SKILL.md asks for in the lockfile (through the
 * project's transaction).
 */
async function recordProjectTrust(home: string, review: TrustReview): Promise<void> {
  const { skill, relock } = review;
  await setProjectTrust(home, [approvalOf(skill, review.digest)]);
  if (!relock) return;
  const name = skill.canonical;
  const scope = { kind: "project", home, root: skill.project!.root } as const;
  // Only the lockfile is written: the change fetches nothing, so it needs no environment.
  await using change = await beginChange(scope, { env: {} });
  await change.commitFolders([], (lock) => {
    const entry = lock.skills[name];
    return entry === undefined ? lock : withLockedSkill(lock, name, {
      ...entry,
      permissions: { ...entry.permissions, env: [...review.env], network: review.network },
    });
  });
}

/**
 * `skills trust` of a project skill below the CLI: reviewed, then, unless it is trusted with
 * these very files already, shown and approved by `approve` (the front end's question;
 * no is `declined`) and recorded. Returns the review.
 */
export async function trustProjectSkill(
  home: string,
  skill: SkillRecord,
  approve: (review: TrustReview) => Promise<boolean>,
): Promise<TrustReview> {
  const review = await reviewProjectTrust(skill);
  if (review.already) return review;
  if (!await approve(review)) throw declined(`Skill '${skill.canonical}' was not trusted`);
  await recordProjectTrust(home, review);
  return review;
}

/** Withdraws this user's approval of a project skill; whether it had one. */
export async function withdrawProjectTrust(
  home: string,
  skill: SkillRecord,
  env: Readonly<Record<string, string>>,
): Promise<boolean> {
  const was = skill.project?.trustedDigest !== null;
  if (was) await setProjectTrust(home, [approvalOf(skill, null)]);
  // No service outlives the trust it started under (as `untrust` of an installed skill).
  await stopSkillServices(home, skill.canonical, env);
  return was;
}
