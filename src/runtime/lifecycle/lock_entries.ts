/**
 * `skills-lock.json` on disk (model: core/records/lockfile.ts; reading: store/lockfile.ts,
 * with which the catalog lists project skills). Writes are atomic (temp file, fsync, rename)
 * and happen only inside a project-scope change (change.ts, commit.ts), after the skill folders
 * are in place. Also: the files and digest a skill folder has, as a lock entry records them,
 * and how a locked skill's folder on disk drifted from its entry.
 */

import { isAbsolute, join, relative, resolve } from "../os/paths.ts";
import { combineDigest, sha256Hex } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import {
  diffFiles,
  emptyLockfile,
  foreignComputedHash,
  type LockedSkill,
  type LockedSource,
  type Lockfile,
} from "../../core/records/lockfile.ts";
import { ociSource, parseSource, type ResolvedSource } from "../../core/sources/sources.ts";
import { webSource } from "../../core/sources/web_source.ts";
import { npmRecordSource } from "../../core/sources/npm_source.ts";
import { resolveParsed } from "./resolve_source.ts";
import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import { LOCKFILE_NAME, PROJECT_SKILLS_DIR } from "../../core/records/scope.ts";
import { type LockRead, readProjectLock } from "../store/lockfile.ts";
import { fileHashes } from "../trust/file_hashes.ts";

export { readProjectLock };

export function lockfilePath(root: string): string {
  return join(root, LOCKFILE_NAME);
}

/** The folder `skills add --project` installs `canonical` into. */
export function projectSkillDir(root: string, canonical: string): string {
  return join(root, ...PROJECT_SKILLS_DIR, canonical);
}

/** The locked skill's folder on disk compared with its entry: file drift, or null if absent. */
export async function diskDrift(root: string, key: string, entry: LockedSkill) {
  const dir = projectSkillDir(root, key);
  if (lstatSyncOrNull(dir) === null) return null;
  return diffFiles(entry.files, await fileHashes(dir));
}

/** The lock to change: the current one, or an empty one when there is none yet. */
export function lockForChange(read: LockRead): Lockfile {
  if (read.state === "absent") return emptyLockfile();
  if (read.state === "ok") return read.lock;
  if (read.state === "foreign") {
    throw new SkillError(
      "conflict",
      `${read.path} has entries vercel-labs' skills CLI wrote (no commits, no file digests)`,
      { hint: "Run `skills install` first: it resolves the commits and rewrites the lockfile" },
    );
  }
  throw new SkillError("parse_error", `Cannot read ${read.path}: it ${read.reason}`, {
    hint: "Fix the file (git diff / git checkout it), then run the command again",
  });
}

/** What a lock entry records of a folder: every file's sha256 and the skill's digest. */
export async function describeFiles(
  dir: string,
): Promise<{ files: Record<string, string>; digest: string }> {
  const hashes = await fileHashes(dir);
  const files: Record<string, string> = {};
  for (const [path, sha] of [...hashes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (sha.startsWith("symlink:")) {
      throw new SkillError("integrity_mismatch", `Skill contains a symlink: ${path}`);
    }
    files[path] = sha;
  }
  const digest = await combineDigest(
    Object.entries(files).map(([path, sha256]) => ({
      path,
      sha256,
    })),
  );
  return { files, digest };
}

/** The digest a lock entry's own files list adds up to (a hand edit shows here). */
export async function digestOfLocked(entry: LockedSkill): Promise<string> {
  return await combineDigest(
    Object.entries(entry.files).map(([path, sha256]) => ({
      path,
      sha256,
    })),
  );
}

/**
 * How the lockfile names a source: a git URL as given, a directory relative to the root
 * when it is inside the project (so a clone elsewhere finds it), else absolute.
 */
export function lockedSource(
  source: { type: "git" | "oci" | "web" | "npm"; url: string } | { type: "local"; path: string },
  subpath: string,
  root: string,
): LockedSource {
  if (source.type !== "local") return { type: source.type, url: source.url, subpath };
  const inside = isWithin(root, source.path);
  const url = inside ? (relative(root, source.path).replaceAll("\\", "/") || ".") : source.path;
  return { type: "local", url, subpath: "" };
}

/**
 * The source a lock entry names, read back (the lockfile is untrusted: its URL is parsed
 * again) and resolved, whole: the entry's subpath is applied after the fetch. A directory
 * relative to the root is found from the root.
 */
export function sourceOfLocked(source: LockedSource, root: string): ResolvedSource {
  if (source.type === "local") {
    const path = isAbsolute(source.url) ? source.url : resolve(root, source.url);
    return resolveParsed({ type: "local", path, subpath: "", skill: undefined, ref: undefined });
  }
  if (source.type === "oci") return resolveParsed(ociSource(source.url));
  if (source.type === "web") return resolveParsed(webSource(source.url, source.subpath));
  if (source.type === "npm") {
    return resolveParsed({ ...npmRecordSource(source.url), subpath: source.subpath });
  }
  const parsed = parseSource(source.url);
  if (parsed.type !== "git") throw new Error("unreachable: a URL parses as a git source");
  return resolveParsed({ ...parsed, subpath: "", skill: undefined, ref: undefined });
}

/**
 * The lock with each entry's `computedHash` — vercel-labs' digest, which that CLI compares
 * when it reads the file — computed from `folderOf(key)` when that folder holds exactly the
 * bytes the entry lists. An entry whose folder differs gets none: a stale hash would tell
 * that CLI the wrong thing, and this tool trusts its own sha256s, not this hash.
 */
export async function withPeerHashes(
  lock: Lockfile,
  folderOf: (key: string) => string,
): Promise<Lockfile> {
  const skills: Record<string, LockedSkill> = {};
  for (const [key, entry] of Object.entries(lock.skills)) {
    const { computedHash: _stale, ...rest } = entry;
    const hash = await hashOfListedFiles(folderOf(key), entry.files);
    skills[key] = hash === undefined ? rest : { ...rest, computedHash: hash };
  }
  return { ...lock, skills };
}

async function hashOfListedFiles(
  dir: string,
  files: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const read: { path: string; bytes: Uint8Array }[] = [];
  for (const [path, sha] of Object.entries(files)) {
    const bytes = await Deno.readFile(join(dir, ...path.split("/"))).catch(() => undefined);
    if (bytes === undefined || (await sha256Hex(bytes)) !== sha) return undefined;
    read.push({ path, bytes });
  }
  return await foreignComputedHash(read);
}
