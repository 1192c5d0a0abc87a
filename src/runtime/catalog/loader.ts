/**
 * Loading one skill directory: front matter (the parser loads lazily), scripts, and the
 * names of references and assets. Symlinked skills, a symlinked SKILL.md and symlinked
 * scripts are refused; realpath containment bounds every directory.
 */

import { dirname, join, relative } from "../os/paths.ts";
import { matchesAnyGlob } from "../../core/glob.ts";
import type { Diagnostic, Manifest, ParsedSkillMd } from "../../core/manifest.ts";
import { MAX_FRONT_MATTER_BYTES } from "../../core/limits.ts";
import { canonicalSkillName, scriptDisplayName, skillNameProblem } from "../../core/names.ts";
import type { RegistryEntry } from "../../core/registry_model.ts";
import { VERSION } from "../../core/version.ts";
import { isWithin, lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";

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

export class SkillLoadError extends Error {}

type ManifestModule = typeof import("../../core/manifest.ts");
let manifestModule: ManifestModule | undefined;

/**
 * The manifest parser (and with it the YAML library) loads only when a SKILL.md must
 * actually be parsed: with the listing cache warm, `skills run` never needs it.
 */
async function manifestLib(): Promise<ManifestModule> {
  manifestModule ??= await import("../../core/manifest.ts");
  return manifestModule;
}

const MAX_RESOURCE_FILES = 500;
const MAX_RESOURCE_DEPTH = 4;

export interface LoadOptions {
  origin: SkillOrigin;
  trusted: boolean;
  entry?: RegistryEntry | undefined;
  /** Validate with the Agent Skills spec rules. */
  strict?: boolean;
  /** `root` is already a real path (saves a realpath call per skill). */
  rootIsReal?: boolean;
  /** SKILL.md as the caller already parsed it (validation): not read and parsed again. */
  parsed?: ParsedSkillMd;
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
  return await loadSkillDirWith(await manifestLib(), dir, root, options);
}

/**
 * The core of loadSkillDir, with synchronous filesystem calls: listing a thousand skills
 * is a few thousand tiny calls, and sync calls avoid the per-call async overhead that
 * would dominate. (Only a front matter beyond the subset parser waits for js-yaml.)
 */
async function loadSkillDirWith(
  { parseSkillMd, hasErrors }: ManifestModule,
  dir: string,
  root: string,
  options: LoadOptions,
): Promise<SkillRecord> {
  const info = lstatSyncOrNull(dir);
  if (info === null) throw new SkillLoadError("skill directory is missing");
  if (info.isSymlink) throw new SkillLoadError("skill directory is a symlink (refused)");
  if (!info.isDirectory) throw new SkillLoadError("not a directory");
  const realRoot = options.rootIsReal ? root : Deno.realPathSync(root);
  // A non-symlink directory directly inside a real root is contained; anything else is resolved.
  const realDir = dirname(dir) === realRoot ? dir : Deno.realPathSync(dir);
  if (!isWithin(realRoot, realDir)) throw new SkillLoadError(`skill directory escapes ${root}`);

  // One directory read tells us what SKILL.md, scripts/, references/ and assets/ are.
  const children = new Map<string, Deno.DirEntry>();
  for (const entry of Deno.readDirSync(realDir)) children.set(entry.name, entry);
  const md = children.get("SKILL.md");
  const skillMdPath = join(realDir, "SKILL.md");
  if (md === undefined) throw new SkillLoadError("SKILL.md is missing");
  if (md.isSymlink) throw new SkillLoadError("SKILL.md is a symlink (refused)");
  if (!md.isFile) throw new SkillLoadError("SKILL.md is not a regular file");

  const parsed = options.parsed ??
    await parseFrontMatter(parseSkillMd, skillMdPath, realDir, options);
  if (parsed.manifest === undefined || hasErrors(parsed.diagnostics)) {
    const first = parsed.diagnostics.find((d) => d.level === "error");
    throw new SkillLoadError(`Invalid manifest (${first?.message ?? "unreadable"})`);
  }
  const manifest = parsed.manifest;
  const name = options.entry?.name ?? manifest.name;
  const canonical = options.entry?.name_canonical ?? canonicalSkillName(manifest.name);
  const warnings = parsed.diagnostics.filter((d) => d.level === "warning");
  const scripts = discoverScripts(
    realDir,
    children.get("scripts"),
    manifest,
    warnings,
    skillMdPath,
  );
  return {
    name,
    canonical,
    dir: realDir,
    skillMdPath,
    origin: options.origin,
    trusted: options.trusted,
    manifest,
    scripts,
    references: listResources(join(realDir, "references"), children.get("references")),
    assets: listResources(join(realDir, "assets"), children.get("assets")),
    entry: options.entry,
    warnings,
  };
}

async function parseFrontMatter(
  parseSkillMd: ManifestModule["parseSkillMd"],
  skillMdPath: string,
  realDir: string,
  options: LoadOptions,
): Promise<ParsedSkillMd> {
  const { bytes, complete } = readPrefixSync(skillMdPath, MAX_FRONT_MATTER_BYTES);
  // An installed skill's directory is named by its registry entry (`--name` may rename
  // it), so only unregistered skills are compared with their directory name.
  const dirName = options.entry === undefined ? realDir.split(/[\\/]/).pop() ?? "" : undefined;
  return await parseSkillMd(bytes, skillMdPath, {
    strict: options.strict ?? false,
    ...(dirName === undefined ? {} : { dirName }),
    cliVersion: VERSION,
  }, complete);
}

function discoverScripts(
  dir: string,
  scriptsEntry: Deno.DirEntry | undefined,
  manifest: Manifest,
  warnings: Diagnostic[],
  skillMdPath: string,
): ScriptInfo[] {
  const scriptsDir = join(dir, "scripts");
  const dirInfo = scriptsEntry;
  if (dirInfo === undefined) {
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
  for (const entry of Deno.readDirSync(scriptsDir)) {
    if (!entry.isFile || entry.isSymlink) continue; // directories and symlinks are never scripts
    if (entry.name.startsWith(".") || !entry.name.toLowerCase().endsWith(".py")) continue;
    // Only files a user or model can name are scripts (no spaces, no leading '_' or '-').
    if (skillNameProblem(entry.name.slice(0, -3)) !== undefined) continue;
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
function listResources(root: string, info: Deno.DirEntry | undefined): string[] {
  if (info === undefined || !info.isDirectory || info.isSymlink) return [];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_RESOURCE_DEPTH || out.length >= MAX_RESOURCE_FILES) return;
    const entries = [...Deno.readDirSync(dir)].sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.isSymlink || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path, depth + 1);
      else if (entry.isFile && out.length < MAX_RESOURCE_FILES) {
        out.push(relative(join(root, ".."), path).replaceAll("\\", "/"));
      }
    }
  };
  walk(root, 1);
  return out;
}

/** Reads the full SKILL.md body (after the front matter) of a loaded skill. */
export async function readSkillBody(skill: SkillRecord): Promise<string> {
  const bytes = await Deno.readFile(skill.skillMdPath);
  const parsed = await (await manifestLib()).parseSkillMd(bytes, skill.skillMdPath, {});
  return parsed.body;
}
