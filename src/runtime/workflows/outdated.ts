/**
 * `skills outdated` below any front end: which locked project skills and installed user
 * skills (either scope alone when asked) have new files upstream. It asks the update planner both scopes share
 * (lifecycle/update_planner.ts): one `git ls-remote` per remote, however many skills it
 * serves; where a followed branch or tag moved, one fetch of that remote and ref, and each
 * skill's own folder compared with the digest recorded for it — a commit elsewhere in the
 * repository leaves a skill "moved" (repository moved, skill unchanged), not outdated.
 */

import { describeError } from "../../core/errors.ts";
import type { LockedSkill } from "../../core/records/lockfile.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import {
  assessSkill,
  lockedDigestOf,
  type PlannerWorkspace,
  trackedEntry,
  trackedLocked,
  type TrackedSkill,
} from "../lifecycle/update_planner.ts";
import { computeDigest } from "../trust/file_hashes.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import { beginChange } from "../lifecycle/change.ts";
import { readProjectLock } from "../store/lockfile.ts";
import { readRegistry } from "../store/registry.ts";
import { projectSkillDir } from "../lifecycle/lock_entries.ts";
import { describeTracking } from "../lifecycle/update_installed.ts";
import type { ScopeChoice, WorkflowRequest } from "./request.ts";

/** A skill to check: a project's locked skill or an installed one. */
type OutdatedCandidate =
  | { scope: "project"; root: string; key: string; entry: LockedSkill }
  | { scope: "user"; entry: RegistryEntry };

interface OutdatedResult {
  name: string;
  scope: "project" | "user";
  url: string;
  /** `branch main`, `tag v1`, … */
  tracking: string;
  current: string | null;
  latest: string | null;
  /** `moved`: the repository moved, the skill's files did not (nothing to update). */
  status: "outdated" | "up_to_date" | "moved" | "pinned" | "local" | "error";
  error?: string;
}

/** Which scopes `skills outdated` checks: both unless one is asked. */
interface OutdatedRequest extends WorkflowRequest {
  scope?: ScopeChoice;
}

/** What `skills outdated` tells as it goes: nothing is asked. */
interface OutdatedAsker {
  /** Progress lines of the remotes asked and fetched. */
  progress?(message: string): void;
}

/**
 * `skills outdated`: the skills locked by the project seen from `cwd` (first) and those
 * installed in `home`, each compared with what its followed branch or tag holds now.
 */
export async function outdatedWorkflow(
  request: OutdatedRequest,
  asker: OutdatedAsker,
): Promise<OutdatedResult[]> {
  const candidates: OutdatedCandidate[] = [];
  const { root } = findProjectRoot(request.cwd);
  const read = request.scope === "user" ? undefined : readProjectLock(root);
  if (read?.state === "ok") {
    for (const [key, entry] of Object.entries(read.lock.skills)) {
      candidates.push({ scope: "project", root, key, entry });
    }
  }
  if (request.scope !== "project") {
    for (const entry of (await readRegistry(request.home)).skills) {
      candidates.push({ scope: "user", entry });
    }
  }
  // A preview: nothing is recovered or committed; it lends its caches (one ls-remote per
  // remote, one fetch per remote whose branch or tag moved) and removes what it fetched.
  await using change = await beginChange({ kind: "user", home: request.home }, {
    env: request.env,
    signal: request.signal,
    progress: asker.progress === undefined ? undefined : (line) => asker.progress!(line),
    preview: true,
  });
  return await checkOutdated(candidates, change);
}

/** Compares each skill's files with its followed branch or tag now, one fetch per remote. */
async function checkOutdated(
  candidates: readonly OutdatedCandidate[],
  workspace: PlannerWorkspace,
): Promise<OutdatedResult[]> {
  const out: OutdatedResult[] = [];
  for (const candidate of candidates) {
    const name = candidate.scope === "project" ? candidate.key : candidate.entry.name_canonical;
    const current = candidate.scope === "project"
      ? candidate.entry.commit
      : candidate.entry.commit_sha;
    const { branch, tag, ref } = candidate.entry;
    const base = { name, scope: candidate.scope, url: candidate.entry.source.url, current };
    if (candidate.entry.source.type === "local") {
      out.push({ ...base, latest: null, tracking: "local directory", status: "local" });
      continue;
    }
    const follows = candidate.entry.source.type === "web" || candidate.entry.source.type === "npm"
      ? describeTracking(candidate.entry)
      : tag !== null
      ? `tag ${tag}`
      : branch !== null
      ? `branch ${branch}`
      : null;
    if (follows === null) {
      const pinned = `pinned to ${ref ?? current ?? "?"}`;
      out.push({ ...base, latest: null, tracking: pinned, status: "pinned" });
      continue;
    }
    const tracking = follows;
    try {
      const skill: TrackedSkill = candidate.scope === "project"
        ? trackedLocked(candidate.root, candidate.key, candidate.entry)
        : trackedEntry(candidate.entry);
      const digestOf = candidate.scope === "project" ? lockedDigestOf : computeDigest;
      // The version in use names the skill, should its repository have moved its folder.
      const installedAt = candidate.scope === "project"
        ? projectSkillDir(candidate.root, candidate.key)
        : candidate.entry.installed_path;
      const assessed = await assessSkill(skill, workspace, { digestOf, installedAt });
      const latest = assessed.latest;
      if (assessed.status === "changed" && assessed.found.dir === null) {
        const where = skill.subpath || ".";
        const error =
          `the ${tracking} has no SKILL.md at '${where}' any more: it was removed upstream`;
        out.push({ ...base, latest, tracking, status: "error", error });
        continue;
      }
      const status = assessed.status === "changed"
        ? "outdated"
        : assessed.status === "moved"
        ? "moved"
        : "up_to_date";
      out.push({ ...base, latest, tracking, status });
    } catch (error) {
      const message = describeError(error).replace(/^Cannot update skill '[^']*': /, "");
      out.push({ ...base, latest: null, tracking, status: "error", error: message });
    }
  }
  return out;
}
