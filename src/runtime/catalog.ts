/**
 * Discovery: the skills installed in `$SKILLS_HOME` (from the registry), then the bundled
 * `skills/core` (implicitly trusted). A skill that fails to load is reported with a short
 * reason; the others still load. Only front matter is read here.
 */

import { join } from "node:path";
import { SkillError } from "../core/errors.ts";
import { canonicalSkillName, isValidSkillName } from "../core/names.ts";
import type { RegistryEntry } from "../core/registry_model.ts";
import { bundledRootPath, materializeBundledSkills } from "./bundled.ts";
import { exists, isWithin } from "./fsutil.ts";
import { CatalogCache } from "./catalog_cache.ts";
import { readRegistry } from "./registry_store.ts";
import {
  loadSkillDir,
  type ScriptInfo,
  SkillLoadError,
  type SkillOrigin,
  type SkillRecord,
} from "./skill_loader.ts";

export interface SkillFailure {
  name: string;
  canonical: string;
  dir: string;
  origin: SkillOrigin;
  trusted: boolean;
  reason: string;
  entry: RegistryEntry | undefined;
}

export interface Catalog {
  home: string;
  skills: SkillRecord[];
  failures: SkillFailure[];
  /** Problems that do not belong to one skill (shadowed names, etc.). */
  notes: string[];
}

/** Skills are loaded concurrently: each costs a few small filesystem operations. */
const LOAD_CONCURRENCY = 16;

async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
/** Loads everything discoverable. Never throws for one bad skill. */
export async function loadCatalog(home: string): Promise<Catalog> {
  const registry = await readRegistry(home);
  const skills: SkillRecord[] = [];
  const failures: SkillFailure[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();

  type Loaded = { record: SkillRecord } | { failure: SkillFailure };
  const load = async (
    dir: string,
    realRoot: string,
    origin: SkillOrigin,
    trusted: boolean,
    entry: RegistryEntry | undefined,
    fallbackName: string,
  ): Promise<Loaded> => {
    try {
      return {
        record: await loadSkillDir(dir, realRoot, { origin, trusted, entry, rootIsReal: true }),
      };
    } catch (error) {
      if (!(error instanceof SkillLoadError)) throw error;
      const canonical = entry?.name_canonical ??
        (isValidSkillName(fallbackName) ? canonicalSkillName(fallbackName) : fallbackName);
      return {
        failure: {
          name: entry?.name ?? fallbackName,
          canonical,
          dir,
          origin,
          trusted,
          reason: error.message,
          entry,
        },
      };
    }
  };
  // Installed skills win over bundled ones of the same name: results are merged in order.
  const merge = (loaded: Loaded) => {
    if ("record" in loaded) {
      if (seen.has(loaded.record.canonical)) {
        notes.push(
          `Skill '${loaded.record.canonical}' in ${loaded.record.dir} is shadowed by an installed skill of the same name`,
        );
        return;
      }
      seen.add(loaded.record.canonical);
      skills.push(loaded.record);
    } else if (!seen.has(loaded.failure.canonical)) {
      seen.add(loaded.failure.canonical);
      failures.push(loaded.failure);
    }
  };

  const realHome = await Deno.realPath(home).catch(() => home);
  const cache = CatalogCache.load(home);
  /** A cached record when the directory is unchanged, else a fresh load (then cached). */
  const loadThroughCache = async (
    dir: string,
    realRoot: string,
    origin: SkillOrigin,
    trusted: boolean,
    entry: RegistryEntry | undefined,
    name: string,
  ): Promise<Loaded> => {
    const cached = cache.get(dir);
    if (
      cached !== undefined && cached.name === name &&
      (entry === undefined || cached.canonical === entry.name_canonical)
    ) {
      const { key: _key, scriptsDir: _scriptsDir, ...rest } = cached;
      return { record: { ...rest, origin, trusted, entry } };
    }
    const loaded = await load(dir, realRoot, origin, trusted, entry, name);
    if ("record" in loaded) {
      const r = loaded.record;
      cache.set(dir, {
        scriptsDir: r.scripts.length > 0 || await exists(join(r.dir, "scripts")),
        dir: r.dir,
        name: r.name,
        canonical: r.canonical,
        skillMdPath: r.skillMdPath,
        manifest: r.manifest,
        scripts: r.scripts,
        references: r.references,
        assets: r.assets,
        warnings: r.warnings,
      }, origin === "core");
    }
    return loaded;
  };
  const installed = await mapConcurrent(registry.skills, LOAD_CONCURRENCY, async (entry) => {
    const trusted = entry.trusted && entry.trusted_digest !== null;
    if (!isWithin(home, entry.installed_path)) {
      return Promise.resolve<Loaded>({
        failure: {
          name: entry.name,
          canonical: entry.name_canonical,
          dir: entry.installed_path,
          origin: entry.source.type,
          trusted,
          reason: `installed path is outside ${home}`,
          entry,
        },
      });
    }
    return await loadThroughCache(
      entry.installed_path,
      realHome,
      entry.source.type,
      trusted,
      entry,
      entry.name,
    );
  });
  installed.forEach(merge);

  const coreRoot = await Deno.realPath(await materializeBundledSkills(home));
  const coreDirs = (await listSubdirectories(coreRoot)).map((name) => join(coreRoot, name));
  const bundled = await Promise.all(
    coreDirs.map((dir) =>
      loadThroughCache(dir, coreRoot, "core", true, undefined, dir.split(/[\\/]/).pop()!)
    ),
  );
  bundled.forEach(merge);
  await cache.save(new Set([...registry.skills.map((e) => e.installed_path), ...coreDirs]));

  const byName = (a: { canonical: string }, b: { canonical: string }) =>
    a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0;
  skills.sort(byName);
  failures.sort(byName);
  return { home, skills, failures, notes };
}

async function listSubdirectories(root: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (entry.name.startsWith(".")) continue;
      if (entry.isDirectory || entry.isSymlink) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/** Finds a loaded skill by any accepted spelling; throws `invalid_name` / `not_found`. */
export function findSkill(catalog: Catalog, name: string): SkillRecord {
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

/** Finds a script of a skill by `status`, `Status` or `status.py` (and `_`/`-` variants). */
export function findScript(skill: SkillRecord, canonicalFile: string): ScriptInfo | undefined {
  const key = (file: string) => file.toLowerCase().replaceAll("_", "-");
  return skill.scripts.find((s) => key(s.file) === key(canonicalFile));
}

export { bundledRootPath };
export {
  type LoadOptions,
  loadSkillDir,
  readSkillBody,
  type ScriptInfo,
  SkillLoadError,
  type SkillOrigin,
  type SkillRecord,
} from "./skill_loader.ts";
