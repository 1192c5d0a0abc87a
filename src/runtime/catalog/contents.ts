/**
 * What a skill directory holds besides its manifest, as the loader (loader.ts) lists it:
 * the scripts of `scripts/` (by language, with the name-collision rule and the manifest's
 * `scripts`/`scripts_ignore`), the files of `references/` and `assets/`, and every other
 * file at any depth, bounded. Names only: nothing here reads a file's contents.
 */

import { join, relative } from "../os/paths.ts";
import { matchesAnyGlob } from "../../core/glob.ts";
import type { Diagnostic, Manifest } from "../../core/manifest/manifest.ts";
import { scriptKey, skillNameProblem } from "../../core/names.ts";
import {
  type ScriptLanguage,
  shebangLanguage,
  splitScriptFile,
} from "../../core/scripts/script_language.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { readDirEntries } from "./dir_reads.ts";
import { SCRIPT_COLLISION, SkillLoadError } from "./load_terms.ts";

export interface ScriptInfo {
  /** What users and models call it: `status`, `office/unpack` (no extension). */
  name: string;
  /** Its path inside `scripts/`: `status.py`, `office/unpack.py`, `task-brief`. */
  file: string;
  /** Absolute path. */
  path: string;
  /** Told by the extension, or by the `#!` line of an extension-less file. */
  language: ScriptLanguage;
}

const MAX_RESOURCE_FILES = 500;
/**
 * How deep resource folders and a skill's other files are listed: as deep as MCP's
 * `skills/list` describes a skill (mcp/skill_files.ts), so every shipped file is named
 * (docx's `scripts/office/schemas/ecma/fouth-edition/*.xsd` are five folders down).
 */
const MAX_RESOURCE_DEPTH = 16;
const MAX_WALK_DEPTH = 16;
/** Scripts listed per skill, and how deep `scripts/` is searched (`office/tools/x.py`). */
const MAX_SCRIPTS = 200;
const MAX_SCRIPT_DEPTH = 4;
/** Folders under `scripts/` that hold no scripts of their own. */
const NOT_SCRIPT_FOLDERS = new Set(["__pycache__", "node_modules"]);
/** The bytes of an extension-less file read for its `#!` line. */
const SHEBANG_BYTES = 256;

/** A file under `scripts/` as the walk finds it: its path there and its language. */
interface Candidate {
  file: string;
  stem: string;
  language: ScriptLanguage;
  /**
   * A Python file of a package below `scripts/` (a folder holding `__init__.py`, or one inside
   * such a folder): a module its scripts import, not a command — listed only when the
   * manifest's `scripts:` names it.
   */
  module?: true;
}

/**
 * The `#!` language of an extension-less file (a regular file, read for its first line
 * only), or undefined.
 */
function shebangOf(path: string): ScriptLanguage | undefined {
  let text: string;
  try {
    text = new TextDecoder().decode(readPrefixSync(path, SHEBANG_BYTES).bytes);
  } catch {
    return undefined; // unreadable: not a script anyone can run
  }
  return text.startsWith("#!") ? shebangLanguage(text.split("\n", 1)[0]!) : undefined;
}

/**
 * Every file a user or model can name under `scripts/`, at any depth up to
 * {@link MAX_SCRIPT_DEPTH}: a known extension, or none and a `#!` line naming a known
 * interpreter. Names are the path without extension; each part must be a name one can
 * type (letters, digits, `-`, `_`, not leading `_` or `-`), so `_helpers.py`, hidden files
 * and `__pycache__/` are never scripts. Symlinks are never followed. The Python files of a
 * package below `scripts/` (`office/validators/` with its `__init__.py`, as anthropics' docx
 * ships it) are found as modules: run as files their package imports fail, and the public
 * skills that ship such packages make them refuse to run directly. `scripts/` itself holding
 * an `__init__.py` changes nothing: its files are run by path (skill-creator's are).
 */
function walkScripts(scriptsDir: string, warnings: Diagnostic[]): Candidate[] {
  const found: Candidate[] = [];
  let scripts = 0;
  let modules = 0;
  let cut = false;
  const walk = (dir: string, prefix: string, depth: number, inPackage: boolean) => {
    const entries = readDirEntries(dir).sort((a, b) => (a.name < b.name ? -1 : 1));
    const isPackage = depth > 1 &&
      (inPackage || entries.some((entry) => entry.isFile && entry.name === "__init__.py"));
    for (const entry of entries) {
      if (entry.isSymlink || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        if (NOT_SCRIPT_FOLDERS.has(entry.name) || skillNameProblem(entry.name) !== undefined) {
          continue;
        }
        if (depth < MAX_SCRIPT_DEPTH) {
          walk(path, `${prefix}${entry.name}/`, depth + 1, isPackage);
        }
        continue;
      }
      if (!entry.isFile) continue;
      const split = splitScriptFile(entry.name);
      const stem = split?.stem ?? entry.name;
      if (skillNameProblem(stem) !== undefined) continue;
      const language = split?.language ?? (entry.name.includes(".") ? undefined : shebangOf(path));
      if (language === undefined) continue;
      const file = `${prefix}${entry.name}`;
      if (isPackage && language === "python") {
        // Counted apart: a package's modules never crowd a script off the list (past the
        // cap, one is only not nameable in `scripts:`).
        if (modules++ < MAX_SCRIPTS) {
          found.push({ file, stem: `${prefix}${stem}`, language, module: true });
        }
        continue;
      }
      if (scripts++ >= MAX_SCRIPTS) {
        cut = true;
        return;
      }
      found.push({ file, stem: `${prefix}${stem}`, language });
    }
  };
  walk(scriptsDir, "", 1, false);
  if (cut) {
    warnings.push({
      level: "warning",
      file: scriptsDir,
      message:
        `scripts/ holds more than ${MAX_SCRIPTS} scripts; only the first ${MAX_SCRIPTS} are listed`,
    });
  }
  return found;
}

/**
 * Two files one name would call: which one runs would be a guess. When their file names differ
 * (a launcher `tool.sh` beside the `tool.cjs` it starts), each is listed in `files` to be called
 * by its file name, and the bare name by neither; when the file names themselves differ only by
 * case, `_` or `-`, no name tells them apart, so neither is a script and the skill says so.
 * Returns the scripts called by their file names.
 */
function calledByFileName(
  byName: ReadonlyMap<string, Candidate[]>,
  files: Map<string, Candidate>,
  warnings: Diagnostic[],
  scriptsDir: string,
): Set<Candidate> {
  const byFileName = new Set<Candidate>();
  for (const [key, candidates] of byName) {
    if (candidates.length === 1) {
      files.set(candidates[0]!.file.toLowerCase(), candidates[0]!);
      continue;
    }
    const listed = candidates.map((c) => `scripts/${c.file}`).sort().join(", ");
    const fileKeys = new Set(candidates.map((c) => scriptKey(c.file)));
    if (fileKeys.size === candidates.length) {
      for (const candidate of candidates) {
        files.set(candidate.file.toLowerCase(), candidate);
        byFileName.add(candidate);
      }
      warnings.push({
        level: "warning",
        file: scriptsDir,
        message: `${listed} share the name '${key}': each runs by its file name (${
          candidates.map((c) => c.file).sort().join(", ")
        }), '${key}' alone by neither`,
      });
    } else {
      warnings.push({
        level: "warning",
        file: scriptsDir,
        message:
          `${SCRIPT_COLLISION} ${listed} are all called '${key}'; none of them runs until all but one are renamed`,
      });
    }
  }
  return byFileName;
}

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
  const files = new Map<string, Candidate>();
  /** Files by the name a user or model would call them: `Status.py`, `status.py` are one. */
  const byName = new Map<string, Candidate[]>();
  for (const candidate of walkScripts(scriptsDir, warnings)) {
    // A package's module is no name a user calls: it collides with nothing.
    if (candidate.module) {
      files.set(candidate.file.toLowerCase(), candidate);
      continue;
    }
    // `status.py` and `status.sh` are both called `status`: the collision rule covers them,
    // folder by folder (`a/run.py` and `b/run.py` are `a/run` and `b/run`).
    const key = scriptKey(candidate.stem);
    byName.set(key, [...byName.get(key) ?? [], candidate]);
  }
  const byFileName = calledByFileName(byName, files, warnings, scriptsDir);
  let chosen: Candidate[];
  if (manifest.scripts !== undefined) {
    chosen = [];
    for (const wanted of manifest.scripts) {
      // `scripts:` names a file (`run.sh`) or, without extension, the script by its name —
      // never one of two that share it (they are called by their file names).
      const actual = files.get(wanted.toLowerCase()) ??
        [...files.values()].find((c) =>
          splitScriptFile(wanted) === undefined && !byFileName.has(c) &&
          scriptKey(c.stem) === scriptKey(wanted)
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
    chosen = [...files.values()].filter((c) =>
      !c.module && !matchesAnyGlob(c.file, manifest.scriptsIgnore)
    );
  }
  return chosen.sort((a, b) => (a.file < b.file ? -1 : 1)).map((c) => ({
    name: byFileName.has(c) ? c.file : c.stem,
    file: c.file,
    path: join(scriptsDir, ...c.file.split("/")),
    language: c.language,
  }));
}

/**
 * A file elsewhere in the skill run by its path from the skill root (`resources/deploy.sh`,
 * as SKILL.md tells the agent), when it has a script language: by extension, or an
 * extension-less file's `#!` line. `rel` is checked part by part (canonicalScriptName); no
 * part may be a symlink, and the file must be a regular file inside `dir`.
 */
export function scriptAtPath(dir: string, rel: string): ScriptInfo | undefined {
  const parts = rel.split("/");
  let path = dir;
  for (const part of parts) {
    path = join(path, part);
    const info = lstatSyncOrNull(path);
    if (info === null || info.isSymlink) return undefined;
  }
  if (!lstatSyncOrNull(path)?.isFile) return undefined;
  const name = parts[parts.length - 1]!;
  const split = splitScriptFile(name);
  const language = split?.language ?? (name.includes(".") ? undefined : shebangOf(path));
  if (language === undefined) return undefined;
  const stem = parts.slice(0, -1).concat(split?.stem ?? name).join("/");
  return { name: stem, file: rel, path, language };
}

/**
 * A script at the skill root (obra's `find-polluter.sh`, documented as `./find-polluter.sh`),
 * by its file name or, without extension, by its stem (`find-polluter`, `Find_Polluter`):
 * the one root-level file of a script language it names, never a guess between two.
 */
export function scriptAtRoot(dir: string, name: string): ScriptInfo | undefined {
  const exact = scriptAtPath(dir, name);
  if (exact !== undefined || splitScriptFile(name) !== undefined) return exact;
  const named = readDirEntries(dir).filter((entry) => {
    const split = entry.isFile && !entry.isSymlink ? splitScriptFile(entry.name) : undefined;
    return split !== undefined && scriptKey(split.stem) === scriptKey(name);
  });
  return named.length === 1 ? scriptAtPath(dir, named[0]!.name) : undefined;
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
 * The skill's other files (see LoadedSkill.files): names only, never contents, symlinks and
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
      for (const child of readDirEntries(path).sort((a, b) => (a.name < b.name ? -1 : 1))) {
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

/**
 * Every file under a skill's `scripts/` (`scripts/office/unpack.py`, a helper module, a schema
 * a script reads), bounded like a resource folder: what a model can read or be told about
 * besides the scripts it runs. Walked when asked (activation, MCP's resource list).
 */
export function listScriptFiles(skillDir: string): string[] {
  const root = join(skillDir, "scripts");
  const info = lstatSyncOrNull(root);
  if (info === null) return [];
  return listResources(root, {
    name: "scripts",
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
  });
}

/** Relative paths of regular files under a resource folder (names only, never contents). */
export function listResources(root: string, info: Deno.DirEntry | undefined): string[] {
  if (info === undefined || !info.isDirectory || info.isSymlink) return [];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_RESOURCE_DEPTH || out.length >= MAX_RESOURCE_FILES) return;
    const entries = readDirEntries(dir).sort((a, b) => (a.name < b.name ? -1 : 1));
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
