/**
 * `skills add <source> --project` below the CLI: plan each selected skill on its own, as
 * `skills add` does for `$SKILLS_HOME` (lifecycle/install.ts) — installed into
 * `<root>/.agents/skills/<name>/`, already there (the lockfile records it from this source
 * at this commit and the folder matches: a re-run is a no-op), or refused (invalid, a name
 * clash, locked from elsewhere). Each plan carries the lock entry the commit will write and
 * the audit of its files: critical findings refuse the skill unless the user passed
 * `--allow-risky`, as for `$SKILLS_HOME`.
 */

import { networkList } from "../../core/policy/net_grants.ts";
import { join } from "../os/paths.ts";
import { type AuditReport, criticalFindings, type Finding } from "../../core/audit/engine.ts";
import { SkillError } from "../../core/errors.ts";
import { diffFiles, type LockedSkill, type Lockfile } from "../../core/records/lockfile_model.ts";
import { quoteName } from "../../core/manifest/names.ts";
import { lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import type { Fetched } from "../lifecycle/fetch_source.ts";
import { type Candidate, candidateLabel, invalidCandidate } from "../lifecycle/install.ts";
import { auditDir } from "../audit/scan.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { describeFiles, lockedSource } from "./lockfile.ts";
import { projectSkillDir } from "./transaction.ts";

export interface ProjectPlan {
  candidate: Candidate;
  name: string;
  canonical: string;
  target: string;
  digest: string;
  entry: LockedSkill;
  /** The audit of the files that would be installed (shown before asking). */
  audit: AuditReport;
  /** Critical findings not accepted with --allow-risky: shown, then the skill is refused. */
  risky: Finding[];
}

interface ProjectRefusal {
  label: string;
  error: SkillError;
}

interface ProjectPlanning {
  plans: ProjectPlan[];
  already: { canonical: string; entry: LockedSkill; target: string }[];
  refused: ProjectRefusal[];
}

/** Whether the folder at `target` holds exactly the files `entry` lists. */
async function matchesLock(target: string, entry: LockedSkill): Promise<boolean> {
  if (lstatSyncOrNull(target) === null) return false;
  return diffFiles(entry.files, await fileHashes(target)).length === 0;
}

/**
 * Plans each selected candidate for the project at `root` whose lock is `lock`.
 * long because: each candidate's refusals are checked in the order their messages promise.
 */
export async function planProjectInstall(
  root: string,
  lock: Lockfile,
  fetched: Fetched,
  selected: readonly Candidate[],
  options: { allowRisky?: boolean } = {},
): Promise<ProjectPlanning> {
  const planning: ProjectPlanning = { plans: [], already: [], refused: [] };
  const refuse = (c: Candidate, error: SkillError) =>
    planning.refused.push({ label: candidateLabel(c), error });
  const source = fetched.source;
  for (const candidate of selected) {
    const invalid = invalidCandidate(candidate, selected.length);
    if (invalid !== undefined || candidate.manifest === undefined) {
      refuse(candidate, invalid!);
      continue;
    }
    // A project skill is named by its SKILL.md: every agent reading the folder sees that name.
    const name = candidate.name!;
    const canonical = candidate.canonical!;
    const target = projectSkillDir(root, canonical);
    if (planning.plans.some((p) => p.canonical === canonical)) {
      refuse(
        candidate,
        new SkillError("conflict", `Two selected skills are both named '${canonical}'`),
      );
      continue;
    }
    const lockedSrc = lockedSource(
      source.type === "local" ? source : { type: source.type, url: source.url },
      candidate.rel,
      root,
    );
    const locked = Object.hasOwn(lock.skills, canonical) ? lock.skills[canonical] : undefined;
    if (locked !== undefined) {
      const sameSource = locked.source.type === lockedSrc.type &&
        locked.source.url === lockedSrc.url && locked.source.subpath === lockedSrc.subpath;
      const sameCommit = fetched.commit === null || locked.commit === fetched.commit.sha;
      if (sameSource && sameCommit && await matchesLock(target, locked)) {
        planning.already.push({ canonical, entry: locked, target });
        continue;
      }
      const [why, hint] = !sameSource
        ? [`from ${locked.source.url}`, `Remove it first (\`skills remove ${canonical}\`)`]
        : sameCommit
        ? ["at this commit, but its folder is missing or changed", "Run `skills install`"]
        : ["at another commit", `Run \`skills update ${canonical}\` to move it`];
      refuse(
        candidate,
        new SkillError(
          "conflict",
          `Cannot install skill '${quoteName(canonical)}': skills-lock.json records it ${why}`,
          { hint },
        ),
      );
      continue;
    }
    if (lstatSyncOrNull(target) !== null) {
      refuse(
        candidate,
        new SkillError(
          "conflict",
          `Cannot install skill '${quoteName(canonical)}': ${target} already exists`,
          { hint: "Remove or rename that folder first" },
        ),
      );
      continue;
    }
    await removeIfExists(join(candidate.dir, ".git"));
    const { files, digest } = await describeFiles(candidate.dir);
    const commit = fetched.commit;
    const entry: LockedSkill = {
      name,
      source: lockedSrc,
      branch: commit?.branch ?? null,
      tag: commit?.tag ?? null,
      ref: commit?.ref ?? null,
      commit: commit?.sha ?? null,
      digest,
      files,
      permissions: {
        env: [...candidate.manifest.envPatterns],
        network: networkList(candidate.manifest.network),
      },
      ...(fetched.signed ? { signed: fetched.signed } : {}),
    };
    const audit = await auditDir(candidate.dir, candidate.manifest);
    const risky = options.allowRisky === true ? [] : criticalFindings(audit);
    planning.plans.push({
      candidate,
      name,
      canonical,
      target,
      digest,
      entry,
      audit,
      risky,
    });
  }
  return planning;
}
