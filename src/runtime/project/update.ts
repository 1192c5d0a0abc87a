/**
 * `skills update <name>` of a locked project skill below the CLI: the planner shared with
 * installed skills (lifecycle/update_planner.ts) says whether its ref moved and whether its
 * own files changed (one ls-remote and at most one fetch per remote for the whole command);
 * when they did, the new version is validated, its changes summarised, and the lock entry
 * the commit writes is built. The project transaction (transaction.ts) swaps the folder and the entry at once.
 */

import { networkList } from "../../core/policy/net_grants.ts";
import { isAbsolute, resolve } from "../os/paths.ts";
import type { ChangeSummary } from "../../core/records/changes.ts";
import type { Diagnostic } from "../../core/manifest/manifest.ts";
import { type LockedSkill, withLockedSkill } from "../../core/records/lockfile_model.ts";
import {
  ociSource,
  parseSource,
  type RefRequest,
  type Source,
} from "../../core/sources/sources.ts";
import type { Change } from "../lifecycle/change.ts";
import { describeTracking } from "../lifecycle/update.ts";
import {
  assessSkill,
  missingSkillError,
  readNewVersion,
  type TrackedSkill,
} from "../lifecycle/update_planner.ts";
import { diskDrift } from "./drift.ts";
import { refreshCopies } from "./links.ts";
import { describeFiles } from "./lockfile.ts";
import { type ProjectChange, projectSkillDir } from "./transaction.ts";
import { setProjectTrust } from "./trust.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { readProjectTrust } from "../store/project_records_file.ts";

export interface ProjectUpdatePlan {
  key: string;
  entry: LockedSkill;
  /** `moved`: the repository moved, the skill's files did not; it is left as it is. */
  kind: "up_to_date" | "pinned" | "moved" | "update";
  oldSha: string | null;
  newSha: string | null;
  tracking: string;
  /** The folder's files differ from the lockfile (they would be discarded). */
  localChanges: boolean;
  staged?: {
    base: string;
    entry: LockedSkill;
    changes: ChangeSummary;
    warnings: Diagnostic[];
  };
}

function sourceOf(entry: LockedSkill, root: string): Source {
  if (entry.source.type === "local") {
    const path = isAbsolute(entry.source.url) ? entry.source.url : resolve(root, entry.source.url);
    return { type: "local", path, subpath: "", skill: undefined, ref: undefined };
  }
  if (entry.source.type === "oci") return ociSource(entry.source.url);
  const parsed = parseSource(entry.source.url);
  if (parsed.type !== "git") throw new Error("unreachable: a URL parses as a git source");
  return { ...parsed, subpath: "", skill: undefined, ref: undefined };
}

/** A locked skill as the update planner sees it (shared with installed skills). */
export function trackedLocked(root: string, key: string, entry: LockedSkill): TrackedSkill {
  return {
    name: key,
    scope: "project",
    source: sourceOf(entry, root),
    subpath: entry.source.type === "local" ? "" : entry.source.subpath,
    branch: entry.branch,
    tag: entry.tag,
    ref: entry.ref,
    commit: entry.commit,
    digest: entry.digest,
  };
}

/** The digest a lock entry would record for a folder. */
export async function lockedDigestOf(dir: string): Promise<string> {
  return (await describeFiles(dir)).digest;
}

/** Decides and fetches the update of the locked skill `key` (the change owns the fetch). */
export async function planProjectUpdate(
  root: string,
  key: string,
  entry: LockedSkill,
  change: Change,
  options: { request?: RefRequest | undefined; now?: Date } = {},
): Promise<ProjectUpdatePlan> {
  const drift = await diskDrift(root, key, entry);
  const base = {
    key,
    entry,
    oldSha: entry.commit,
    tracking: describeTracking(entry),
    localChanges: drift !== null && drift.length > 0,
  };
  const assessed = await assessSkill(trackedLocked(root, key, entry), change, {
    request: options.request,
    digestOf: lockedDigestOf,
  });
  if (assessed.status === "pinned") return { ...base, kind: "pinned", newSha: entry.commit };
  // A folder that differs from the lockfile on disk is restored by an update even when
  // upstream did not change it (as before the planner was shared).
  const sameOnDisk = drift !== null && drift.length === 0;
  if (assessed.status === "up_to_date" && (assessed.found === undefined || sameOnDisk)) {
    return { ...base, kind: "up_to_date", newSha: assessed.latest };
  }
  if (assessed.status === "moved") return { ...base, kind: "moved", newSha: assessed.latest };
  const found = assessed.found!;
  const dir = found.dir;
  if (dir === null) throw missingSkillError(key, entry.source.subpath);
  const current = projectSkillDir(root, key);
  const { manifest, warnings, changes } = await readNewVersion(key, dir, current, "locked");
  const { files, digest } = await describeFiles(dir);
  const commit = found.fetched.commit;
  const next: LockedSkill = {
    ...entry,
    branch: commit === null ? entry.branch : commit.branch,
    tag: commit === null ? entry.tag : commit.tag,
    ref: commit === null ? entry.ref : commit.ref,
    commit: commit?.sha ?? null,
    digest,
    files,
    permissions: {
      ...entry.permissions,
      env: [...manifest.envPatterns],
      network: networkList(manifest.network),
    },
  };
  // Who signed the new version (under a signer policy), never a signer of the old one.
  if (found.fetched.signed !== undefined) next.signed = found.fetched.signed;
  else delete next.signed;
  const sameFiles = digest === entry.digest && sameOnDisk;
  if ((commit === null || commit.sha === entry.commit) && sameFiles) {
    return { ...base, kind: "up_to_date", newSha: entry.commit };
  }
  return {
    ...base,
    kind: "update",
    newSha: commit?.sha ?? null,
    tracking: describeTracking(next),
    staged: { base: dir, entry: next, changes, warnings },
  };
}

/**
 * Swaps a planned update in (folder and lock entry in one commit). A skill this user trusted
 * stays trusted with the new digest — they reviewed and confirmed the update — as installed
 * skills do; an untrusted one stays untrusted. Copies `skills link --copy` made of the
 * folder are refreshed; returns notes on those left as they were.
 */
export async function applyProjectUpdate(
  tx: ProjectChange,
  home: string,
  plan: ProjectUpdatePlan,
): Promise<string[]> {
  const staged = plan.staged;
  if (plan.kind !== "update" || staged === undefined) return [];
  const rel = `${PROJECT_SKILLS_DIR.join("/")}/${plan.key}`;
  const wasTrusted = readProjectTrust(home).doc.projects[tx.root]?.[rel] !== undefined;
  const dir = await tx.stageCopy(staged.base, plan.key, Object.keys(staged.entry.files));
  await tx.commit(
    [{ canonical: plan.key, staged: dir }],
    (lock) => withLockedSkill(lock, plan.key, staged.entry),
  );
  if (wasTrusted) {
    await setProjectTrust(home, [{
      root: tx.root,
      rel,
      canonical: plan.key,
      digest: staged.entry.digest,
      dir: projectSkillDir(tx.root, plan.key),
    }]);
  }
  // Copies `skills link --copy` made of the folder show the new files too.
  const folder = projectSkillDir(tx.root, plan.key);
  const trusted = wasTrusted ? staged.entry.digest : null;
  return (await refreshCopies(home, [{ dir: folder, trusted }])).notes;
}

/**
 * Records, in one lockfile write, the new commits of locked skills whose repository moved
 * while their own files did not (plans of kind "moved"); no folder moves. An entry another
 * command changed meanwhile is left as it is.
 */
export async function recordProjectMoved(
  tx: ProjectChange,
  plans: readonly ProjectUpdatePlan[],
): Promise<void> {
  const moved = plans.filter((p) => p.kind === "moved" && p.newSha !== null);
  if (moved.length === 0) return;
  await tx.commit([], (lock) => {
    let next = lock;
    for (const plan of moved) {
      const current = next.skills[plan.key];
      if (current?.commit !== plan.entry.commit || current.digest !== plan.entry.digest) continue;
      next = withLockedSkill(next, plan.key, { ...current, commit: plan.newSha });
    }
    return next;
  });
}
