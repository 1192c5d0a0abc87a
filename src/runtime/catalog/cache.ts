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
import { join } from "../os/paths.ts";
import type { Diagnostic, Manifest } from "../../core/manifest/manifest.ts";
import { VERSION } from "../../core/version.ts";
import { lstatSyncOrNull, writeFileAtomic } from "../os/fs.ts";
import { CODEX_AGENT_FILE, type SkillRecord } from "./loader.ts";

const CACHE_FORMAT = 5;
/** A skill with more directories than this is not cached (its stamps would cost a read). */
const MAX_STAMPED_DIRS = 64;
const MAX_DEPTH = 5;
/** The manifest's file names the loader accepts. */
const MANIFEST_NAMES = new Set(["SKILL.md", "skill.md"]);

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

/** A cached record with its paths put back: everything of a SkillRecord but its origin. */
type CachedRecord = Omit<SkillRecord, "origin" | "trusted" | "entry" | "scope" | "project">;

const isString = (value: unknown): value is string => typeof value === "string";
const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);
/** A relative path inside the skill: no absolute path, no `..`, no backslash. */
const isInside = (path: string) =>
  path !== "" && !path.startsWith("/") && !path.includes("\\") &&
  !path.split("/").some((s) => s === ".." || s === "");

/** A script file name as the loader finds them: a name and a script extension, no path. */
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

function stamp(info: Deno.FileInfo): string {
  return `${info.mtime?.getTime() ?? 0}:${info.size}`;
}

/** The freshness key of a skill directory, its manifest, subdirectories and extra files. */
function freshnessKey(
  dir: string,
  manifestFile: string,
  dirs: readonly string[],
  stamped: readonly string[],
): string | null {
  try {
    const dirInfo = Deno.lstatSync(dir);
    if (!dirInfo.isDirectory) return null;
    const parts = [stamp(dirInfo), stamp(Deno.lstatSync(join(dir, manifestFile)))];
    for (const sub of dirs) {
      const info = Deno.lstatSync(join(dir, sub));
      if (!info.isDirectory) return null;
      parts.push(stamp(info));
    }
    for (const file of stamped) parts.push(stamp(Deno.lstatSync(join(dir, file))));
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
    const key = freshnessKey(dir, cached.manifestFile, cached.dirs, cached.stamped);
    if (key === null || key !== cached.key) return undefined;
    const { name, canonical, manifest, references, assets, files, warnings } = cached;
    const scripts = cached.scripts.map(({ name, file, language }) => ({
      name,
      file,
      path: join(dir, "scripts", ...file.split("/")),
      language,
    }));
    const skillMdPath = join(dir, cached.manifestFile);
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
  set(dir: string, record: SkillRecord, immutable = false): void {
    const manifestFile = record.skillMdPath.split(/[\\/]/).pop() ?? "";
    if (!MANIFEST_NAMES.has(manifestFile)) return;
    const dirs = subdirectories(dir);
    if (dirs === null) return;
    const stamped = lstatSyncOrNull(join(dir, CODEX_AGENT_FILE))?.isFile ? [CODEX_AGENT_FILE] : [];
    // An extension-less script is one by its `#!` line: an edit there must be seen.
    for (const script of record.scripts) {
      if (!script.file.split("/").pop()!.includes(".")) stamped.push(`scripts/${script.file}`);
    }
    const key = freshnessKey(dir, manifestFile, dirs, stamped);
    if (key === null) return;
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
    this.#entries[dir] = {
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
