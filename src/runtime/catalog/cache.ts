/**
 * A listing cache for installed skills: each skill's loaded record keyed by the stamps of
 * SKILL.md and of every directory of the skill, so `skills list` over a thousand skills
 * needs a few stats per skill instead of reading and parsing every SKILL.md. Adding,
 * removing or renaming a file anywhere changes its directory's stamp, so what the cache
 * returns (scripts, references, assets) is what a cold read returns.
 * It only ever speeds up listing: trust decisions use digests, never this cache.
 */

import { join } from "../os/paths.ts";
import type { Diagnostic, Manifest } from "../../core/manifest.ts";
import { VERSION } from "../../core/version.ts";
import { writeFileAtomic } from "../os/fs.ts";
import type { SkillRecord } from "./loader.ts";

const CACHE_FORMAT = 2;
/** A skill with more directories than this is not cached (its stamps would cost a read). */
const MAX_STAMPED_DIRS = 64;
const MAX_DEPTH = 5;

interface CachedSkill {
  key: string;
  /** The skill's subdirectories (relative), whose stamps are part of the key. */
  dirs: string[];
  dir: string;
  name: string;
  canonical: string;
  skillMdPath: string;
  manifest: Manifest;
  scripts: { name: string; file: string; path: string }[];
  references: string[];
  assets: string[];
  warnings: Diagnostic[];
}

interface CacheFile {
  format: number;
  version: string;
  skills: Record<string, CachedSkill>;
}

function catalogCachePath(home: string, file: string): string {
  return join(home, ".cache", file);
}

function stamp(info: Deno.FileInfo): string {
  return `${info.mtime?.getTime() ?? 0}:${info.size}`;
}

/** The freshness key of a skill directory and its subdirectories `dirs`, or null. */
function freshnessKey(dir: string, dirs: readonly string[]): string | null {
  try {
    const dirInfo = Deno.lstatSync(dir);
    if (!dirInfo.isDirectory) return null;
    const md = Deno.lstatSync(join(dir, "SKILL.md"));
    const parts = [stamp(dirInfo), stamp(md)];
    for (const sub of dirs) {
      const info = Deno.lstatSync(join(dir, sub));
      if (!info.isDirectory) return null;
      parts.push(stamp(info));
    }
    return parts.join("|");
  } catch {
    return null;
  }
}

/** Every subdirectory of a skill (not following symlinks), or null when there are too many. */
function subdirectories(dir: string): string[] | null {
  const found: string[] = [];
  const walk = (rel: string, depth: number): boolean => {
    for (const entry of Deno.readDirSync(rel === "" ? dir : join(dir, rel))) {
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

export class CatalogCache {
  #entries: Record<string, CachedSkill>;
  #dirty = false;
  readonly path: string;

  private constructor(path: string, entries: Record<string, CachedSkill>) {
    this.path = path;
    this.#entries = entries;
  }

  /** `file`: one cache per listing (the user scope's, or one per project root). */
  static load(home: string, file = "catalog.json"): CatalogCache {
    const path = catalogCachePath(home, file);
    try {
      const parsed = JSON.parse(Deno.readTextFileSync(path)) as CacheFile;
      if (parsed.format === CACHE_FORMAT && parsed.version === VERSION && parsed.skills) {
        return new CatalogCache(path, parsed.skills);
      }
    } catch { /* missing or unreadable: start empty */ }
    return new CatalogCache(path, {});
  }

  /** The cached record for `dir` if it is still fresh. */
  get(dir: string): CachedSkill | undefined {
    const cached = this.#entries[dir];
    if (cached === undefined) return undefined;
    const key = freshnessKey(dir, cached.dirs);
    return key !== null && key === cached.key ? cached : undefined;
  }

  /**
   * Caches a record. `immutable` marks a directory written once and never changed (the
   * content-addressed bundled skills), which may be cached at once.
   */
  set(dir: string, record: SkillRecord, immutable = false): void {
    const dirs = subdirectories(dir);
    if (dirs === null) return;
    const key = freshnessKey(dir, dirs);
    if (key === null) return;
    // A skill edited within the last two seconds may change again within mtime granularity.
    const newest = Math.max(...key.split("|").map((p) => Number(p.split(":")[0])));
    if (!immutable && Date.now() - newest < 2000) return;
    const { name, canonical, skillMdPath, manifest, scripts, references, assets, warnings } =
      record;
    this.#entries[dir] = {
      key,
      dirs,
      dir: record.dir,
      name,
      canonical,
      skillMdPath,
      manifest,
      scripts,
      references,
      assets,
      warnings,
    };
    this.#dirty = true;
  }

  /** Drops entries for directories no longer listed, then writes if anything changed. */
  async save(keep: ReadonlySet<string>): Promise<void> {
    for (const dir of Object.keys(this.#entries)) {
      if (!keep.has(dir)) {
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
