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
 * The project lockfile's name at a root (model: lockfile_model.ts). Here, with the scopes, so
 * the catalog can tell whether a project has one without loading the lockfile's model.
 */
export const LOCKFILE_NAME = "skills-lock.json";
