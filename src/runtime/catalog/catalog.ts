/**
 * Discovery: the project's skills (scopes.ts: `.agents/skills`, `.claude/skills` up to the
 * repository root) when a working directory is given, the skills installed in
 * `$SKILLS_HOME` (from the registry), then the bundled `skills/core` (implicitly trusted).
 * The first of a name wins; the others are listed as shadowed, never dropped silently. A
 * skill that fails to load is reported with a short reason; the others still load. Only
 * front matter is read here.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName, isValidSkillName, scriptKey } from "../../core/names.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import {
  bundledRootPath,
  bundledSkillNames,
  materializeBundledSkills,
  restoreBundledSkills,
} from "./bundled.ts";
import { isWithin, lstatSyncOrNull, type StatLite } from "../os/fs.ts";
import { CatalogCache } from "./cache.ts";
import { keepingDirReads } from "./dir_reads.ts";
import { readRegistry } from "../store/registry.ts";
import type { ScriptInfo } from "./contents.ts";
import { SCRIPT_COLLISION, SkillLoadError } from "./load_terms.ts";
import type { LoadedSkill, SkillFailure, SkillOrigin, SkillScope } from "./loader.ts";
import { type Loaded, loadProjectSkills, type ProjectRoot } from "./scopes.ts";
import type { LockRead } from "../store/lockfile.ts";

/** A skill hidden by one of the same name in a scope of higher precedence. */
export interface ShadowedSkill {
  canonical: string;
  scope: SkillScope;
  dir: string;
  by: { scope: SkillScope; dir: string };
}

export interface Catalog {
  home: string;
  skills: LoadedSkill[];
  failures: SkillFailure[];
  /** Problems that do not belong to one skill (shadowed names, etc.). */
  notes: string[];
  shadowed: ShadowedSkill[];
  /** The project seen from the working directory (when one was given) and its lockfile. */
  project: { root: ProjectRoot; lock: LockRead } | undefined;
  /**
   * Every installed skill's folder as the registry records it, read or not (a catalog of
   * `only` one name reads one): what a sandbox hides besides the skills it lists.
   */
  installedDirs: string[];
  /**
   * The stats the listing cache took of installed skills' folders and manifests, by path:
   * `list` tells each skill's digest state from the same stats instead of taking them twice.
   */
  listingStats?: ReadonlyMap<string, StatLite>;
}

interface CatalogOptions {
  /** The user's working directory: its project skills come first. */
  cwd?: string | undefined;
  /** For `$HOME` (where the project search stops without a repository). */
  env?: Readonly<Record<string, string>>;
  /**
   * A canonical skill name: of the installed and bundled skills only those of this name are
   * read (the project's all are, as before). `findSkill` of that name then answers as with
   * the whole catalog, shadowing and failures included, since a skill's name is its registry
   * entry's (installed) or its folder's (bundled); the listing cache keeps the others.
   */
  only?: string | undefined;
}

/** Loads everything discoverable. Never throws for one bad skill. */
export function loadCatalog(home: string, options: CatalogOptions = {}): Promise<Catalog> {
  return keepingDirReads(() => loadEverything(home, options));
}

/**
 * The scopes read in their shadowing order — the project's, the installed, the bundled —
 * into one listing, the listing cache saved once all are read, the listing sorted by name.
 */
async function loadEverything(home: string, options: CatalogOptions): Promise<Catalog> {
  const registry = await readRegistry(home);
  const listing = new Listing();
  let project: Catalog["project"];
  if (options.cwd !== undefined) {
    const found = await loadProjectSkills(home, options.cwd, options.env ?? {});
    project = { root: found.project, lock: found.lock };
    listing.notes.push(...found.notes);
    for (const loaded of found.loaded) listing.merge(loaded);
  }
  const realHome = realPathOr(home);
  const cache = CatalogCache.load(home);
  // One skill at a time: after the first parse, loading is synchronous filesystem work.
  for (const entry of registry.skills) {
    if (options.only !== undefined && entry.name_canonical !== options.only) continue;
    const trusted = entry.trusted && entry.trusted_digest !== null;
    if (!isWithin(home, entry.installed_path)) {
      listing.merge(outsideHome(home, entry, trusted));
      continue;
    }
    const { installed_path: dir, source, name } = entry;
    listing.merge(await loadThroughCache(cache, dir, realHome, source.type, trusted, entry, name));
  }
  const coreDirs = await loadBundled(home, cache, listing, options.only);
  await cache.save(new Set([...registry.skills.map((e) => e.installed_path), ...coreDirs]));
  const installedDirs = registry.skills.map((entry) => entry.installed_path);
  return listing.sorted(home, project, installedDirs, cache.stats);
}

/**
 * The listing as the scopes are merged into it. Project skills win over installed ones,
 * which win over bundled ones: results are merged in that order, and whatever a name
 * already taken hides is listed as shadowed.
 */
class Listing {
  readonly skills: LoadedSkill[] = [];
  readonly failures: SkillFailure[] = [];
  readonly notes: string[] = [];
  readonly shadowed: ShadowedSkill[] = [];
  readonly #winners = new Map<string, { scope: SkillScope; dir: string }>();

  merge(loaded: Loaded): void {
    const { canonical, scope, dir } = "record" in loaded ? loaded.record : loaded.failure;
    const winner = this.#winners.get(canonical);
    if (winner !== undefined) {
      this.shadowed.push({ canonical, scope, dir, by: winner });
      this.notes.push(
        `Skill '${canonical}' (${scope}, ${dir}) is shadowed by the ${winner.scope} skill in ${winner.dir}`,
      );
      return;
    }
    this.#winners.set(canonical, { scope, dir });
    if (!("record" in loaded)) {
      this.failures.push(loaded.failure);
      return;
    }
    this.skills.push(loaded.record);
    for (const w of loaded.record.warnings) {
      if (w.message.startsWith(SCRIPT_COLLISION)) {
        this.notes.push(`Skill '${canonical}': ${w.message}`);
      }
    }
  }

  /** The catalog: skills and failures sorted by canonical name. */
  sorted(
    home: string,
    project: Catalog["project"],
    installedDirs: string[],
    listingStats: ReadonlyMap<string, StatLite>,
  ): Catalog {
    const byName = (a: { canonical: string }, b: { canonical: string }) =>
      a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0;
    const { skills, failures, notes, shadowed } = this;
    skills.sort(byName);
    failures.sort(byName);
    return { home, skills, failures, notes, shadowed, project, installedDirs, listingStats };
  }
}

/** A registry entry whose folder is outside the home: never read, listed as a failure. */
function outsideHome(home: string, entry: RegistryEntry, trusted: boolean): Loaded {
  return {
    failure: {
      name: entry.name,
      canonical: entry.name_canonical,
      dir: entry.installed_path,
      origin: entry.source.type,
      trusted,
      reason: `installed path is outside ${home}`,
      entry,
      scope: "user",
    },
  };
}

/**
 * The bundled skills, merged last: only what the binary bundles (a directory dropped beside
 * them is not a core skill), the copy written afresh when one of them is gone from it; with
 * `only`, just the one of that name is read. Returns all their directories (the listing
 * cache keeps them).
 */
async function loadBundled(
  home: string,
  cache: CatalogCache,
  listing: Listing,
  only: string | undefined,
): Promise<string[]> {
  let coreRoot = Deno.realPathSync(await materializeBundledSkills(home));
  if (bundledSkillNames().some((name) => lstatSyncOrNull(join(coreRoot, name)) === null)) {
    coreRoot = Deno.realPathSync(await restoreBundledSkills(home));
  }
  const names = bundledSkillNames();
  const wanted = only === undefined
    ? names
    : names.filter((n) => isValidSkillName(n) && canonicalSkillName(n) === only);
  const bundled = await Promise.all(
    wanted.map((name) =>
      loadThroughCache(cache, join(coreRoot, name), coreRoot, "core", true, undefined, name)
    ),
  );
  for (const loaded of bundled) listing.merge(loaded);
  return names.map((name) => join(coreRoot, name));
}

/** A cached record when the directory is unchanged, else a fresh load (then cached). */
async function loadThroughCache(
  cache: CatalogCache,
  dir: string,
  realRoot: string,
  origin: SkillOrigin,
  trusted: boolean,
  entry: RegistryEntry | undefined,
  name: string,
): Promise<Loaded> {
  const cached = cache.get(dir, entry?.listing);
  if (
    cached !== undefined && cached.name === name &&
    (entry === undefined || cached.canonical === entry.name_canonical)
  ) {
    const scope: SkillScope = origin === "core" ? "bundled" : "user";
    // A fresh object per lookup: completed in place (a thousand copies less per listing).
    return { record: Object.assign(cached, { origin, trusted, entry, scope }) };
  }
  const loaded = await loadOne(dir, realRoot, origin, trusted, entry, name);
  // Bundled skills live in a content-addressed directory that never changes.
  if ("record" in loaded) cache.set(dir, loaded.record, origin === "core");
  return loaded;
}

/**
 * One skill read from its folder, or the failure that says why it did not load (a skill
 * changing while read included); any other error is thrown.
 */
async function loadOne(
  dir: string,
  realRoot: string,
  origin: SkillOrigin,
  trusted: boolean,
  entry: RegistryEntry | undefined,
  fallbackName: string,
): Promise<Loaded> {
  // The loader (22 KB of TypeScript, and what it imports) only when a skill must be read: a
  // listing from the cache, as a run's usually is, never loads it.
  const { loadSkillDir } = await import("./loader.ts");
  try {
    return {
      record: await loadSkillDir(dir, realRoot, { origin, trusted, entry, rootIsReal: true }),
    };
  } catch (error) {
    const reason = error instanceof SkillLoadError ? error.message : changingReason(error);
    if (reason === undefined) throw error;
    const canonical = entry?.name_canonical ??
      (isValidSkillName(fallbackName) ? canonicalSkillName(fallbackName) : fallbackName);
    return {
      failure: {
        name: entry?.name ?? fallbackName,
        canonical,
        dir,
        origin,
        trusted,
        reason,
        entry,
        scope: origin === "core" ? "bundled" : "user",
      },
    };
  }
}

/** `path` resolved, or itself when it cannot be (synchronous: one call, on every command). */
function realPathOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/**
 * A skill directory that vanished or changed shape while it was read: another command
 * (add, update, remove) is replacing it. Said as the reason the skill did not load.
 */
function changingReason(error: unknown): string | undefined {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory
    ? "its files changed while being read (another command is changing it); try again"
    : undefined;
}

/** Finds a loaded skill by any accepted spelling; throws `invalid_name` / `not_found`. */
export function findSkill(catalog: Catalog, name: string): LoadedSkill {
  const canonical = canonicalSkillName(name);
  const found = catalog.skills.find((s) => s.canonical === canonical);
  if (found) return found;
  const failure = catalog.failures.find((f) => f.canonical === canonical);
  if (failure) {
    throw new SkillError("not_found", `Skill '${canonical}' failed to load: ${failure.reason}`, {
      hint: `Run \`skills validate ${failure.dir}\` for details`,
    });
  }
  throw new SkillError("not_found", `Skill '${canonical}' not loaded or installed`, {
    hint: "Run `skills list` to see the available skills",
  });
}

/**
 * Finds a script of a skill by `status`, `Status` or `status.py` (and `_`/`-` variants):
 * `wanted` is canonicalScriptName's key, with an extension only when one was given. Two
 * scripts one name would call are never listed by it (the loader's collision rule: they are
 * called by their file names, or not at all), so a name without extension finds at most one.
 */
export function findScript(skill: LoadedSkill, wanted: string): ScriptInfo | undefined {
  const find = (text: string) =>
    skill.scripts.find((s) => scriptKey(s.file) === scriptKey(text)) ??
      skill.scripts.find((s) => scriptKey(s.name) === scriptKey(text));
  // `scripts/office/unpack.py`, as SKILL.md files write it, is `office/unpack.py`.
  return find(wanted) ?? (wanted.startsWith("scripts/") ? find(wanted.slice(8)) : undefined);
}

export { bundledRootPath };
export type { LoadedSkill, ScriptInfo };
