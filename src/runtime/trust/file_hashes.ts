/**
 * Computing a skill directory's digest from its files, with a cache keyed by each file's
 * size and mtime so that verifying before every run stays cheap (re-hash on change only).
 */

import { join } from "../os/paths.ts";
import { combineDigest, type FileHash, sha256Hex } from "../../core/digest.ts";
import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES, tooLargeMessage } from "../../core/limits.ts";
import { writeFileAtomic } from "../os/fs.ts";

const SKIP_DIRS = new Set([".git", "__pycache__", "node_modules", ".pytest_cache"]);
const MAX_FILES = 20_000;
const CACHE_VERSION = 1;

interface CacheEntry {
  size: number;
  mtime: number;
  sha256: string;
}

interface FileStat {
  path: string;
  abs: string;
  size: number;
  mtime: number;
  /** Set for a symlink when `listSymlinks` is on: its target. */
  link?: string;
}

/** Files hashed at once: digests run in parallel, memory stays bounded. */
const HASH_BATCH = 16;

/**
 * Files that make up a skill: regular files, excluding VCS data and Python caches. A
 * symlink is an integrity error, unless `listSymlinks` reports it (for change summaries).
 * Synchronous: a skill is mostly a few small files, where per-call async overhead would
 * dominate, and this runs before every `skills run`.
 */
function listFiles(root: string, listSymlinks = false): FileStat[] {
  const files: FileStat[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory && SKIP_DIRS.has(entry.name)) continue;
      if (entry.isFile && entry.name.endsWith(".pyc")) continue;
      const abs = join(dir, entry.name);
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymlink) {
        if (!listSymlinks) {
          throw new SkillError("integrity_mismatch", `Skill contains a symlink: ${path}`);
        }
        files.push({ path, abs, size: 0, mtime: 0, link: Deno.readLinkSync(abs) });
        continue;
      }
      if (entry.isDirectory) walk(abs, path);
      else if (entry.isFile) {
        if (files.length >= MAX_FILES) {
          throw new SkillError("io_error", `Skill has more than ${MAX_FILES} files`);
        }
        const info = Deno.statSync(abs);
        if (info.size > MAX_SKILL_FILE_BYTES) {
          throw new SkillError("io_error", `Skill file ${tooLargeMessage(path, info.size)}`);
        }
        files.push({ path, abs, size: info.size, mtime: info.mtime?.getTime() ?? 0 });
      }
    }
  };
  walk(root, "");
  return files;
}

async function hashFile(path: string): Promise<string> {
  return await sha256Hex(Deno.readFileSync(path));
}

/** sha256 of each file, HASH_BATCH at a time. */
async function hashFiles(files: readonly FileStat[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < files.length; i += HASH_BATCH) {
    const batch = files.slice(i, i + HASH_BATCH);
    out.push(...await Promise.all(batch.map((f) => hashFile(f.abs))));
  }
  return out;
}

/**
 * Relative path → sha256 of every file the digest covers (symlinks as `symlink:<target>`);
 * empty when `root` does not exist. Used to summarise what an update changes.
 */
export async function fileHashes(root: string): Promise<Map<string, string>> {
  let files: FileStat[];
  try {
    files = listFiles(root, true);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Map();
    throw error;
  }
  const out = new Map<string, string>();
  for (const f of files) {
    out.set(f.path, f.link !== undefined ? `symlink:${f.link}` : await hashFile(f.abs));
  }
  return out;
}

/** The digest of a directory, computed from scratch. */
export async function computeDigest(root: string): Promise<string> {
  const files = listFiles(root);
  const hashes = await hashFiles(files);
  return await combineDigest(files.map((f, i) => ({ path: f.path, sha256: hashes[i]! })));
}

/**
 * The digest of a directory using a size+mtime cache stored at `cachePath`. Files whose
 * size or mtime changed are re-hashed; the cache is rewritten only when something changed.
 */
export async function cachedDigest(root: string, cachePath: string): Promise<string> {
  const files = listFiles(root);
  let cache: Record<string, CacheEntry> = {};
  let cachedCombined: string | undefined;
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(cachePath));
    if (parsed?.version === CACHE_VERSION && parsed.root === root) {
      cache = parsed.files ?? {};
      if (typeof parsed.digest === "string") cachedCombined = parsed.digest;
    }
  } catch { /* missing or unreadable cache: hash everything */ }
  const next: Record<string, CacheEntry> = {};
  let changed = Object.keys(cache).length !== files.length;
  const hashes: FileHash[] = [];
  for (const f of files) {
    const hit = cache[f.path];
    let sha: string;
    // A file modified within the last 2s may change again within mtime granularity.
    if (hit && hit.size === f.size && hit.mtime === f.mtime && Date.now() - f.mtime > 2000) {
      sha = hit.sha256;
    } else {
      sha = await hashFile(f.abs);
      changed = true;
    }
    next[f.path] = { size: f.size, mtime: f.mtime, sha256: sha };
    hashes.push({ path: f.path, sha256: sha });
  }
  // Nothing changed: the digest combined last time stands (listing a thousand skills then
  // costs their stats, not a thousand more hashes).
  if (!changed && cachedCombined !== undefined) return cachedCombined;
  const digest = await combineDigest(hashes);
  await writeFileAtomic(
    cachePath,
    JSON.stringify({ version: CACHE_VERSION, root, files: next, digest }),
    { durable: false },
  ).catch(() => {}); // a cache that cannot be written only costs time
  return digest;
}
