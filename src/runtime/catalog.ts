/**
 * Discovery: the skills installed in `$SKILLS_HOME` (from the registry), then the bundled
 * `skills/core` (implicitly trusted). A skill that fails to load is reported with a short
 * reason; the others still load. Only front matter is read here.
 */

import { join, relative } from "node:path";
import { SkillError } from "../core/errors.ts";
import { matchesAnyGlob } from "../core/glob.ts";
import { type Diagnostic, hasErrors, type Manifest, parseSkillMd } from "../core/manifest.ts";
import { MAX_FRONT_MATTER_BYTES } from "../core/frontmatter.ts";
import { canonicalSkillName, isValidSkillName, scriptDisplayName } from "../core/names.ts";
import type { RegistryEntry } from "../core/registry_model.ts";
import { VERSION } from "../core/version.ts";
import { bundledRootPath, materializeBundledSkills } from "./bundled.ts";
import { isWithin, lstatOrNull, readPrefix } from "./fsutil.ts";
import { readRegistry } from "./registry_store.ts";

export type SkillOrigin = "core" | "git" | "local";

export interface ScriptInfo {
  /** Display name without `.py`, e.g. `status`. */
  name: string;
  /** File name, e.g. `status.py`. */
  file: string;
  /** Absolute path. */
  path: string;
}

export interface SkillRecord {
  /** Display name (the registry name for installed skills, else the manifest name). */
  name: string;
  canonical: string;
  /** Real path of the skill directory. */
  dir: string;
  skillMdPath: string;
  origin: SkillOrigin;
  trusted: boolean;
  manifest: Manifest;
  scripts: ScriptInfo[];
  /** Relative paths under `references/` and `assets/`. */
  references: string[];
  assets: string[];
  entry: RegistryEntry | undefined;
  warnings: Diagnostic[];
}

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

export class SkillLoadError extends Error {}

const MAX_RESOURCE_FILES = 500;
const MAX_RESOURCE_DEPTH = 4;

/** Loads everything discoverable. Never throws for one bad skill. */
export async function loadCatalog(home: string): Promise<Catalog> {
  const registry = await readRegistry(home);
  const skills: SkillRecord[] = [];
  const failures: SkillFailure[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();

  const loadOne = async (
    dir: string,
    root: string,
    origin: SkillOrigin,
    trusted: boolean,
    entry: RegistryEntry | undefined,
    fallbackName: string,
  ) => {
    try {
      const record = await loadSkillDir(dir, root, { origin, trusted, entry });
      if (seen.has(record.canonical)) {
        notes.push(
          `Skill '${record.canonical}' in ${dir} is shadowed by an installed skill of the same name`,
        );
        return;
      }
      seen.add(record.canonical);
      skills.push(record);
    } catch (error) {
      if (!(error instanceof SkillLoadError)) throw error;
      const canonical = entry?.name_canonical ??
        (isValidSkillName(fallbackName) ? canonicalSkillName(fallbackName) : fallbackName);
      if (seen.has(canonical)) return;
      seen.add(canonical);
      failures.push({
        name: entry?.name ?? fallbackName,
        canonical,
        dir,
        origin,
        trusted,
        reason: error.message,
        entry,
      });
    }
  };

  for (const entry of registry.skills) {
    const path = entry.installed_path;
    const trusted = entry.trusted && entry.trusted_digest !== null;
    if (!isWithin(home, path)) {
      failures.push({
        name: entry.name,
        canonical: entry.name_canonical,
        dir: path,
        origin: entry.source.type,
        trusted,
        reason: `installed path is outside ${home}`,
        entry,
      });
      seen.add(entry.name_canonical);
      continue;
    }
    await loadOne(path, home, entry.source.type, trusted, entry, entry.name);
  }

  const coreRoot = await materializeBundledSkills(home);
  for (const name of await listSubdirectories(coreRoot)) {
    await loadOne(join(coreRoot, name), coreRoot, "core", true, undefined, name);
  }

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

export interface LoadOptions {
  origin: SkillOrigin;
  trusted: boolean;
  entry?: RegistryEntry | undefined;
  /** Validate with the Agent Skills spec rules. */
  strict?: boolean;
}

/**
 * Loads one skill directory (front matter, scripts, resources). Throws SkillLoadError with
 * a short reason when it cannot be used. `root` bounds realpath containment.
 */
export async function loadSkillDir(
  dir: string,
  root: string,
  options: LoadOptions,
): Promise<SkillRecord> {
  const info = await lstatOrNull(dir);
  if (info === null) throw new SkillLoadError("skill directory is missing");
  if (info.isSymlink) throw new SkillLoadError("skill directory is a symlink (refused)");
  if (!info.isDirectory) throw new SkillLoadError("not a directory");
  const realRoot = await Deno.realPath(root);
  const realDir = await Deno.realPath(dir);
  if (!isWithin(realRoot, realDir)) throw new SkillLoadError(`skill directory escapes ${root}`);

  const skillMdPath = join(realDir, "SKILL.md");
  const mdInfo = await lstatOrNull(skillMdPath);
  if (mdInfo === null) throw new SkillLoadError("SKILL.md is missing");
  if (mdInfo.isSymlink) throw new SkillLoadError("SKILL.md is a symlink (refused)");
  if (!mdInfo.isFile) throw new SkillLoadError("SKILL.md is not a regular file");

  const { bytes, complete } = await readPrefix(skillMdPath, MAX_FRONT_MATTER_BYTES);
  const dirName = realDir.split(/[\\/]/).pop() ?? "";
  const parsed = parseSkillMd(bytes, skillMdPath, {
    strict: options.strict ?? false,
    dirName,
    cliVersion: VERSION,
  }, complete);
  if (parsed.manifest === undefined || hasErrors(parsed.diagnostics)) {
    const first = parsed.diagnostics.find((d) => d.level === "error");
    throw new SkillLoadError(`Invalid manifest (${first?.message ?? "unreadable"})`);
  }
  const manifest = parsed.manifest;
  const name = options.entry?.name ?? manifest.name;
  const canonical = options.entry?.name_canonical ?? canonicalSkillName(manifest.name);
  const warnings = parsed.diagnostics.filter((d) => d.level === "warning");
  const scripts = await discoverScripts(realDir, manifest, warnings, skillMdPath);
  return {
    name,
    canonical,
    dir: realDir,
    skillMdPath,
    origin: options.origin,
    trusted: options.trusted,
    manifest,
    scripts,
    references: await listResources(join(realDir, "references")),
    assets: await listResources(join(realDir, "assets")),
    entry: options.entry,
    warnings,
  };
}

async function discoverScripts(
  dir: string,
  manifest: Manifest,
  warnings: Diagnostic[],
  skillMdPath: string,
): Promise<ScriptInfo[]> {
  const scriptsDir = join(dir, "scripts");
  const dirInfo = await lstatOrNull(scriptsDir);
  if (dirInfo === null) {
    if (manifest.scripts?.length) {
      warnings.push({
        level: "warning",
        file: skillMdPath,
        message: "'scripts' lists scripts but scripts/ is missing",
      });
    }
    return [];
  }
  if (dirInfo.isSymlink) throw new SkillLoadError("scripts/ is a symlink (refused)");
  if (!dirInfo.isDirectory) return [];
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(scriptsDir)) {
    if (!entry.isFile || entry.isSymlink) continue; // directories and symlinks are never scripts
    if (entry.name.startsWith(".") || !entry.name.toLowerCase().endsWith(".py")) continue;
    files.set(entry.name.toLowerCase(), entry.name);
  }
  let chosen: string[];
  if (manifest.scripts !== undefined) {
    chosen = [];
    for (const wanted of manifest.scripts) {
      const actual = files.get(wanted);
      if (actual === undefined) {
        warnings.push({
          level: "warning",
          file: skillMdPath,
          message:
            `script '${wanted}' is listed in 'scripts' but scripts/${wanted} is missing or not a regular file`,
        });
      } else chosen.push(actual);
    }
  } else {
    chosen = [...files.values()].filter((f) => !matchesAnyGlob(f, manifest.scriptsIgnore));
  }
  return chosen.sort().map((file) => ({
    name: scriptDisplayName(file),
    file,
    path: join(scriptsDir, file),
  }));
}

/** Relative paths of regular files under a resource folder (names only, never contents). */
async function listResources(root: string): Promise<string[]> {
  const info = await lstatOrNull(root);
  if (info === null || !info.isDirectory || info.isSymlink) return [];
  const out: string[] = [];
  const walk = async (dir: string, depth: number) => {
    if (depth > MAX_RESOURCE_DEPTH || out.length >= MAX_RESOURCE_FILES) return;
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.isSymlink || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path, depth + 1);
      else if (entry.isFile && out.length < MAX_RESOURCE_FILES) {
        out.push(relative(join(root, ".."), path).replaceAll("\\", "/"));
      }
    }
  };
  await walk(root, 1);
  return out;
}

/** Reads the full SKILL.md body (after the front matter) of a loaded skill. */
export async function readSkillBody(skill: SkillRecord): Promise<string> {
  const bytes = await Deno.readFile(skill.skillMdPath);
  const parsed = parseSkillMd(bytes, skill.skillMdPath, {});
  return parsed.body;
}

export { bundledRootPath };
