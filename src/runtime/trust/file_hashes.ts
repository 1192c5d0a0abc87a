/**
 * A skill directory's digest: every file it holds, nothing excluded (Python bytecode,
 * `__pycache__/` and `node_modules/` run too, so they are covered). Verifying before every
 * run stays cheap through a cache keyed by what a user cannot put back: each file's device,
 * inode, size and change time (ctime moves on every write, chmod, rename and `touch -d`;
 * only the clock can turn it back). A file is re-hashed when any of these differ.
 * Directories are keyed the same way: adding, removing or renaming an entry moves its
 * directory's ctime, so while every directory's key holds, the files are the ones the cache
 * lists and a check stats them without reading any directory (`list` of a thousand skills).
 */

import { join } from "../os/paths.ts";
import { combineDigest, type FileHash, sha256Hex } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES, tooLargeMessage } from "../../core/manifest/limits.ts";
import { lstatLite, type StatLite, writeFileAtomic } from "../os/fs.ts";

const MAX_FILES = 20_000;
const CACHE_VERSION = 3;
/**
 * A hash is reused only for a file whose ctime was this much older than the moment it was
 * hashed: a change within the timestamp granularity could otherwise keep the same ctime.
 */
const SETTLE_MS = 2_000;

interface CacheEntry {
  /** `dev:ino:size:ctime:mtime` when the file was hashed. */
  key: string;
  sha256: string;
}

/** A directory of the skill ("" for its root) and its stat key when the files were listed. */
interface DirStat {
  path: string;
  key: string | null;
  /** Its ctime was SETTLE_MS old when it was read (its key may stand for its entries). */
  settled: boolean;
}

interface FileStat {
  /** Relative path with `/` separators. */
  path: string;
  abs: string;
  size: number;
  /** The fast path's key, or null when the platform gives no inode or ctime. */
  key: string | null;
  /** ctime in ms (0 when unknown). */
  ctime: number;
  /** Permission bits (0 when unknown). */
  mode: number;
  /** Set for a symlink when `listSymlinks` is on: its target. */
  link?: string;
}

/** Files hashed at once: digests run in parallel, memory stays bounded. */
const HASH_BATCH = 16;

/** {@link statKey} of a {@link StatLite}: the same string. */
function liteKey(info: StatLite): string | null {
  if (info.ino === null || info.ctime === null) return null;
  return `${info.dev}:${info.ino}:${info.size}:${info.ctime}:${info.mtime}`;
}

function statKey(info: Deno.FileInfo): string | null {
  if (info.ino === null || info.ctime === null) return null;
  return `${info.dev}:${info.ino}:${info.size}:${info.ctime.getTime()}:${
    info.mtime?.getTime() ?? 0
  }`;
}

/**
 * Every file of a skill (a skill holds no `.git`: installs never write one). A symlink is
 * an integrity error, unless `listSymlinks` reports it (for change summaries). Synchronous:
 * a skill is mostly a few small files, and this runs before every `skills run`.
 */
export function listFiles(root: string, listSymlinks = false, dirs?: DirStat[]): FileStat[] {
  const files: FileStat[] = [];
  const walk = (dir: string, rel: string) => {
    if (dirs !== undefined) {
      // Stat before reading: an entry added meanwhile moves the ctime past this key.
      const info = Deno.lstatSync(dir);
      const ctime = info.ctime?.getTime() ?? 0;
      dirs.push({ path: rel, key: statKey(info), settled: Date.now() - ctime >= SETTLE_MS });
    }
    for (const entry of Deno.readDirSync(dir)) {
      const abs = join(dir, entry.name);
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymlink) {
        if (!listSymlinks) {
          throw new SkillError("integrity_mismatch", `Skill contains a symlink: ${path}`);
        }
        files.push({
          path,
          abs,
          size: 0,
          key: null,
          ctime: 0,
          mode: 0,
          link: Deno.readLinkSync(abs),
        });
        continue;
      }
      if (entry.isDirectory) walk(abs, path);
      else if (entry.isFile) {
        if (files.length >= MAX_FILES) {
          throw new SkillError("io_error", `Skill has more than ${MAX_FILES} files`);
        }
        const info = Deno.lstatSync(abs);
        if (info.size > MAX_SKILL_FILE_BYTES) {
          throw new SkillError("io_error", `Skill file ${tooLargeMessage(path, info.size)}`);
        }
        const ctime = info.ctime?.getTime() ?? 0;
        files.push({ path, abs, size: info.size, key: statKey(info), ctime, mode: info.mode ?? 0 });
      } else {
        // A FIFO, socket or device inside a skill: nothing an install writes.
        throw new SkillError("integrity_mismatch", `Skill contains a special file: ${path}`);
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
 * What versions before 0.2 left out of a digest: VCS data, Python caches and bytecode,
 * node_modules. Trust recorded under that rule still matches a skill without such files;
 * for one with them, {@link uncoveredFiles} says what the old trust never covered.
 */
function legacyExcluded(path: string): boolean {
  const parts = path.split("/");
  const skipDirs = [".git", "__pycache__", "node_modules", ".pytest_cache"];
  return parts.slice(0, -1).some((p) => skipDirs.includes(p)) || path.endsWith(".pyc");
}

/**
 * When `trustedDigest` was recorded under the pre-0.2 rule and the files it covered are
 * unchanged: the files that rule left out (bytecode, caches). Else undefined.
 */
export async function uncoveredFiles(
  root: string,
  trustedDigest: string,
): Promise<string[] | undefined> {
  const files = listFiles(root);
  const covered = files.filter((f) => !legacyExcluded(f.path));
  if (covered.length === files.length) return undefined;
  const hashes = await hashFiles(covered);
  const legacy = await combineDigest(covered.map((f, i) => ({ path: f.path, sha256: hashes[i]! })));
  if (legacy !== trustedDigest) return undefined;
  return files.filter((f) => legacyExcluded(f.path)).map((f) => f.path);
}

/**
 * A digest with the stat keys of every directory and file it covers, when they may stand
 * for it (every file hashed long enough after its last change, every directory settled):
 * while each key holds, the digest holds.
 */
interface DigestTree {
  digest: string;
  dirs: Record<string, string>;
  files: Record<string, string>;
}

/**
 * The digest of a directory using the stat-keyed cache stored at `cachePath`. Files whose
 * device, inode, size, ctime or mtime changed are re-hashed; the cache is rewritten only
 * when something changed.
 */
export async function cachedDigest(root: string, cachePath: string): Promise<string> {
  return (await checkedDigest(root, cachePath)).digest;
}

/** A file a digest check read and hashed: its bytes, kept for the verified copy. */
export interface ReadFile {
  /** Relative path with `/` separators. */
  path: string;
  /** Permission bits when it was listed (0 when unknown). */
  mode: number;
  bytes: Uint8Array;
  sha256: string;
}

/** Kept bytes stop here: a larger skill is read again by the copy, file by file. */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;

/**
 * {@link cachedDigest}, and when it had to read every file (no cache yet: the first run
 * after an install), the bytes it hashed, in listing order: the verified copy is written
 * from them instead of reading the skill a second time (the bytes hashed are the bytes
 * written either way).
 */
export async function digestReading(
  root: string,
  cachePath: string,
): Promise<{ digest: string; read?: ReadFile[]; hashOf: HashOf }> {
  const { digest, read, hashOf } = await checkedDigest(root, cachePath, true);
  return read === undefined ? { digest, hashOf } : { digest, read, hashOf };
}

/** What a digest cache file holds for `root`: empty when missing, unreadable or another root's. */
function readDigestCache(root: string, cachePath: string): {
  cache: Record<string, CacheEntry>;
  cachedCombined?: string;
  cachedDirs?: Record<string, string>;
} {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(cachePath));
    if (parsed?.version === CACHE_VERSION && parsed.root === root) {
      return {
        cache: parsed.files ?? {},
        ...typeof parsed.digest === "string" ? { cachedCombined: parsed.digest } : {},
        ...typeof parsed.dirs === "object" && parsed.dirs !== null
          ? { cachedDirs: parsed.dirs }
          : {},
      };
    }
  } catch { /* missing or unreadable cache: hash everything */ }
  return { cache: {} };
}

const fileKeys = (entries: Record<string, CacheEntry>) =>
  Object.fromEntries(Object.entries(entries).map(([path, entry]) => [path, entry?.key]));

/** The digest the cache holds, when every folder and file of `root` keeps its cached key. */
function fromStats(
  root: string,
  { cache, cachedCombined, cachedDirs }: ReturnType<typeof readDigestCache>,
): { digest: string; tree: DigestTree; hashOf: HashOf } | undefined {
  if (cachedCombined === undefined || cachedDirs === undefined) return undefined;
  const files = fileKeys(cache);
  if (!unchangedTree(root, cachedDirs, files)) return undefined;
  return {
    digest: cachedCombined,
    tree: { digest: cachedCombined, dirs: cachedDirs, files },
    hashOf: (path) => Object.hasOwn(cache, path) ? cache[path]?.sha256 : undefined,
  };
}

/** The SHA-256 (hex) a digest check found for one file (relative path, `/`), if it holds one. */
export type HashOf = (path: string) => string | undefined;

/** {@link cachedDigest}, with the tree's keys when they may stand for the digest. */
async function checkedDigest(
  root: string,
  cachePath: string,
  keepBytes = false,
): Promise<{ digest: string; tree?: DigestTree; read?: ReadFile[]; hashOf: HashOf }> {
  const cached = readDigestCache(root, cachePath);
  const unchanged = fromStats(root, cached);
  if (unchanged !== undefined) return unchanged;
  const { cache, cachedCombined } = cached;
  const dirs: DirStat[] = [];
  const files = listFiles(root, false, dirs);
  const next: Record<string, CacheEntry> = {};
  let changed = Object.keys(cache).length !== files.length;
  const hashes: FileHash[] = [];
  let read: ReadFile[] | undefined = keepBytes ? [] : undefined;
  let keptBytes = 0;
  for (const f of files) {
    const hit = cache[f.path];
    let sha: string;
    if (hit !== undefined && f.key !== null && hit.key === f.key) {
      sha = hit.sha256;
      read = undefined; // not every file read: the copy reads them itself
    } else {
      const hashedAt = Date.now();
      const bytes = Deno.readFileSync(f.abs);
      sha = await sha256Hex(bytes);
      keptBytes += bytes.length;
      if (keptBytes > MAX_KEPT_BYTES) read = undefined;
      read?.push({ path: f.path, mode: f.mode, bytes, sha256: sha });
      changed = true;
      if (f.key === null || hashedAt - f.ctime < SETTLE_MS) {
        // Not reusable: the next check hashes this file again.
        hashes.push({ path: f.path, sha256: sha });
        continue;
      }
    }
    next[f.path] = { key: f.key!, sha256: sha };
    hashes.push({ path: f.path, sha256: sha });
  }
  const complete = Object.keys(next).length === files.length;
  // Directory keys only when each had settled: a change within the timestamp granularity
  // could otherwise keep a directory's ctime while its entries change.
  const settled = dirs.every((d) => d.key !== null && d.settled);
  const dirKeys = complete && settled
    ? Object.fromEntries(dirs.map((d) => [d.path, d.key!]))
    : undefined;
  const hashOf: HashOf = (path) => hashes.find((hash) => hash.path === path)?.sha256;
  const treeOf = (digest: string) => ({
    digest,
    hashOf,
    ...dirKeys === undefined ? {} : { tree: { digest, dirs: dirKeys, files: fileKeys(next) } },
    ...read === undefined ? {} : { read },
  });
  // Nothing changed: the digest combined last time stands (listing a thousand skills then
  // costs their stats, not a thousand more hashes).
  if (!changed && cachedCombined !== undefined) return treeOf(cachedCombined);
  const digest = await combineDigest(hashes);
  // Every file too fresh to be trusted by its stat (a skill just installed) and no cache
  // yet: a cache would hold nothing the next check could use, so none is written.
  if (Object.keys(next).length === 0 && Object.keys(cache).length === 0) return treeOf(digest);
  await writeFileAtomic(
    cachePath,
    JSON.stringify({
      version: CACHE_VERSION,
      root,
      files: next,
      ...complete ? { digest } : {},
      ...dirKeys === undefined ? {} : { dirs: dirKeys },
    }),
    { durable: false },
  ).catch(() => {}); // a cache that cannot be written only costs time
  return treeOf(digest);
}

const INDEX_VERSION = 1;

/**
 * Many skills' digests with their trees' stat keys in one file, for listings: `list` of a
 * thousand skills reads this one file instead of a thousand digest caches. Nothing is
 * trusted because of it: an entry stands only while every directory and file of the tree
 * keeps the key it had when it was hashed (the same rule as {@link cachedDigest}), and a
 * run still checks the skill's own cache (trust/snapshot.ts).
 */
export class DigestIndex {
  #entries: Record<string, DigestTree>;
  #seen = new Set<string>();
  #dirty = false;
  readonly path: string;

  private constructor(path: string, entries: Record<string, DigestTree>) {
    this.path = path;
    this.#entries = entries;
  }

  static load(path: string): DigestIndex {
    try {
      const parsed = JSON.parse(Deno.readTextFileSync(path));
      if (
        parsed?.version === INDEX_VERSION && typeof parsed.roots === "object" &&
        parsed.roots !== null
      ) {
        return new DigestIndex(path, parsed.roots);
      }
    } catch { /* missing or unreadable: start empty */ }
    return new DigestIndex(path, {});
  }

  /**
   * The digest of `root` when its tree still has the recorded keys, by stats alone; `stats`
   * are ones this listing already took (by path), reused instead of taken again.
   */
  digestOf(root: string, stats?: ReadonlyMap<string, StatLite>): string | undefined {
    this.#seen.add(root);
    if (!Object.hasOwn(this.#entries, root)) return undefined;
    const entry = this.#entries[root];
    if (
      typeof entry?.digest !== "string" || typeof entry.dirs !== "object" ||
      entry.dirs === null || typeof entry.files !== "object" || entry.files === null
    ) {
      return undefined;
    }
    return unchangedTree(root, entry.dirs, entry.files, stats) ? entry.digest : undefined;
  }

  /** {@link checkedDigest}, remembering the tree when its keys may stand for the digest. */
  async check(root: string, cachePath: string): Promise<string> {
    this.#seen.add(root);
    const { digest, tree } = await checkedDigest(root, cachePath);
    if (tree !== undefined) this.#entries[root] = tree;
    else if (Object.hasOwn(this.#entries, root)) delete this.#entries[root];
    else return digest;
    this.#dirty = true;
    return digest;
  }

  /** Writes the index if anything changed, dropping roots that no longer exist. */
  async save(): Promise<void> {
    for (const root of Object.keys(this.#entries)) {
      if (this.#seen.has(root)) continue;
      try {
        Deno.lstatSync(root);
      } catch {
        delete this.#entries[root];
        this.#dirty = true;
      }
    }
    if (!this.#dirty) return;
    await writeFileAtomic(
      this.path,
      JSON.stringify({ version: INDEX_VERSION, roots: this.#entries }),
      { durable: false },
    ).catch(() => {}); // an index that cannot be written only costs time
  }
}

/**
 * Whether the tree under `root` is still exactly what the cache describes, by stats alone:
 * every directory with its key (so no entry was added, removed or renamed in any of them),
 * every cached file a regular file with its key. Any doubt answers no (a full check follows).
 */
function unchangedTree(
  root: string,
  dirs: Record<string, string>,
  files: Record<string, string | undefined>,
  stats?: ReadonlyMap<string, StatLite>,
): boolean {
  const lstat = (path: string) => stats?.get(path) ?? lstatLite(path);
  try {
    if (!Object.hasOwn(dirs, "")) return false;
    // Paths by concatenation: each part was checked (isRelative), and `join` over a
    // thousand skills' files is measurable in `list`.
    const sep = Deno.build.os === "windows" ? "\\" : "/";
    const under = (path: string) =>
      `${root}${sep}${sep === "/" ? path : path.replaceAll("/", sep)}`;
    for (const [path, key] of Object.entries(dirs)) {
      if (typeof key !== "string" || !isRelative(path, true)) return false;
      const info = lstat(path === "" ? root : under(path));
      if (!info.isDirectory || liteKey(info) !== key) return false;
    }
    for (const [path, key] of Object.entries(files)) {
      if (typeof key !== "string" || !isRelative(path, false)) return false;
      const info = lstat(under(path));
      if (!info.isFile || liteKey(info) !== key) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** An empty, `.` or `..` part (a leading or trailing `/` makes an empty one). */
const NOT_A_PART = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** A cache's relative path: no absolute path, no `.` or `..`, no empty part. */
function isRelative(path: string, rootAllowed: boolean): boolean {
  if (path === "") return rootAllowed;
  return !path.includes("\\") && !NOT_A_PART.test(path);
}
