/**
 * `skills update` of an installed skill below the CLI: the planner shared with project
 * skills (update_planner.ts) says whether its ref moved and whether its own files changed
 * (one ls-remote and at most one fetch per remote for the whole command); when they did,
 * its folder is copied out of that fetch, validated, audited and its changes summarised. A
 * Change (change.ts) gives the plan its staging directory and swaps the new version in
 * atomically under the registry lock (commit.ts: old directory aside, new in, entry written;
 * any failure puts the old one back).
 */

import { networkList } from "../../core/policy/net_grants.ts";
import { join } from "../os/paths.ts";
import * as PLATFORM_PATHS from "../os/paths.ts";
import {
  auditAdded,
  type AuditDelta,
  type AuditReport,
  auditSkill,
  type Finding,
} from "../../core/audit/engine.ts";
import { SkillError } from "../../core/errors.ts";
import type { Diagnostic } from "../../core/manifest/manifest.ts";
import { findEntry, type RegistryEntry } from "../../core/records/registry_model.ts";
import {
  isFullSha,
  ociSource,
  type ParsedGitSource,
  parseSource,
  type RefRequest,
  type ResolvedSource,
  validateSubpath,
} from "../../core/sources/sources.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import type { ChangeSummary } from "../../core/records/changes.ts";
import { computeDigest } from "../trust/file_hashes.ts";
import type { Fetched } from "./fetch_source.ts";
import { resolveParsed } from "./resolve_source.ts";
import {
  assessSkill,
  copyFolder,
  followedVersion,
  missingSkillError,
  type PlannerWorkspace,
  readNewVersion,
  type TrackedSkill,
} from "./update_planner.ts";
import { exists } from "../os/fs.ts";
import { readRegistry } from "../store/registry.ts";
import { isManagedEntry } from "../store/staging.ts";
import { auditDir } from "../audit/scan.ts";
import { acceptance } from "./install_plan.ts";

/** `moved`: the repository moved, the skill's files did not; it is left as it is. */
type UpdateKind = "up_to_date" | "pinned" | "moved" | "update";

export interface UpdatePlan {
  entry: RegistryEntry;
  canonical: string;
  kind: UpdateKind;
  oldSha: string | null;
  newSha: string | null;
  /** What the entry follows after the update, e.g. "branch main". */
  tracking: string;
  /** Installed files differ from what was installed (would be discarded). */
  localChanges: boolean;
  /** Only for kind "update". */
  staged?: {
    /** The directory the new version was fetched into (inside the change's staging). */
    root: string;
    dir: string;
    digest: string;
    changes: ChangeSummary;
    entry: RegistryEntry;
    warnings: Diagnostic[];
    /** The new version's audit, and what it adds to the installed version's. */
    audit: { report: AuditReport; added: AuditDelta };
    /** New critical findings not accepted with --allow-risky: the update is refused. */
    risky: Finding[];
  };
}

export function describeTracking(
  entry: Pick<RegistryEntry, "source" | "branch" | "tag" | "ref">,
): string {
  if (entry.source.type === "local") return `directory ${entry.source.url}`;
  if (entry.tag !== null) return `tag ${entry.tag}`;
  if (entry.branch !== null) return `branch ${entry.branch}`;
  if (entry.ref !== null) return `pinned to ${entry.ref}`;
  return "default branch";
}

/** Rebuilds a source from a registry entry (which is untrusted input: validated again). */
function entrySource(entry: RegistryEntry): ResolvedSource {
  const subpath = validateSubpath(entry.source.url, entry.source.subpath);
  if (entry.source.type === "local") {
    const path = subpath === "" ? entry.source.url : join(entry.source.url, ...subpath.split("/"));
    return resolveParsed(parseSource(path, { localDirectory: path, paths: PLATFORM_PATHS }));
  }
  if (entry.source.type === "oci") {
    return resolveParsed({ ...ociSource(entry.source.url), subpath });
  }
  const parsed = parseSource(entry.source.url) as ParsedGitSource;
  return resolveParsed({ ...parsed, subpath, skill: undefined, ref: undefined });
}

export function assertManaged(home: string, entry: RegistryEntry): void {
  if (!isManagedEntry(home, entry)) {
    throw new SkillError(
      "permission_denied",
      `Skill '${entry.name_canonical}' is recorded at ${entry.installed_path}, not at ${
        join(home, entry.name_canonical)
      }; refusing to change it`,
      { hint: "Remove it with `skills remove` and install it again" },
    );
  }
}

function installedBaseline(entry: RegistryEntry): string | null {
  const recorded = (entry as { installed_digest?: unknown }).installed_digest;
  return typeof recorded === "string" ? recorded : entry.trusted_digest;
}

export interface PlanUpdateOptions {
  /** `--ref/--branch/--tag`: move the skill to this ref (also unpins). */
  request?: RefRequest | undefined;
  /** `--allow-risky`: accept new critical audit findings (recorded in the entry). */
  allowRisky?: boolean | undefined;
  now?: Date;
}

/** What the change lends a plan: its remote and fetch caches, a place to stage into. */
interface UpdateWorkspace extends PlannerWorkspace {
  /** A fresh directory path inside staging (not created yet), only asked for when staging. */
  fetchRoot: () => string;
}

/** An installed skill as the update planner sees it (shared with project skills). */
export function trackedEntry(entry: RegistryEntry): TrackedSkill {
  const source = entrySource(entry);
  return {
    name: entry.name_canonical,
    scope: "user",
    source,
    subpath: source.subpath,
    branch: entry.branch,
    tag: entry.tag,
    ref: entry.ref,
    commit: entry.commit_sha,
    digest: installedBaseline(entry),
  };
}

/**
 * Decides and stages the update of one installed skill. Whatever it staged belongs to the
 * change that asked (removed with the change, or when it discards the plan).
 */
export async function planUpdate(
  home: string,
  entry: RegistryEntry,
  options: PlanUpdateOptions,
  workspace: UpdateWorkspace,
): Promise<UpdatePlan> {
  const canonical = entry.name_canonical;
  assertManaged(home, entry);
  const tracked = trackedEntry(entry);
  const baseline = tracked.digest;
  const localChanges = baseline !== null && await exists(entry.installed_path) &&
    (await computeDigest(entry.installed_path)) !== baseline;
  const base = {
    entry,
    canonical,
    oldSha: entry.commit_sha,
    tracking: describeTracking(entry),
    localChanges,
  };
  const assessed = await assessSkill(tracked, workspace, {
    request: options.request,
    digestOf: computeDigest,
  });
  if (assessed.status === "pinned") return { ...base, kind: "pinned", newSha: entry.commit_sha };
  if (assessed.status === "up_to_date") {
    return { ...base, kind: "up_to_date", newSha: assessed.latest };
  }
  if (assessed.status === "moved") return { ...base, kind: "moved", newSha: assessed.latest };
  const { fetched, dir } = assessed.found;
  if (dir === null) throw missingSkillError(canonical, entry.source.subpath);
  // A repository's fetch is shared by all its skills: this one's folder is copied out. A
  // directory's copy, or an artifact's pull, is the plan's own.
  let root = fetched.root;
  let skillBase = dir;
  if (tracked.source.type === "git") {
    root = workspace.fetchRoot();
    await copyFolder(dir, root);
    skillBase = root;
  }
  const staged = await stageNewVersion(
    entry,
    { ...fetched, root, base: skillBase },
    options.now ?? new Date(),
    options,
  );
  const request = options.request;
  if (request?.kind === "ref" && isFullSha(request.name) && tracked.source.type === "git") {
    // Pinned to the same commit again: nothing to do.
    if (fetched.commit?.sha === entry.commit_sha && staged.digest === baseline) {
      return { ...base, kind: "up_to_date", newSha: entry.commit_sha };
    }
  }
  const sameCommit = fetched.commit === null || fetched.commit.sha === entry.commit_sha;
  if (sameCommit && staged.digest === baseline && sameTracking(entry, staged.entry)) {
    return { ...base, kind: "up_to_date", newSha: entry.commit_sha };
  }
  return {
    ...base,
    kind: "update",
    newSha: fetched.commit?.sha ?? null,
    tracking: describeTracking(staged.entry),
    staged: { root, ...staged },
  };
}

function sameTracking(a: RegistryEntry, b: RegistryEntry): boolean {
  return a.branch === b.branch && a.tag === b.tag && a.ref === b.ref;
}

async function stageNewVersion(
  entry: RegistryEntry,
  fetched: Fetched,
  now: Date,
  options: PlanUpdateOptions,
) {
  const dir = fetched.base;
  const version = await readNewVersion(
    entry.name_canonical,
    dir,
    entry.installed_path,
    "installed",
  );
  const { manifest, warnings, changes } = version;
  const digest = await computeDigest(dir);
  const commit = fetched.commit;
  const followed = followedVersion(fetched, entry);
  const next: RegistryEntry = {
    ...entry,
    commit_sha: commit?.sha ?? null,
    branch: followed.branch,
    tag: followed.tag,
    ref: followed.ref,
    trusted: entry.trusted,
    trusted_digest: entry.trusted ? digest : null,
    installed_digest: digest,
    approved_network: networkList(manifest.network),
    updated_at: now.toISOString(),
  };
  if (followed.signed !== undefined) next.signed = followed.signed;
  else delete next.signed;
  // Only what the new commit adds is news: findings the installed version already had
  // were reviewed (or accepted) when it was installed.
  const report = await auditDir(dir, manifest);
  const before = await auditDir(entry.installed_path).catch(() => auditSkill({ files: [] }));
  const added = auditAdded(before, report);
  const newCritical = added.findings.filter((f) => f.severity === "critical");
  const critical = report.findings.filter((f) => f.severity === "critical");
  if (critical.length === 0) delete next.allowed_risky;
  else if (newCritical.length > 0 && options.allowRisky) {
    next.allowed_risky = acceptance(critical, now.toISOString());
  }
  const risky = options.allowRisky ? [] : newCritical;
  return { dir, digest, changes, entry: next, warnings, audit: { report, added }, risky };
}

/** Registry entries to update: named ones (bundled names refused) or all of them. */
export async function entriesToUpdate(
  home: string,
  names: readonly string[],
): Promise<RegistryEntry[]> {
  const registry = await readRegistry(home);
  if (names.length === 0) return registry.skills;
  const out: RegistryEntry[] = [];
  for (const canonical of names) {
    const entry = findEntry(registry, canonical);
    if (entry === undefined) {
      throw bundledSkillNames().includes(canonical)
        ? new SkillError(
          "permission_denied",
          `Cannot update skill '${canonical}': it is bundled and updated with skills itself`,
        )
        : new SkillError("not_found", `Cannot update skill '${canonical}': it is not installed`, {
          hint: "Run `skills list` to see the installed skills",
        });
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
