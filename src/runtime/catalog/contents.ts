/**
 * What a skill directory holds besides its manifest, as the loader (loader.ts) lists it:
 * the scripts of `scripts/` (by language, with the name-collision rule and the manifest's
 * `scripts`/`scripts_ignore`), the files of `references/` and `assets/`, and every other
 * file at any depth, bounded. Names only: nothing here reads a file's contents.
 */

import { join, relative } from "../os/paths.ts";
import { matchesAnyGlob } from "../../core/glob.ts";
import type { Diagnostic, Manifest } from "../../core/manifest.ts";
import { scriptDisplayName, skillNameProblem } from "../../core/names.ts";
import {
  type ScriptLanguage,
  scriptLanguage,
  splitScriptFile,
} from "../../core/script_language.ts";

/** A skill that cannot be listed; the message is the short reason shown to users. */
export class SkillLoadError extends Error {}

/** How a script-name collision warning begins (the catalog lists them as notes). */
export const SCRIPT_COLLISION = "script names collide:";

export interface ScriptInfo {
  /** Display name without its extension, e.g. `status`. */
  name: string;
  /** File name, e.g. `status.py`, `build.sh`. */
  file: string;
  /** Absolute path. */
  path: string;
  /** Told by the extension: what runs it (exec/sandbox.ts plans the launcher). */
  language: ScriptLanguage;
}

const MAX_RESOURCE_FILES = 500;
const MAX_RESOURCE_DEPTH = 4;
/** How deep the other files of a skill are listed. */
const MAX_WALK_DEPTH = 8;

export function discoverScripts(
  dir: string,
  scriptsEntry: Deno.DirEntry | undefined,
  manifest: Manifest,
  warnings: Diagnostic[],
  skillMdPath: string,
): ScriptInfo[] {
  const scriptsDir = join(dir, "scripts");
  if (scriptsEntry === undefined) {
    if (manifest.scripts?.length) {
      warnings.push({
        level: "warning",
        file: skillMdPath,
        message: "'scripts' lists scripts but scripts/ is missing",
      });
    }
    return [];
  }
  if (scriptsEntry.isSymlink) throw new SkillLoadError("scripts/ is a symlink (refused)");
  if (!scriptsEntry.isDirectory) return [];
  const files = new Map<string, string>();
  /** Files by the name a user or model would call them: `Status.py`, `status.py` are one. */
  const byName = new Map<string, string[]>();
  for (const entry of Deno.readDirSync(scriptsDir)) {
    if (!entry.isFile || entry.isSymlink) continue; // directories and symlinks are never scripts
    const split = splitScriptFile(entry.name);
    if (entry.name.startsWith(".") || split === undefined) continue;
    // Only files a user or model can name are scripts (no spaces, no leading '_' or '-').
    if (skillNameProblem(split.stem) !== undefined) continue;
    // `status.py` and `status.sh` are both called `status`: the collision rule covers them.
    const key = split.stem.toLowerCase().replaceAll("_", "-");
    byName.set(key, [...byName.get(key) ?? [], entry.name]);
  }
  // Two files one name would call (case, `_` or `-`): which one runs would be a guess, so
  // neither is a script, and the skill says so.
  for (const [key, names] of byName) {
    if (names.length === 1) files.set(names[0]!.toLowerCase(), names[0]!);
    else {
      warnings.push({
        level: "warning",
        file: scriptsDir,
        message: `${SCRIPT_COLLISION} ${
          names.sort().map((n) => `scripts/${n}`).join(", ")
        } are all called '${
          scriptDisplayName(key)
        }'; none of them runs until all but one are renamed`,
      });
    }
  }
  let chosen: string[];
  if (manifest.scripts !== undefined) {
    chosen = [];
    for (const wanted of manifest.scripts) {
      // `scripts:` names a file (`run.sh`) or, without extension, the script by its name.
      const actual = files.get(wanted) ??
        [...files.values()].find((f) =>
          splitScriptFile(wanted) === undefined &&
          scriptDisplayName(f).toLowerCase().replaceAll("_", "-") === wanted.replaceAll("_", "-")
        );
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
    language: scriptLanguage(file)!,
  }));
}

/** At most this many other files are named; the rest are counted. */
const MAX_OTHER_FILES = 200;
const LISTED_ELSEWHERE = new Set([
  "SKILL.md",
  "skill.md",
  "scripts",
  "references",
  "assets",
  "__pycache__",
  "node_modules",
]);

/**
 * The skill's other files (see SkillRecord.files): names only, never contents, symlinks and
 * hidden entries skipped, at most MAX_OTHER_FILES then `… and N more`.
 */
export function listOtherFiles(
  dir: string,
  children: ReadonlyMap<string, Deno.DirEntry>,
): string[] {
  const out: string[] = [];
  let more = 0;
  const visit = (entry: Deno.DirEntry, path: string, rel: string, depth: number) => {
    if (entry.isSymlink || entry.name.startsWith(".")) return;
    if (entry.isFile) {
      if (out.length < MAX_OTHER_FILES) out.push(rel);
      else more++;
    } else if (entry.isDirectory && depth < MAX_WALK_DEPTH) {
      for (const child of [...Deno.readDirSync(path)].sort((a, b) => (a.name < b.name ? -1 : 1))) {
        visit(child, join(path, child.name), `${rel}/${child.name}`, depth + 1);
      }
    }
  };
  const top = [...children.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of top) {
    if (!LISTED_ELSEWHERE.has(entry.name)) visit(entry, join(dir, entry.name), entry.name, 1);
  }
  if (more > 0) out.push(`… and ${more} more`);
  return out;
}

/** Relative paths of regular files under a resource folder (names only, never contents). */
export function listResources(root: string, info: Deno.DirEntry | undefined): string[] {
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
