/**
 * A listing cache for installed skills: each skill's loaded record keyed by the mtimes of
 * its directory, SKILL.md (plus size) and scripts/, so `skills list` over a thousand
 * skills needs three stats per skill instead of reading and parsing every SKILL.md.
 * It only ever speeds up listing: nothing runs because of it. Trust decisions use digests,
 * and a run re-reads the manifest from the verified copy of the skill (trust/snapshot.ts).
 * Paths are never taken from it: the directory is the key, and SKILL.md and scripts are
 * located inside it, so a hand-edited cache can change what a listing says, not what a
 * path points to.
 */

import { join } from "../os/paths.ts";
import type { Diagnostic, Manifest } from "../../core/manifest.ts";
import { VERSION } from "../../core/version.ts";
import { lstatSyncOrNull, writeFileAtomic } from "../os/fs.ts";
import type { SkillRecord } from "./loader.ts";

const CACHE_FORMAT = 2;

interface CachedSkill {
  key: string;
  /** Whether scripts/ existed (its mtime is part of the key). */
  scriptsDir: boolean;
  name: string;
  canonical: string;
  manifest: Manifest;
  /** Script names and file names inside `scripts/`. */
  scripts: { name: string; file: string }[];
  references: string[];
  assets: string[];
  warnings: Diagnostic[];
}

/** A cached record with its paths put back: everything of a SkillRecord but its origin. */
type CachedRecord = Omit<SkillRecord, "origin" | "trusted" | "entry">;

const isString = (value: unknown): value is string => typeof value === "string";
const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);

/** A script file name as the loader finds them: one `.py` name, no path. */
const SCRIPT_FILE = /^[A-Za-z0-9][A-Za-z0-9_-]*\.py$/i;

/** Whether a cache entry has the shape this version writes (the file is only a cache). */
function wellFormed(value: unknown): value is CachedSkill {
  const v = value as Partial<CachedSkill> | null;
  const m = v?.manifest as Partial<Manifest> | undefined;
  return typeof v === "object" && v !== null && isString(v.key) &&
    typeof v.scriptsDir === "boolean" && isString(v.name) && isString(v.canonical) &&
    typeof m === "object" && m !== null && isString(m.name) && isString(m.description) &&
    isStringList(m.toolsets) && isStringList(m.envPatterns) && isStringList(m.scriptsIgnore) &&
    Array.isArray(v.scripts) &&
    v.scripts.every((s) => isString(s?.name) && isString(s?.file) && SCRIPT_FILE.test(s.file)) &&
    isStringList(v.references) && isStringList(v.assets) && Array.isArray(v.warnings);
}

interface CacheFile {
  format: number;
  version: string;
  skills: Record<string, CachedSkill>;
}

function catalogCachePath(home: string): string {
  return join(home, ".cache", "catalog.json");
}

function stamp(info: Deno.FileInfo): string {
  return `${info.mtime?.getTime() ?? 0}:${info.size}`;
}

/** The freshness key of a skill directory, or null when it cannot be computed cheaply. */
function freshnessKey(dir: string, hasScripts: boolean): string | null {
  try {
    const dirInfo = Deno.lstatSync(dir);
    if (!dirInfo.isDirectory) return null;
    const md = Deno.lstatSync(join(dir, "SKILL.md"));
    const parts = [stamp(dirInfo), stamp(md)];
    if (hasScripts) parts.push(stamp(Deno.lstatSync(join(dir, "scripts"))));
    return parts.join("|");
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

  static load(home: string): CatalogCache {
    const path = catalogCachePath(home);
    try {
      const parsed = JSON.parse(Deno.readTextFileSync(path)) as CacheFile;
      if (
        parsed?.format === CACHE_FORMAT && parsed.version === VERSION &&
        typeof parsed.skills === "object" && parsed.skills !== null
      ) {
        return new CatalogCache(path, parsed.skills);
      }
    } catch { /* missing or unreadable: start empty */ }
    return new CatalogCache(path, {});
  }

  /** The cached record for `dir` if it is still fresh, with its paths inside `dir`. */
  get(dir: string): CachedRecord | undefined {
    const cached = this.#entries[dir];
    if (!Object.hasOwn(this.#entries, dir) || !wellFormed(cached)) return undefined;
    const key = freshnessKey(dir, cached.scriptsDir);
    if (key === null || key !== cached.key) return undefined;
    const { name, canonical, manifest, references, assets, warnings } = cached;
    const scripts = cached.scripts.map(({ name, file }) => ({
      name,
      file,
      path: join(dir, "scripts", file),
    }));
    const skillMdPath = join(dir, "SKILL.md");
    return { name, canonical, dir, skillMdPath, manifest, scripts, references, assets, warnings };
  }

  /**
   * Caches a record. `immutable` marks a directory written once and never changed (the
   * content-addressed bundled skills), which may be cached at once.
   */
  set(dir: string, record: SkillRecord, immutable = false): void {
    const scriptsDir = record.scripts.length > 0 ||
      lstatSyncOrNull(join(record.dir, "scripts"))?.isDirectory === true;
    const key = freshnessKey(dir, scriptsDir);
    if (key === null) return;
    // A skill edited within the last two seconds may change again within mtime granularity.
    const newest = Math.max(...key.split("|").map((p) => Number(p.split(":")[0])));
    if (!immutable && Date.now() - newest < 2000) return;
    // Only records whose paths are where get() puts them back (inside the key directory).
    const scriptsPath = join(record.dir, "scripts");
    if (
      record.scripts.some((s) => s.path !== join(scriptsPath, s.file) || !SCRIPT_FILE.test(s.file))
    ) {
      return;
    }
    const { name, canonical, manifest, references, assets, warnings } = record;
    this.#entries[dir] = {
      key,
      scriptsDir,
      name,
      canonical,
      manifest,
      scripts: record.scripts.map(({ name, file }) => ({ name, file })),
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
