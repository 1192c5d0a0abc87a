/**
 * This user's approval of project skills: recorded in `$SKILLS_HOME/project-trust.json`
 * (never in the project: a repository cannot trust itself), keyed by the project root and
 * the skill's folder, bound to the digest of the files the user approved. The gate
 * (trust/gate.ts) verifies that digest before any script or toolset runs, as it does for
 * installed skills.
 */

import type { SkillRecord } from "../catalog/loader.ts";
import { withProjectTrust } from "../../core/records/project_records.ts";
import { removeIfExists } from "../os/fs.ts";
import { updateProjectTrust } from "../store/project_records_file.ts";
import { gateCachePath } from "../trust/gate.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { describeFiles } from "./lockfile.ts";
import { projectSkillDir } from "./transaction.ts";

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
export function approvalOf(skill: SkillRecord, digest: string | null): Approval {
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
