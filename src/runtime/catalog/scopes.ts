/**
 * The project scope (issue 17): skill folders in `.agents/skills/` and `.claude/skills/`
 * from the user's working directory up to the repository root (the nearest ancestor with a
 * `.git`); without a repository, up to (not including) `$HOME`, or the filesystem root.
 * Nearer folders win, and `.agents/skills` wins over `.claude/skills` in one folder.
 *
 * A repository is hostile: its skills are listed and their instructions readable, but they
 * are trusted only through `$SKILLS_HOME/project-trust.json` (this user's approvals, by
 * project root and folder, bound to a digest). Symlinks in the skill folders are followed
 * when they alias a skill already known (a link `skills link` made, a folder linked to
 * another skill folder, a user skill), or lead to a folder elsewhere in the project (a skill
 * of the project where the link is); any other is skipped with a note. The project's
 * `skills-lock.json` is read here too (store/lockfile.ts), so `list` and `info` can say where
 * a skill is from.
 *
 * Loading goes through a listing cache of its own per project root, keyed like the user
 * cache by directory stamps: `skills list` in a project of a thousand skills costs stats.
 */

import { basename, dirname, join, relative, SEP } from "../os/paths.ts";
import { canonicalSkillName, isValidSkillName } from "../../core/names.ts";
import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import { CatalogCache } from "./cache.ts";
import { SkillLoadError } from "./load_terms.ts";
import type { LoadedSkill, ProjectSkillInfo, SkillFailure, SkillScope } from "./loader.ts";
import type { LockRead } from "../store/lockfile.ts";
import type { LinkRecord } from "../../core/records/project_records.ts";

// Where project skills are installed: decided with the scopes themselves (core/records/scope).
import {
  LOCKFILE_NAME,
  PROJECT_SKILL_FOLDERS,
  PROJECT_SKILLS_DIR,
  type ProjectProbe,
  type ProjectRoot,
  projectRootFrom,
  projectSearchDirs,
  userHomeIn,
} from "../../core/records/scope.ts";
export { PROJECT_SKILLS_DIR };
export type { ProjectRoot };

/** The filesystem as the project search asks it. */
const PROBE: ProjectProbe = {
  present: (path) => lstatSyncOrNull(path) !== null,
  join,
  dirname,
};

function isFolder(path: string): boolean {
  return lstatSyncOrNull(path)?.isDirectory === true;
}

/** The nearest ancestor of `cwd` (itself included) holding `.git`, else `cwd` itself. */
export function findProjectRoot(cwd: string): ProjectRoot {
  let real: string;
  try {
    real = Deno.realPathSync(cwd);
  } catch {
    real = cwd;
  }
  return projectRootFrom(real, PROBE);
}

interface Candidate {
  /** The skill folder; for a symlink in a skill folder, the link itself until it is followed. */
  dir: string;
  /** A symlink, followed by {@link withoutExports} (or skipped there). */
  link?: true;
  /** Where it was found (not resolved): what a recorded copy would be named. */
  path: string;
  /** The real path of the skill folder holding it (containment root). */
  folder: string;
  /** The root its trust is keyed by, and its path relative to that root. */
  keyRoot: string;
  rel: string;
}

interface Found {
  /** Folders and symlinks of the skill folders, nearest first. */
  candidates: Candidate[];
  notes: string[];
}

/** Lists the skill directories and symlinks of every project skill folder, nearest first. */
function findCandidates(project: ProjectRoot, env: Readonly<Record<string, string>>): Found {
  const userHome = userHomeIn(env);
  const candidates: Candidate[] = [];
  const notes: string[] = [];
  const scanned = new Set<string>();
  for (const dir of projectSearchDirs(project, userHome, PROBE)) {
    const keyRoot = project.repository ? project.root : dir;
    for (const parts of PROJECT_SKILL_FOLDERS) {
      const path = join(dir, ...parts);
      if (lstatSyncOrNull(path) === null) continue;
      let folder: string;
      try {
        folder = Deno.realPathSync(path);
      } catch {
        continue;
      }
      // `.claude/skills` linked to `.agents/skills` is one folder, listed once.
      if (scanned.has(folder)) continue;
      scanned.add(folder);
      if (!isWithin(keyRoot, folder)) {
        notes.push(`Skipped ${path}: it links outside the project (${folder})`);
        continue;
      }
      let entries: Deno.DirEntry[];
      try {
        entries = [...Deno.readDirSync(folder)];
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // Paths by concatenation: a thousand skills make path functions a visible cost.
      const relPrefix = [relative(keyRoot, dir).replaceAll("\\", "/"), ...parts]
        .filter((p) => p !== "").join("/");
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue;
        const at = `${path}${SEP}${entry.name}`;
        const rel = `${relPrefix}/${entry.name}`;
        if (entry.isSymlink) {
          candidates.push({ dir: at, link: true, path: at, folder, keyRoot, rel });
        } else if (entry.isDirectory) {
          candidates.push({ dir: `${folder}${SEP}${entry.name}`, path: at, folder, keyRoot, rel });
        }
      }
    }
  }
  return { candidates, notes };
}

/**
 * The candidates that are skills of their own: links and copies `skills link` made
 * (`recorded`) are exports of known skills. A symlink to a folder elsewhere in the project
 * (`.claude/skills/x -> ../../tools/x`, as repositories link their skills into an agent's
 * folder) is a project skill where the link is: its files are the project's, as a folder's
 * there would be, and it is trusted only as one, by its path and digest. Any other symlink
 * (out of the project, to a file, to a folder holding the link) is skipped with a note.
 */
function withoutExports(
  { candidates, notes }: Found,
  home: string,
  recorded: readonly LinkRecord[],
): Candidate[] {
  const copies = new Set(recorded.filter((l) => l.mode === "copy").map((l) => l.path));
  const known = new Set(candidates.filter((c) => !c.link).map((c) => c.dir));
  let realHome = home;
  try {
    realHome = Deno.realPathSync(home);
  } catch { /* not there yet */ }
  const kept: Candidate[] = [];
  for (const candidate of candidates) {
    if (!candidate.link) {
      if (!copies.has(candidate.path)) kept.push(candidate);
      continue;
    }
    const { link: _, ...link } = candidate;
    let target: string;
    try {
      target = Deno.realPathSync(link.path);
    } catch {
      notes.push(`Skipped ${link.path}: a broken symlink`);
      continue;
    }
    const alias = known.has(target) || isWithin(realHome, target) || isWithin(home, target) ||
      recorded.some((l) => l.path === link.path);
    if (alias) continue;
    if (isWithin(link.keyRoot, target) && !isWithin(target, link.folder) && isFolder(target)) {
      known.add(target);
      kept.push({ ...link, dir: target, folder: link.keyRoot });
      continue;
    }
    notes.push(`Skipped ${link.path}: a symlink to ${target}, which is not a known skill`);
  }
  return kept;
}

/**
 * The project's lockfile, read when there is one: its reader and the lockfile's model are
 * loaded only then (a run with no project around never needs them).
 */
async function readLock(root: string): Promise<LockRead> {
  const path = join(root, LOCKFILE_NAME);
  if (lstatSyncOrNull(path) === null) return { state: "absent", path };
  const { readProjectLock } = await import("../store/lockfile.ts");
  return readProjectLock(root);
}

/** A project skill that could not be loaded, as the catalog lists it. */
function projectFailure(
  dir: string,
  origin: SkillFailure["origin"],
  trusted: boolean,
  error: SkillLoadError,
): SkillFailure {
  const name = basename(dir);
  return {
    name,
    canonical: isValidSkillName(name) ? canonicalSkillName(name) : name,
    dir,
    origin,
    trusted,
    reason: error.message,
    entry: undefined,
    scope: "project",
  };
}

/** A short stable hash of a path, to name the project's cache file. */
function pathKey(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    hash ^= path.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

export type Loaded = { record: LoadedSkill } | { failure: SkillFailure };

interface ProjectLoad {
  project: ProjectRoot;
  lock: LockRead;
  /** In precedence order (nearest first); the catalog merges and reports shadowing. */
  loaded: Loaded[];
  notes: string[];
}

/** Discovers and loads the project skills seen from `cwd`. Never throws for one bad skill. */
export async function loadProjectSkills(
  home: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
): Promise<ProjectLoad> {
  const project = findProjectRoot(cwd);
  const lock = await readLock(project.root);
  const found = findCandidates(project, env);
  // The link and trust records (and their model) are read only when a skill folder holds
  // something: a run with no project skills around never loads them.
  const records = found.candidates.length === 0
    ? undefined
    : await import("../store/project_records.ts");
  const candidates = records === undefined
    ? found.candidates
    : withoutExports(found, home, records.readLinks(home).doc.links);
  const { notes } = found;
  if (lock.state === "invalid") notes.push(`Cannot read ${lock.path}: it ${lock.reason}`);
  const loaded: Loaded[] = [];
  if (records === undefined || candidates.length === 0) return { project, lock, loaded, notes };
  const trust = records.readProjectTrust(home);
  if (trust.problem !== undefined) {
    notes.push(`${trust.problem}; project skills count as untrusted`);
  }
  // Its stats are not kept: the listing's digest check reuses the user scope's only.
  const cache = CatalogCache.load(home, `projects/catalog-${pathKey(project.root)}.json`, false);
  const lockedSkills = lock.state === "ok" ? lock.lock.skills : {};
  const installedPrefix = `${PROJECT_SKILLS_DIR.join("/")}/`;
  for (const c of candidates) {
    const key = c.rel.startsWith(installedPrefix) && c.keyRoot === project.root
      ? c.rel.slice(installedPrefix.length)
      : undefined;
    const locked = key !== undefined && Object.hasOwn(lockedSkills, key)
      ? lockedSkills[key]
      : undefined;
    const trustedDigest = trust.doc.projects[c.keyRoot]?.[c.rel]?.digest ?? null;
    const info: ProjectSkillInfo = { root: c.keyRoot, rel: c.rel, trustedDigest, locked };
    const origin = locked?.source.type ?? "local";
    const trusted = trustedDigest !== null;
    const cached = cache.get(c.dir);
    if (cached !== undefined) {
      // A fresh object per lookup: completed in place, as the user scope's (catalog.ts).
      const scope: SkillScope = "project";
      loaded.push({
        record: Object.assign(cached, { origin, trusted, entry: undefined, scope, project: info }),
      });
      continue;
    }
    // The loader only on a cache miss (see catalog.ts).
    const { loadSkillDir } = await import("./loader.ts");
    try {
      const record = await loadSkillDir(c.dir, c.folder, {
        origin,
        trusted,
        rootIsReal: true,
        scope: "project",
        project: info,
      });
      cache.set(c.dir, record);
      loaded.push({ record });
    } catch (error) {
      if (!(error instanceof SkillLoadError)) throw error;
      // A folder with no manifest at all that the lockfile does not name is no skill: a
      // repository's shared helpers (`.claude/skills/common/`) or a folder of skills are
      // left out, as agents leave them out, not listed as a broken skill each time.
      if (locked === undefined && error.noManifest) continue;
      loaded.push({ failure: projectFailure(c.dir, origin, trusted, error) });
    }
  }
  await cache.save(new Set(candidates.map((c) => c.dir)));
  return { project, lock, loaded, notes };
}
