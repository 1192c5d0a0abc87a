/**
 * `skills install` below the CLI: restore every skill of the project's lockfile, fetched at
 * its locked commit and verified file by file against the lockfile's sha256s before it is
 * written (atomically, through the project transaction). What is already on disk and
 * matches is left alone, so a second run does nothing.
 *
 * Every disagreement is a mismatch naming the skill (and its files): a lockfile whose digest
 * does not add up to its files list, a folder whose files changed, permissions that differ
 * from the approved ones, a skill its source no longer has at that commit, a locked commit
 * gone from the source (a force-push: where the branch resolves now and which files differ
 * there), a folder the lockfile does not list. `--frozen` (CI) writes nothing at all when
 * anything disagrees, and never changes the lockfile.
 */

import { join } from "../os/paths.ts";
import { describeError, SkillError } from "../../core/errors.ts";
import {
  diffFiles,
  type FileDrift,
  type LockedSkill,
  type Lockfile,
  permissionsProblem,
  type StatedPermissions,
} from "../../core/records/lockfile.ts";
import { networkList } from "../../core/policy/net_grants.ts";
import {
  type GitSource,
  type ResolvedSource,
  sourceLocation,
  validateSubpath,
} from "../../core/sources/sources.ts";
import { isWithin, lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import { GitError } from "../git/command.ts";
import { trackedCommit } from "../git/fetch.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import type { Change, LockChange } from "../lifecycle/change.ts";
import type { ProjectScope } from "../../core/records/scope.ts";
import type { Fetched } from "../lifecycle/fetch_source.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { unlockedFolders } from "./drift.ts";
import { digestOfLocked, diskDrift, sourceOfLocked } from "../lifecycle/lock_entries.ts";

type MismatchKind =
  | "lock_digest"
  | "changed"
  | "permissions"
  | "missing"
  | "moved"
  | "fetch_failed"
  | "unsupported"
  | "extra";

export interface Mismatch {
  skill: string;
  kind: MismatchKind;
  /** What disagrees; the files are in `files`, which the CLI lists under it, never here too. */
  message: string;
  files: FileDrift[];
  /** Fails the run (everything does under --frozen; an unlocked folder otherwise does not). */
  blocking: boolean;
}

export interface RestoreOptions {
  /** Verify only, write nothing when anything disagrees, never touch the lockfile. */
  frozen: boolean;
  /** Replace folders whose files differ from the lockfile (not with --frozen). */
  force: boolean;
}

export interface RestoreReport {
  /** Locked skills already on disk as locked. */
  present: string[];
  /** Restored (written) by this run. */
  restored: string[];
  /** Verified and ready, but not written because something else disagreed (--frozen). */
  held: string[];
  mismatches: Mismatch[];
}

/** What a restore works with: the project's change, which fetches and writes. */
export interface RestoreWorkspace {
  root: string;
  home: string;
  change: Change<ProjectScope>;
}

/** A skill's files fetched and ready to be staged. */
export interface Verified {
  key: string;
  entry: LockedSkill;
  /** The skill's folder inside the fetch. */
  base: string;
}

/**
 * The source a lock entry names, fetched whole (the subpath is applied afterwards). The
 * lockfile is the repository's: a local source is never read from inside `$SKILLS_HOME`
 * (the same rule as `skills add`).
 */
function entrySource(entry: LockedSkill, root: string, home: string): ResolvedSource {
  const source = sourceOfLocked(entry.source, root);
  if (
    source.kind === "local-folder" && (isWithin(home, source.path) || isWithin(source.path, home))
  ) {
    throw new SkillError(
      "invalid_source",
      `${source.path} is inside $SKILLS_HOME or contains it; a lockfile does not read from there`,
    );
  }
  return source;
}

/** The skill's folder inside a fetch, or null when that path is not there. */
export async function skillBase(fetched: Fetched, subpathInput: string): Promise<string | null> {
  const subpath = validateSubpath(subpathInput, subpathInput);
  const base = subpath === "" ? fetched.root : join(fetched.root, ...subpath.split("/"));
  const info = lstatSyncOrNull(join(base, "SKILL.md"));
  if (info === null || !info.isFile) return null;
  if (subpath === "") await removeIfExists(join(base, ".git"));
  return base;
}

/** Permissions as the fetched SKILL.md states them (undefined when it does not parse). */
export async function statedPermissions(dir: string): Promise<StatedPermissions | undefined> {
  const manifest = (await inspectSkillDir(dir)).manifest;
  return manifest === undefined
    ? undefined
    : { env: manifest.envPatterns, network: networkList(manifest.network) };
}

const mismatch = (
  skill: string,
  kind: MismatchKind,
  message: string,
  files: FileDrift[] = [],
): Mismatch => ({ skill, kind, message, files, blocking: true });

/** Fetches at the locked commit once per (source, commit) and checks each skill there. */
async function fetchAndVerify(
  ws: RestoreWorkspace,
  wanted: readonly { key: string; entry: LockedSkill }[],
  out: { verified: Verified[]; mismatches: Mismatch[] },
): Promise<void> {
  const fetches = new Map<string, Promise<Fetched>>();
  for (const { key, entry } of wanted) {
    const at = entry.commit === null ? "" : ` at ${entry.commit.slice(0, 12)}`;
    let source: ResolvedSource;
    try {
      source = entrySource(entry, ws.root, ws.home);
    } catch (error) {
      out.mismatches.push(mismatch(key, "fetch_failed", describeError(error)));
      continue;
    }
    const label = sourceLocation(source);
    const id = `${label}\0${entry.commit ?? ""}`;
    let fetching = fetches.get(id);
    if (fetching === undefined) {
      fetching = ws.change.fetch(
        source,
        entry.commit === null ? { kind: "default" } : { kind: "ref", name: entry.commit },
      );
      fetching.catch(() => {});
      fetches.set(id, fetching);
    }
    let fetched: Fetched;
    try {
      fetched = await fetching;
    } catch (error) {
      const gone = error instanceof GitError && error.kind === "ref_not_found";
      if (gone && source.type === "git") {
        out.mismatches.push(await movedSource(ws, key, entry, source));
      } else out.mismatches.push(mismatch(key, "fetch_failed", describeError(error)));
      continue;
    }
    const base = await skillBase(fetched, entry.source.subpath);
    if (base === null) {
      out.mismatches.push(
        mismatch(key, "missing", `${label}${at} has no skill at '${entry.source.subpath || "."}'`),
      );
      continue;
    }
    const files = diffFiles(entry.files, await fileHashes(base));
    if (files.length > 0) {
      out.mismatches.push(mismatch(
        key,
        "changed",
        `the files of ${label}${at} differ from skills-lock.json`,
        files,
      ));
      continue;
    }
    const problem = permissionsProblem(
      entry.permissions,
      await statedPermissions(base),
      `SKILL.md${at}`,
    );
    if (problem !== undefined) {
      out.mismatches.push(mismatch(key, "permissions", problem));
      continue;
    }
    out.verified.push({ key, entry, base });
  }
}

/**
 * The locked commit is gone from its source (history rewritten): where the branch or tag
 * resolves now, and which files differ there from the lockfile.
 */
async function movedSource(
  ws: RestoreWorkspace,
  key: string,
  entry: LockedSkill,
  source: GitSource,
): Promise<Mismatch> {
  const gone = `locked commit ${entry.commit?.slice(0, 12)} is gone from ${source.url}`;
  const tracking = entry.tag !== null
    ? { kind: "tag" as const, name: entry.tag }
    : entry.branch !== null
    ? { kind: "branch" as const, name: entry.branch }
    : null;
  if (tracking === null) return mismatch(key, "moved", `${gone} (it was pinned)`);
  try {
    const now = trackedCommit(await ws.change.remoteRefs(source.url, source.transport), tracking);
    if (now === null) {
      return mismatch(key, "moved", `${gone}, and ${tracking.kind} '${tracking.name}' too`);
    }
    const fetched = await ws.change.fetch(source, { kind: "ref", name: now });
    const base = await skillBase(fetched, entry.source.subpath);
    const files = base === null
      ? [{ path: "SKILL.md", change: "removed" as const }]
      : diffFiles(entry.files, await fileHashes(base));
    const where = files.length === 0 ? "with the same files" : "where files differ";
    return mismatch(
      key,
      "moved",
      `${gone} (history rewritten?); ${tracking.kind} '${tracking.name}' now resolves to ${
        now.slice(0, 12)
      }, ${where}`,
      files,
    );
  } catch (error) {
    return mismatch(key, "moved", `${gone}: ${describeError(error)}`);
  }
}

/** Checks the lock, the folders on disk, fetches what is missing, and restores it. */
export async function restoreLocked(
  ws: RestoreWorkspace,
  lock: Lockfile,
  options: RestoreOptions,
): Promise<RestoreReport> {
  const report: RestoreReport = { present: [], restored: [], held: [], mismatches: [] };
  const wanted: { key: string; entry: LockedSkill; replace: boolean }[] = [];
  for (const key of Object.keys(lock.skills).sort()) {
    const entry = lock.skills[key]!;
    if ((await digestOfLocked(entry)) !== entry.digest) {
      report.mismatches.push(mismatch(
        key,
        "lock_digest",
        `its digest in skills-lock.json (${entry.digest}) does not add up to its files list`,
      ));
    }
    const drift = await diskDrift(ws.root, key, entry);
    if (drift === null) {
      wanted.push({ key, entry, replace: false });
    } else if (drift.length === 0) {
      const dir = join(ws.root, ".agents", "skills", key);
      const stated = await statedPermissions(dir);
      const problem = stated === undefined
        ? undefined
        : permissionsProblem(entry.permissions, stated);
      if (problem !== undefined) {
        report.mismatches.push(mismatch(key, "permissions", problem));
      } else report.present.push(key);
    } else if (options.force && !options.frozen) {
      wanted.push({ key, entry, replace: true });
    } else {
      report.mismatches.push(mismatch(
        key,
        "changed",
        `files on disk differ from skills-lock.json`,
        drift,
      ));
    }
  }
  for (const name of unlockedFolders(ws.root, ws.home, lock.skills)) {
    report.mismatches.push({
      ...mismatch(name, "extra", "in .agents/skills but not in skills-lock.json"),
      blocking: options.frozen,
    });
  }
  const fetched = { verified: [] as Verified[], mismatches: report.mismatches };
  await fetchAndVerify(ws, wanted, fetched);
  const blocked = report.mismatches.some((m) => m.blocking);
  if (options.frozen && blocked) {
    report.held = fetched.verified.map((v) => v.key);
    return report;
  }
  await writeVerified(ws, fetched.verified, null);
  report.restored = fetched.verified.map((v) => v.key);
  return report;
}

/** Stages verified skills on the project's disk and moves them in, in one commit. */
export async function writeVerified(
  ws: RestoreWorkspace,
  verified: readonly Verified[],
  next: LockChange,
): Promise<void> {
  if (verified.length === 0 && next === null) return;
  const moves = [];
  for (const v of verified) {
    moves.push({
      canonical: v.key,
      staged: await ws.change.stageCopy(v.base, v.key, Object.keys(v.entry.files)),
    });
  }
  await ws.change.commitFolders(moves, next);
}
