/**
 * A listing cache for installed skills: each skill's loaded record keyed by the stamps of
 * its manifest and of every directory of the skill (plus the few other files the loader
 * reads), so `skills list` over a thousand skills needs a few stats per skill instead of
 * reading and parsing every SKILL.md. Adding, removing or renaming a file anywhere changes
 * its directory's stamp, so what the cache returns (scripts, references, assets, other
 * files) is what a cold read returns.
 * It only ever speeds up listing: nothing runs because of it. Trust decisions use digests,
 * and a run re-reads the manifest from the verified copy of the skill (trust/snapshot.ts).
 * Paths are never taken from it: the directory is the key, and SKILL.md and scripts are
 * located inside it, so a hand-edited cache can change what a listing says, not what a
 * path points to.
 */

import { LANGUAGES, type ScriptLanguage } from "../../core/scripts/script_language.ts";
import { join, SEP } from "../os/paths.ts";
import type { Diagnostic, Manifest } from "../../core/manifest/manifest.ts";
import { VERSION } from "../../core/version.ts";
import { MANIFEST_FILES } from "../../core/manifest/limits.ts";
import { liteStat, lstatLite, lstatSyncOrNull, type StatLite, writeFileAtomic } from "../os/fs.ts";
import { dirEntries, keepingDirReads, takeStat } from "./dir_reads.ts";
import { CODEX_AGENT_FILE } from "./load_terms.ts";
import type { LoadedSkill } from "./loader.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";

/**
 * 6: resource folders and other files listed 16 folders deep (was 4 and 8); 7: the Python
 * modules of a package below `scripts/` are not scripts (runtime/catalog/contents.ts); 8: a
 * description without the line break a YAML block scalar ends with, and `requires: {mcp}` read
 * (core/manifest); 9: `when_to_use` read (core/manifest/agent_fields.ts).
 */
const CACHE_FORMAT = 9;
/** A skill with more directories than this is not cached (its stamps would cost a read). */
const MAX_STAMPED_DIRS = 64;
const MAX_DEPTH = 5;
/** The manifest's file names the loader accepts. */
const MANIFEST_NAMES = new Set(MANIFEST_FILES);

interface CachedSkill {
  key: string;
  /** The skill's subdirectories (relative), whose stamps are part of the key. */
  dirs: string[];
  /** Files read besides the manifest (relative; e.g. agents/openai.yaml), also stamped. */
  stamped: string[];
  /** SKILL.md, or the skill.md some published skills use. */
  manifestFile: string;
  name: string;
  canonical: string;
  manifest: Manifest;
  /** Script names, paths inside `scripts/` and languages. */
  scripts: { name: string; file: string; language: ScriptLanguage }[];
  references: string[];
  assets: string[];
  files: string[];
  warnings: Diagnostic[];
}

/** A cached record with its paths put back: everything of a LoadedSkill but its origin. */
type RestoredSkill = Omit<LoadedSkill, "origin" | "trusted" | "entry" | "scope" | "project">;

const isString = (value: unknown): value is string => typeof value === "string";
const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);
/** What a relative path inside the skill never holds: empty, absolute, `..`, a backslash. */
const NOT_INSIDE = /^$|^\/|\/\/|\/$|\\|(?:^|\/)\.\.(?:\/|$)/;
/** A relative path inside the skill (one regex: a listing checks thousands of them). */
const isInside = (path: string) => !NOT_INSIDE.test(path);

/** A path inside `scripts/`: typeable parts, no `..`, at most a few folders deep. */
const SCRIPT_FILE =
  /^(?:[A-Za-z0-9][A-Za-z0-9_-]*\/){0,4}[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z]+)?$/;

/** Whether a cache entry has the shape this version writes (the file is only a cache). */
function wellFormed(value: unknown): value is CachedSkill {
  const v = value as Partial<CachedSkill> | null;
  const m = v?.manifest as Partial<Manifest> | undefined;
  return typeof v === "object" && v !== null && isString(v.key) &&
    isStringList(v.dirs) && v.dirs.every(isInside) &&
    isStringList(v.stamped) && v.stamped.every(isInside) &&
    isString(v.manifestFile) && MANIFEST_NAMES.has(v.manifestFile) &&
    isString(v.name) && isString(v.canonical) &&
    typeof m === "object" && m !== null && isString(m.name) && isString(m.description) &&
    isStringList(m.toolsets) && isStringList(m.envPatterns) && isStringList(m.scriptsIgnore) &&
    Array.isArray(v.scripts) &&
    v.scripts.every((s) =>
      isString(s?.name) && isString(s?.file) && SCRIPT_FILE.test(s.file) &&
      Object.hasOwn(LANGUAGES, s?.language)
    ) &&
    isStringList(v.references) && isStringList(v.assets) && isStringList(v.files) &&
    Array.isArray(v.warnings);
}

interface CacheFile {
  format: number;
  version: string;
  skills: Record<string, CachedSkill>;
}

function catalogCachePath(home: string, file: string): string {
  return join(home, ".cache", file);
}

/** What a normal absolute POSIX path never holds: an empty, `.` or `..` part, a trailing `/`. */
const NOT_NORMAL = /\/\.{0,2}(?:\/|$)/;

/**
 * `join(dir, …)` of relative paths already checked clean (isInside, SCRIPT_FILE, a manifest
 * name): plain concatenation when `dir` is itself normal, as installed paths are, since a
 * listing of a thousand skills joins thousands of paths. The same strings `join` makes.
 */
function pathsUnder(dir: string): (rel: string) => string {
  if (SEP === "/" && dir.startsWith("/") && dir.length > 1 && !NOT_NORMAL.test(dir)) {
    return (rel) => `${dir}/${rel}`;
  }
  return (rel) => join(dir, ...rel.split("/"));
}

function stamp(info: StatLite): string {
  return `${info.mtime}:${info.size}`;
}

/** The freshness key of a skill directory, its manifest, subdirectories and extra files. */
function freshnessKey(
  dir: string,
  manifestFile: string,
  dirs: readonly string[],
  stamped: readonly string[],
  lstat: (path: string) => StatLite = lstatLite,
): string | null {
  try {
    const dirInfo = lstat(dir);
    if (!dirInfo.isDirectory) return null;
    const under = pathsUnder(dir);
    const parts = [stamp(dirInfo), stamp(lstat(under(manifestFile)))];
    for (const sub of dirs) {
      const info = lstat(under(sub));
      if (!info.isDirectory) return null;
      parts.push(stamp(info));
    }
    for (const file of stamped) parts.push(stamp(lstat(under(file))));
    return parts.join("|");
  } catch {
    return null;
  }
}

/** Every subdirectory of a skill (not following symlinks), or null when there are too many. */
function subdirectories(dir: string): string[] | null {
  const found: string[] = [];
  const walk = (rel: string, depth: number): boolean => {
    for (const entry of dirEntries(rel === "" ? dir : join(dir, rel))) {
      if (!entry.isDirectory) continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (found.push(path) > MAX_STAMPED_DIRS || depth >= MAX_DEPTH) return false;
      if (!walk(path, depth + 1)) return false;
    }
    return true;
  };
  try {
    return walk("", 1) ? found : null;
  } catch {
    return null;
  }
}

/** An lstat that keeps what it saw (`stat`: where it comes from). */
function recorder(
  seen: [string, StatLite][],
  stat: (path: string) => StatLite = lstatLite,
): (path: string) => StatLite {
  return (path) => {
    const info = stat(path);
    seen.push([path, info]);
    return info;
  };
}

export class CatalogCache {
  #entries: Record<string, CachedSkill>;
  #dirty = false;
  /** Directories whose record came from their registry entry's listing summary. */
  readonly #fromSummary = new Set<string>();
  /** What fresh lookups stat'ed, by path: the listing's digest check stats the same paths. */
  readonly stats = new Map<string, StatLite>();
  /** Whether {@link stats} is filled (a listing whose digest check reuses them). */
  readonly #keepStats: boolean;
  readonly path: string;

  private constructor(path: string, entries: Record<string, CachedSkill>, keepStats: boolean) {
    this.path = path;
    this.#entries = entries;
    this.#keepStats = keepStats;
  }

  /**
   * `file`: one cache per listing (the user scope's, or one per project root). `keepStats`:
   * off where no digest check follows from them (the project scope: a thousand skills' stats
   * kept alive to the end of the command only cost the garbage collector).
   */
  static load(home: string, file = "catalog.json", keepStats = true): CatalogCache {
    const path = catalogCachePath(home, file);
    try {
      const parsed = JSON.parse(Deno.readTextFileSync(path)) as CacheFile;
      if (
        parsed?.format === CACHE_FORMAT && parsed.version === VERSION &&
        typeof parsed.skills === "object" && parsed.skills !== null
      ) {
        return new CatalogCache(path, parsed.skills, keepStats);
      }
    } catch { /* missing or unreadable: start empty */ }
    return new CatalogCache(path, {}, keepStats);
  }

  /**
   * The record for `dir` if it is still fresh, with its paths inside `dir`: from `summary`
   * (the listing summary install recorded in the skill's registry entry: see
   * {@link withListingSummary}) when it is one, else from this cache.
   */
  get(dir: string, summary?: unknown): RestoredSkill | undefined {
    const recorded = summaryEntry(summary);
    if (recorded !== undefined) {
      const record = this.#fresh(dir, recorded);
      if (record !== undefined) {
        this.#fromSummary.add(dir);
        return record;
      }
    }
    if (!Object.hasOwn(this.#entries, dir)) return undefined;
    return this.#fresh(dir, this.#entries[dir]);
  }

  #fresh(dir: string, cached: unknown): RestoredSkill | undefined {
    if (!wellFormed(cached)) return undefined;
    // Every stat is kept, fresh or not: the digest check of this listing takes the same paths.
    const stats = this.stats;
    const lstat = this.#keepStats
      ? (path: string) => {
        const info = stats.get(path) ?? lstatLite(path);
        stats.set(path, info);
        return info;
      }
      : lstatLite;
    const key = freshnessKey(dir, cached.manifestFile, cached.dirs, cached.stamped, lstat);
    if (key === null || key !== cached.key) return undefined;
    const { name, canonical, manifest, references, assets, files, warnings } = cached;
    const under = pathsUnder(dir);
    const scripts = cached.scripts.map(({ name, file, language }) => ({
      name,
      file,
      path: under(`scripts/${file}`),
      language,
    }));
    const skillMdPath = under(cached.manifestFile);
    return {
      name,
      canonical,
      dir,
      skillMdPath,
      manifest,
      scripts,
      references,
      assets,
      files,
      warnings,
    };
  }

  /**
   * Caches a record. `immutable` marks a directory written once and never changed (the
   * content-addressed bundled skills), which may be cached at once.
   */
  set(dir: string, record: LoadedSkill, immutable = false): void {
    const entry = cacheEntry(dir, record, this.stats, immutable);
    if (entry === undefined) return;
    this.#entries[dir] = entry;
    this.#dirty = true;
  }

  /** Drops entries for directories no longer listed, then writes if anything changed. */
  async save(keep: ReadonlySet<string>): Promise<void> {
    for (const dir of Object.keys(this.#entries)) {
      // A skill whose registry entry holds a fresh summary needs no copy here.
      if (!keep.has(dir) || this.#fromSummary.has(dir)) {
        delete this.#entries[dir];
        this.#dirty = true;
      }
    }
    if (!this.#dirty) return;
    const file: CacheFile = { format: CACHE_FORMAT, version: VERSION, skills: this.#entries };
    try {
      await Deno.mkdir(join(this.path, ".."), { recursive: true });
      await writeFileAtomic(this.path, JSON.stringify(file), { durable: false });
    } catch { /* a cache that cannot be written only costs time */ }
  }
}

/**
 * A cache entry for `record` (loaded from `dir`), or undefined when it cannot be cached:
 * too many folders, paths elsewhere, or changed within the last two seconds (unless
 * `immutable`). `stats`: where the stats of its key are kept.
 */
function cacheEntry(
  dir: string,
  record: LoadedSkill,
  stats: Map<string, StatLite>,
  immutable: boolean,
): CachedSkill | undefined {
  const manifestFile = record.skillMdPath.split(/[\\/]/).pop() ?? "";
  if (!MANIFEST_NAMES.has(manifestFile)) return;
  const dirs = subdirectories(dir);
  if (dirs === null) return;
  // Only where agents/ exists: a stat of a missing file costs an error object.
  const stamped = dirs.includes(CODEX_AGENT_FILE.split("/")[0]!) &&
      lstatSyncOrNull(join(dir, CODEX_AGENT_FILE))?.isFile
    ? [CODEX_AGENT_FILE]
    : [];
  // An extension-less script is one by its `#!` line: an edit there must be seen.
  for (const script of record.scripts) {
    if (!script.file.split("/").pop()!.includes(".")) stamped.push(`scripts/${script.file}`);
  }
  const seen: [string, StatLite][] = [];
  // The loader's stats of the folder and manifest, taken before it read them.
  const key = freshnessKey(
    dir,
    manifestFile,
    dirs,
    stamped,
    recorder(seen, (path) => liteStat(takeStat(path))),
  );
  if (key === null) return;
  for (const [path, info] of seen) stats.set(path, info);
  // A skill edited within the last two seconds may change again within mtime granularity.
  const newest = Math.max(...key.split("|").map((p) => Number(p.split(":")[0])));
  if (!immutable && Date.now() - newest < 2000) return;
  // Only records whose paths are where get() puts them back (inside the key directory).
  const scriptsPath = join(record.dir, "scripts");
  if (
    record.scripts.some((s) =>
      s.path !== join(scriptsPath, ...s.file.split("/")) || !SCRIPT_FILE.test(s.file)
    )
  ) {
    return;
  }
  const { name, canonical, manifest, references, assets, files, warnings } = record;
  return {
    key,
    dirs,
    stamped,
    manifestFile,
    name,
    canonical,
    manifest,
    scripts: record.scripts.map(({ name, file, language }) => ({ name, file, language })),
    references,
    assets,
    files,
    warnings,
  };
}

/**
 * The listing summary of an installed skill, kept in its registry entry (`listing`, a JSON
 * string): what this cache keeps for it, under the same freshness key, written by this
 * version. Read back by {@link CatalogCache.get} before the cache, so that a listing with
 * no cache (cleared, or never written) reads no SKILL.md of a skill left as installed. Like
 * the cache it only ever speeds up listing: a stale one (any stamp changed) is ignored.
 */
function summaryEntry(summary: unknown): CachedSkill | undefined {
  if (typeof summary !== "string") return undefined;
  try {
    const parsed = JSON.parse(summary);
    if (parsed?.format !== CACHE_FORMAT || parsed.version !== VERSION) return undefined;
    return parsed.skill;
  } catch {
    return undefined;
  }
}

/** How far back {@link withListingSummary} dates a freshly written skill's stamped paths. */
const SETTLED_AGE_MS = 3000;

/**
 * `entry` with the listing summary of the skill it installs (`installed_path`, in place
 * under `home`), for the registry; without one when the skill cannot be summarised (it
 * then loads as before). Called once per installed or updated skill as it is recorded.
 *
 * A summary is keyed by mtimes, and a change within the clock tick of the key would keep
 * the key: the cache therefore takes no skill changed in the last two seconds, which at
 * install is every skill. So the key's own paths (the folder, each subfolder, the manifest,
 * the extra stamped files) are first dated back a few seconds when newer: any later change
 * to them then moves the key. Symlinks are never touched (an installed skill holds none).
 */
export async function withListingSummary(
  entry: RegistryEntry,
  home: string,
): Promise<RegistryEntry> {
  const { listing: _stale, ...plain } = entry;
  try {
    const dir = entry.installed_path;
    settleStamps(dir);
    // Loaded here, not with this module: a listing from the cache never reads a skill.
    const { loadSkillDir } = await import("./loader.ts");
    const record = await keepingDirReads(() =>
      loadSkillDir(dir, realHome(home), {
        origin: entry.source.type,
        trusted: entry.trusted && entry.trusted_digest !== null,
        entry,
        rootIsReal: true,
      })
    );
    if (record.name !== entry.name || record.canonical !== entry.name_canonical) return plain;
    const skill = cacheEntry(dir, record, new Map(), false);
    if (skill === undefined) return plain;
    return { ...plain, listing: JSON.stringify({ format: CACHE_FORMAT, version: VERSION, skill }) };
  } catch {
    return plain;
  }
}

const realHomes = new Map<string, string>();

/** `home` resolved once per process (an install of a thousand skills asks a thousand times). */
function realHome(home: string): string {
  let real = realHomes.get(home);
  if (real === undefined) realHomes.set(home, real = Deno.realPathSync(home));
  return real;
}

/** Dates back (see {@link withListingSummary}) what a listing key of `dir` may stamp. */
function settleStamps(dir: string): void {
  const settled = Date.now() - SETTLED_AGE_MS;
  const settle = (path: string) => {
    const info = Deno.lstatSync(path);
    if ((info.isFile || info.isDirectory) && (info.mtime?.getTime() ?? 0) > settled) {
      Deno.utimeSync(path, info.atime ?? new Date(), new Date(settled));
    }
  };
  // One walk, by the entries' own types (no stat of a missing file: each costs an error).
  let folders = 0;
  const walk = (abs: string, rel: string, depth: number) => {
    for (const entry of Deno.readDirSync(abs)) {
      const path = join(abs, entry.name);
      const sub = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) {
        // Past the cache's bounds no summary is kept: nothing more to date.
        if (++folders > MAX_STAMPED_DIRS || depth >= MAX_DEPTH) return;
        walk(path, sub, depth + 1);
        settle(path);
      } else if (entry.isFile && isStamped(sub)) settle(path);
    }
  };
  walk(dir, "", 1);
  settle(dir);
}

/** A file a listing key may stamp: the manifest, the agents file, an extension-less script. */
function isStamped(rel: string): boolean {
  return MANIFEST_NAMES.has(rel) || rel === CODEX_AGENT_FILE ||
    (rel.startsWith("scripts/") && !rel.slice(rel.lastIndexOf("/") + 1).includes("."));
}
