/**
 * Finding skills in a tree, the one way `skills add` (in a fetched source) and
 * `skills validate` (in a user's directory) both do it.
 */

import { basename, dirname, join, relative, SEP } from "../os/paths.ts";
import { isWithin, lstatOrNull, lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { decodeSkillMd, FrontMatterError, splitSkillMd } from "../../core/manifest/frontmatter.ts";
import { MANIFEST_FILES } from "../../core/manifest/limits.ts";
import { SkillError } from "../../core/errors.ts";
import { agentRows } from "../../core/agents.ts";
import {
  MARKETPLACE_FILES,
  marketplacePlugins,
  PLUGIN_FILES,
  type PluginSkills,
  pluginSkills,
} from "../../core/manifest/plugin_manifest.ts";

const SKIP_DIRS = new Set([".git", "node_modules"]);
/** The folder at a source's top that holds its skills, in the specification's layout. */
const COLLECTION = "skills";
const MAX_DISCOVERY_DEPTH = 3;
/**
 * How deep the search goes in a tree with no plugin manifest, top `skills/` folder or agent
 * folder: a monorepo's `packages/<p>/skills/<s>/` is four levels down, and vercel-labs'
 * `skills` CLI looks five levels deep then, so what it installs from such a tree is found here.
 */
const FALLBACK_DISCOVERY_DEPTH = 5;
const MAX_DISCOVERY_DIRS = 5_000;
/** Plugin manifests are small; a larger one is not read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Folders a plugin's `skills/` default may hold before the rest is ignored. */
const MAX_PLUGIN_SKILLS = 1_000;

interface FoundSkill {
  /** Absolute path of the skill directory. */
  dir: string;
  /** Path relative to the discovery base, "" for the base itself. */
  rel: string;
  /** The manifest's file name when it is a symlink (never followed; validation refuses it). */
  linkedManifest?: string;
  /**
   * The tree names this folder as one of its skills: a plugin manifest lists it, or it is a
   * folder of the top `skills/` (where the specification's layout and every plugin's default
   * put them), rather than a folder the search alone came upon (`preview/<name>/`).
   */
  declared?: true;
  /**
   * A folder of an agent's project skills folder at the tree's top (`.agents/skills/<name>/`,
   * `.claude/skills/<name>/`, the folders core/agents.ts's table names): the copy the
   * repository keeps for its own agent — below a declared skill, above one the search only
   * came upon.
   */
  agentFolder?: true;
  /**
   * Found only by the deeper search of a tree with no layout (more than MAX_DISCOVERY_DEPTH
   * levels down): it fills in names, it never contests one found nearer the top.
   */
  deep?: true;
}

/**
 * Whether a skill's path in its tree is a folder of the top `skills/`: the specification's
 * collection, which every agent's installer reads (a plugin's `skills/` is that plugin's).
 */
export function inCollection(rel: string): boolean {
  return /^skills\/[^/]+$/.test(rel);
}

/**
 * Directories holding a SKILL.md (or skill.md): the base itself (then nothing else), else
 * every one up to three levels down (`skills/<name>/`, `.claude/skills/<name>/`, ...), plus
 * the skills plugin manifests list (Claude Code's `.claude-plugin/marketplace.json` and
 * `plugin.json`, Codex's `.agents/plugins/marketplace.json` and `.codex-plugin/plugin.json`:
 * `plugins/<p>/skills/<s>/` is four levels down); when the tree has none of those places
 * (no plugin manifest, top `skills/` folder or agent folder), or nothing is found there, every
 * one up to five levels down. A skill directory's own subdirectories are its content and are
 * not searched; `.git`, `node_modules` and symlinked directories are skipped.
 */
export async function discoverSkills(base: string): Promise<FoundSkill[]> {
  const root = await skillAt(base, "");
  if (root !== undefined && !withoutFrontMatter(root)) return [root];
  // A SKILL.md at the top with no front matter at all is no manifest (Ryukijano's is a research
  // log): the skills below are the source's, and with none, the top is reported for what it is.
  const below = await skillsBelow(base);
  return below.length === 0 && root !== undefined ? [root] : below;
}

/** Whether a found skill's SKILL.md (a regular file) holds no front matter at all. */
function withoutFrontMatter(skill: FoundSkill): boolean {
  if (skill.linkedManifest !== undefined) return false;
  for (const name of MANIFEST_FILES) {
    const path = join(skill.dir, name);
    if (lstatSyncOrNull(path)?.isFile !== true) continue;
    try {
      splitSkillMd(decodeSkillMd(readPrefixSync(path, PREFIX_BYTES).bytes), false);
      return false;
    } catch (error) {
      return error instanceof FrontMatterError && error.absent;
    }
  }
  return false;
}

/** Enough of a SKILL.md to see whether it opens with front matter. */
const PREFIX_BYTES = 4096;

async function skillsBelow(base: string): Promise<FoundSkill[]> {
  const found = await walkForSkills(base);
  const seen = new Set(found.map((skill) => skill.rel));
  const named = await pluginSkillDirs(base);
  for (const rel of named) {
    if (seen.has(rel) || await symlinkOnTheWay(base, rel)) continue;
    // A path a manifest names may be a file: no folder, no skill. (The walk's folders are
    // folders already.)
    if ((await lstatOrNull(join(base, rel)))?.isDirectory !== true) continue;
    const skill = await skillAt(join(base, rel), rel);
    if (skill === undefined) continue;
    seen.add(rel);
    found.push(skill);
  }
  const declared = new Set(named);
  const agentFolders = new Set(agentRows().map(([, row]) => row.project));
  for (const skill of found) {
    if (declared.has(skill.rel) || inCollection(skill.rel)) skill.declared = true;
    else if (agentFolders.has(skill.rel.slice(0, skill.rel.lastIndexOf("/")))) {
      skill.agentFolder = true;
    }
  }
  const byPath = (a: FoundSkill, b: FoundSkill) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);
  // With no place of the layouts that say where skills are (a plugin manifest, the top skills/
  // folder, an agent's folder), or nothing found there, the search goes deeper:
  // peterbamuhigire's skills are <phase>/<area>/<step>/<skill>/, as deep as the peer looks, and
  // tech-leads-club's marketplace names remote plugins while its skills are five levels down.
  const laidOut = found.length > 0 &&
    (named.length > 0 || found.some((skill) => skill.declared || skill.agentFolder));
  if (!laidOut) {
    const deeper = await walkForSkills(base, FALLBACK_DISCOVERY_DEPTH);
    for (const skill of deeper) {
      if (skill.rel.split("/").length > MAX_DISCOVERY_DEPTH) skill.deep = true;
    }
    return outermost(deeper).sort(byPath);
  }
  return outermost(found).sort(byPath);
}

/**
 * A skill folder's subfolders are its content, however they were reached (a plugin may name a
 * skill and its subfolders): one inside another found skill is not a skill of its own — but
 * for the top `skills/` collection, whose own SKILL.md hides nothing beside it.
 */
function outermost(found: readonly FoundSkill[]): FoundSkill[] {
  const seen = new Set(found.map((skill) => skill.rel));
  const insideAnother = (rel: string) =>
    rel.split("/").slice(0, -1).some((_, i, parts) => {
      const ancestor = parts.slice(0, i + 1).join("/");
      return ancestor !== COLLECTION && seen.has(ancestor);
    });
  return found.filter((skill) => !insideAnother(skill.rel));
}

async function walkForSkills(
  base: string,
  maxDepth = MAX_DISCOVERY_DEPTH,
): Promise<FoundSkill[]> {
  const found: FoundSkill[] = [];
  let visited = 0;
  const walk = async (dir: string, rel: string, depth: number) => {
    if (depth > maxDepth) return;
    const entries = await Array.fromAsync(Deno.readDir(dir));
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!entry.isDirectory || entry.isSymlink || SKIP_DIRS.has(entry.name)) continue;
      if (++visited > MAX_DISCOVERY_DIRS) return;
      const path = join(dir, entry.name);
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const skill = await skillAt(path, childRel);
      if (skill !== undefined) found.push(skill);
      // The top skills/ folder is the collection the specification lays out: a SKILL.md left
      // in it (grahama1970's) does not make the skill folders in it its content.
      if (skill === undefined || childRel === COLLECTION) await walk(path, childRel, depth + 1);
    }
  };
  await walk(base, "", 1);
  return found;
}

/** The skill `dir` holds (a SKILL.md or skill.md), with `rel` its path, or undefined. */
async function skillAt(dir: string, rel: string): Promise<FoundSkill | undefined> {
  // lstat: a SKILL.md symlink still marks a skill (validation then refuses it).
  for (const name of MANIFEST_FILES) {
    const info = await lstatOrNull(join(dir, name));
    if (info === null || info.isDirectory) continue;
    return info.isSymlink ? { dir, rel, linkedManifest: name } : { dir, rel };
  }
  return undefined;
}

/** A manifest's JSON, or undefined when it is missing, too large or not JSON. */
async function readManifest(path: string): Promise<unknown> {
  const info = await lstatOrNull(path);
  if (info === null || !info.isFile || info.size > MAX_MANIFEST_BYTES) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(readPrefixSync(path, MAX_MANIFEST_BYTES).bytes));
  } catch {
    return undefined;
  }
}

/** The first of a plugin's manifests (Claude Code's, Codex's) found under `dir`. */
async function pluginManifest(dir: string): Promise<unknown> {
  for (const parts of PLUGIN_FILES) {
    const document = await readManifest(join(dir, ...parts));
    if (document !== undefined) return document;
  }
  return undefined;
}

/** The skill folders (relative to `base`) that plugin manifests point to. */
async function pluginSkillDirs(base: string): Promise<string[]> {
  const plugins: PluginSkills[] = [];
  for (const parts of MARKETPLACE_FILES) {
    for (const plugin of marketplacePlugins(await readManifest(join(base, ...parts)))) {
      const there = (await lstatOrNull(join(base, plugin.source)))?.isDirectory === true;
      plugins.push(there || plugin.unrooted === undefined ? plugin : plugin.unrooted);
    }
  }
  // A repository that is itself one plugin.
  for (const parts of PLUGIN_FILES) {
    if (await lstatOrNull(join(base, ...parts))) {
      plugins.push({ source: "", skills: undefined });
      break;
    }
  }
  const dirs: string[] = [];
  for (const plugin of plugins) {
    const declared = plugin.skills ??
      pluginSkills(await pluginManifest(join(base, plugin.source)), plugin.source);
    // A declared path is a skill folder or a folder of skills (`"skills": "./skills/"`).
    const folders = declared ?? [plugin.source === "" ? "skills" : `${plugin.source}/skills`];
    for (const named of folders) {
      const folder = named === "" ? undefined : await realFolderIn(base, named);
      if (folder === undefined) continue;
      dirs.push(folder);
      try {
        let count = 0;
        for await (const entry of Deno.readDir(join(base, folder))) {
          if (++count > MAX_PLUGIN_SKILLS) break;
          if (entry.isDirectory && !entry.isSymlink) dirs.push(`${folder}/${entry.name}`);
        }
      } catch { /* no such folder */ }
    }
  }
  return dirs;
}

/**
 * The folder `rel` names inside `base`, as a path with no symlink on it: `rel` itself, or
 * where its links lead when that is a real folder inside `base` (a plugin whose
 * `skills/debugging` links to `../../../.claude/skills/debugging`, as mrgoonie/claudekit-skills
 * ships: Claude Code follows it). Nothing is read through a link: the skills are found and
 * copied from the real folder. A link that leaves `base`, or a path that does not resolve,
 * names nothing.
 */
async function realFolderIn(base: string, rel: string): Promise<string | undefined> {
  if (!await symlinkOnTheWay(base, rel)) return rel;
  try {
    // Both resolved: the part of `real` under `root` has no symlink left on it.
    const root = await Deno.realPath(base);
    const real = await Deno.realPath(join(base, rel));
    if (real === root || !isWithin(root, real)) return undefined;
    return (await Deno.lstat(real)).isDirectory
      ? relative(root, real).split(SEP).join("/")
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a folder of `rel` (or `rel` itself) is a symlink: manifests never lead out. */
async function symlinkOnTheWay(base: string, rel: string): Promise<boolean> {
  let path = base;
  for (const segment of rel.split("/")) {
    path = join(path, segment);
    const info = await lstatOrNull(path);
    if (info === null) return false;
    if (info.isSymlink) return true;
  }
  return false;
}

/**
 * The folder name every agent sees for `target`, a skill {@link skillDirsAt} found at
 * `named`: the name of the link the user named, when `named` is a link to that very skill
 * (`skills/docx -> docx-official` is the skill `docx`); undefined otherwise (the real
 * folder's name stands).
 */
export function linkedFolderName(named: string, target: string): string | undefined {
  try {
    if (!Deno.lstatSync(named).isSymlink || Deno.realPathSync(named) !== target) return undefined;
  } catch {
    return undefined;
  }
  return basename(named);
}

/**
 * The skill directories a path names, for validation: the skill of a `SKILL.md` file; the
 * skills found in a directory the way `skills add` finds them in a source (the directory
 * itself, or skills up to three levels down); else the path itself, so validation says
 * what is wrong with it. Any other file is a usage error. A symbolic link is read as what it
 * points to (the path the user typed; links inside a skill are judged, never followed).
 */
export async function skillDirsAt(path: string): Promise<string[]> {
  const info = await lstatOrNull(path);
  if (info === null) return [path];
  if (info.isSymlink) {
    // A link the user names is followed, as their shell follows it (a repository's
    // `skills/docx -> docx-official`); one that leads nowhere is validated as missing.
    const real = await Deno.realPath(path).catch(() => null);
    return real === null ? [path] : await skillDirsAt(real);
  }
  if (!info.isDirectory) {
    if (basename(path).toLowerCase() === "skill.md") return [dirname(path)];
    throw new SkillError(
      "usage",
      `Cannot validate ${path}: it is a file, not a skill directory or a SKILL.md`,
      { hint: "Give a skill's directory, its SKILL.md, or a folder that holds skills" },
    );
  }
  const found = await discoverSkills(path);
  return found.length > 0 ? found.map((skill) => skill.dir) : [path];
}
