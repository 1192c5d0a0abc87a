/**
 * What every workflow is given, and how a skill's name picks its scope: where the command
 * runs (the user's `$SKILLS_HOME`, the working directory the project is seen from, the
 * environment, Ctrl-C), and, as an option, the scope the user named.
 */

import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import type { LoadedSkill } from "../catalog/loader.ts";
import { beginChange, type Change } from "../lifecycle/change.ts";
import { projectSkillNamed } from "../project/approvals.ts";

/** Where a workflow runs and for whom. */
export interface WorkflowRequest {
  /** The user's `$SKILLS_HOME`. */
  home: string;
  /** The working directory: the project is the one seen from here. */
  cwd: string;
  /** The user's environment (git gets a filtered copy). */
  env: Readonly<Record<string, string>>;
  /** Ctrl-C: stops git; whatever was staged is rolled back. */
  signal?: AbortSignal | undefined;
}

/**
 * The scope a workflow acts in: `"project"` (the project seen from `cwd` only), `"user"`
 * (`$SKILLS_HOME` only), or `undefined`: each name decides, a project skill winning over an
 * installed one of the same name, as everywhere (issue 17).
 */
export type ScopeChoice = "user" | "project" | undefined;

/** What any asker may be told while a workflow runs; each a report nobody need show. */
export interface Reports {
  /** Notes as they arise (what recovering after a dead command did, a commit's notes). */
  note?(text: string): void;
}

/**
 * A change of the user's scope for `request`: what a command that died left half-done is
 * recovered first, and the asker is told what that did.
 */
export async function beginUserChange(request: WorkflowRequest, asker: Reports): Promise<Change> {
  const change = await beginChange({ kind: "user", home: request.home }, {
    env: request.env,
    signal: request.signal,
  });
  for (const note of change.recovered) asker.note?.(note);
  return change;
}

/**
 * The project skill a name means in the scope chosen: none when the user's scope is named;
 * the project's skill of that name when it has one; with the project's scope named and no
 * such skill, `not_found`.
 */
export async function chosenProjectSkill(
  request: WorkflowRequest & { name: string; scope?: ScopeChoice },
): Promise<LoadedSkill | undefined> {
  if (request.scope === "user") return undefined;
  const skill = await projectSkillNamed(request.home, request.cwd, request.env, request.name);
  if (skill === undefined && request.scope === "project") throw notInProject(request.name);
  return skill;
}

/** A name asked of the project's scope (`scope: "project"`) that no project skill has. */
function notInProject(name: string): SkillError {
  return new SkillError("not_found", `No project skill '${canonicalSkillName(name)}' here`, {
    hint: "Run `skills list` to see the project's skills",
  });
}
