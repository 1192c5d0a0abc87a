/**
 * Finding skills in a tree, the one way `skills add` (in a fetched source) and
 * `skills validate` (in a user's directory) both do it.
 */

import { basename, dirname, join } from "../os/paths.ts";
import { lstatOrNull } from "../os/fs.ts";
import { SkillError } from "../../core/errors.ts";

const SKIP_DIRS = new Set([".git", "node_modules"]);
const MAX_DISCOVERY_DEPTH = 3;
const MAX_DISCOVERY_DIRS = 5_000;

interface FoundSkill {
  /** Absolute path of the skill directory. */
  dir: string;
  /** Path relative to the discovery base, "" for the base itself. */
  rel: string;
}

/**
 * Directories holding a SKILL.md: the base itself (then nothing else), else every one up to
 * three levels down (`skills/<name>/`, `.claude/skills/<name>/`, ...). A skill directory's
 * own subdirectories are its content and are not searched; `.git`, `node_modules` and
 * symlinked directories are skipped.
 */
export async function discoverSkills(base: string): Promise<FoundSkill[]> {
  if (await isSkillDir(base)) return [{ dir: base, rel: "" }];
  const found: FoundSkill[] = [];
  let visited = 0;
  const walk = async (dir: string, rel: string, depth: number) => {
    if (depth > MAX_DISCOVERY_DEPTH) return;
    const entries = await Array.fromAsync(Deno.readDir(dir));
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!entry.isDirectory || entry.isSymlink || SKIP_DIRS.has(entry.name)) continue;
      if (++visited > MAX_DISCOVERY_DIRS) return;
      const path = join(dir, entry.name);
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (await isSkillDir(path)) found.push({ dir: path, rel: childRel });
      else await walk(path, childRel, depth + 1);
    }
  };
  await walk(base, "", 1);
  return found;
}

async function isSkillDir(dir: string): Promise<boolean> {
  // lstat: a SKILL.md symlink still marks a skill (validation then refuses it).
  const info = await lstatOrNull(join(dir, "SKILL.md"));
  return info !== null && !info.isDirectory;
}

/**
 * The skill directories a path names, for validation: the skill of a `SKILL.md` file; the
 * skills found in a directory the way `skills add` finds them in a source (the directory
 * itself, or skills up to three levels down); else the path itself, so validation says
 * what is wrong with it. Any other file is a usage error.
 */
export async function skillDirsAt(path: string): Promise<string[]> {
  const info = await lstatOrNull(path);
  if (info === null) return [path];
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
