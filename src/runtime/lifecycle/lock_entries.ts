/**
 * What a lock entry says of the world around the file: the files and digest a skill folder
 * has, as an entry records them, how a locked skill's folder on disk drifted from its entry,
 * and the source an entry names, both ways. The file itself is read and written by
 * runtime/store/lockfile.ts (its model: core/records/lockfile.ts).
 */

import { isAbsolute, join, relative, resolve } from "../os/paths.ts";
import { combineDigest } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import { diffFiles, type LockedSkill, type LockedSource } from "../../core/records/lockfile.ts";
import { ociSource, parseSource, type ResolvedSource } from "../../core/sources/sources.ts";
import { webSource } from "../../core/sources/web_source.ts";
import { npmRecordSource } from "../../core/sources/npm_source.ts";
import { resolveParsed } from "./resolve_source.ts";
import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import { PROJECT_SKILLS_DIR } from "../../core/records/scope.ts";
import { fileHashes } from "../trust/file_hashes.ts";

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
