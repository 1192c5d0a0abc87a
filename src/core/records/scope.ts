/**
 * Where a lifecycle command works, and so where its records go: the user's `$SKILLS_HOME`
 * (its registry records the skills) or a project root (its `skills-lock.json` records them;
 * the user's home still keeps that user's trust and links). Everything else a command does
 * to a skill is the same in both (ARCHITECTURE.md, "One lifecycle, two scopes").
 */

export type Scope =
  | { kind: "user"; home: string }
  | { kind: "project"; home: string; root: string };

export type UserScope = Extract<Scope, { kind: "user" }>;
export type ProjectScope = Extract<Scope, { kind: "project" }>;

/** Where project skills are installed (`skills add --project`), relative to the root. */
export const PROJECT_SKILLS_DIR = [".agents", "skills"] as const;

/**
 * The project lockfile's name at a root (model: lockfile.ts). Here, with the scopes, so
 * the catalog can tell whether a project has one without loading the lockfile's model.
 */
export const LOCKFILE_NAME = "skills-lock.json";

/** The folders of a directory project skills are found in, `.agents/skills` first. */
export const PROJECT_SKILL_FOLDERS = [[".agents", "skills"], [".claude", "skills"]] as const;

export interface ProjectRoot {
  /** The repository root, or (without one) the real working directory. */
  root: string;
  repository: boolean;
  /** The real working directory the search starts from. */
  from: string;
}

/** What the project search asks of the platform (pure here, the OS as a parameter). */
export interface ProjectProbe {
  /** Whether anything (a link included) is at `path`. */
  present(path: string): boolean;
  join(...parts: string[]): string;
  dirname(path: string): string;
}

/** The nearest ancestor of the real directory `from` (itself included) holding `.git`, else `from`. */
export function projectRootFrom(from: string, probe: ProjectProbe): ProjectRoot {
  for (let dir = from;;) {
    if (probe.present(probe.join(dir, ".git"))) return { root: dir, repository: true, from };
    const parent = probe.dirname(dir);
    if (parent === dir) return { root: from, repository: false, from };
    dir = parent;
  }
}

/** The user's home, where a search without a repository stops. */
export function userHomeIn(env: Readonly<Record<string, string>>): string | undefined {
  return env.HOME || env.USERPROFILE || undefined;
}

/**
 * The folders project skills are searched from, nearest first: up to the repository root, or
 * without one up to (not including) the user's home, else the filesystem root.
 */
export function projectSearchDirs(
  project: ProjectRoot,
  home: string | undefined,
  probe: Pick<ProjectProbe, "dirname">,
): string[] {
  const dirs: string[] = [];
  for (let dir = project.from;;) {
    if (!project.repository && home !== undefined && dir === home) break;
    dirs.push(dir);
    if (project.repository && dir === project.root) break;
    const parent = probe.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dirs;
}
