/**
 * `skills untrust <name>` below any front end, for either scope: the project skill of that
 * name (this user's approval in `$SKILLS_HOME/project-trust.json` withdrawn) or the installed
 * one (its registry entry's trust withdrawn through the user's change). The skill stays where
 * it is; it will not run until trusted again. Nothing is asked.
 */

import { SkillError } from "../../core/errors.ts";
import { trustTarget } from "../lifecycle/targets.ts";
import { withdrawProjectTrust } from "../project/approvals.ts";
import {
  beginUserChange,
  chosenProjectSkill,
  type Reports,
  type ScopeChoice,
  type WorkflowRequest,
} from "./request.ts";

/** Which skill to untrust, and in which scope. */
interface UntrustRequest extends WorkflowRequest {
  name: string;
  /** Undefined: a project skill of that name wins over an installed one. */
  scope?: ScopeChoice;
}

/** What `skills untrust` did: whose approval, and whether there was one to withdraw. */
export interface UntrustOutcome {
  scope: "user" | "project";
  /** The skill's canonical name. */
  name: string;
  /** Whether it was trusted before (and so whether anything was written). */
  changed: boolean;
}

/**
 * Withdraws the user's trust of the skill `request.name` means; a bundled skill is refused
 * (`permission_denied`), an unknown name is `not_found`.
 */
export async function untrustWorkflow(
  request: UntrustRequest,
  asker: Reports,
): Promise<UntrustOutcome> {
  const { home, env } = request;
  await using change = await beginUserChange(request, asker);
  const projectSkill = await chosenProjectSkill(request);
  if (projectSkill !== undefined) {
    const changed = await withdrawProjectTrust(home, projectSkill, env);
    return { scope: "project", name: projectSkill.canonical, changed };
  }
  const target = await trustTarget(home, request.name);
  if (target.kind === "bundled") {
    throw new SkillError(
      "permission_denied",
      `Cannot untrust skill '${target.canonical}': it is bundled and always trusted`,
      { hint: "Deactivate it with AGENT_SKILLS instead" },
    );
  }
  const changed = target.entry.trusted && target.entry.trusted_digest !== null;
  if (changed) await change.untrust(target.entry);
  return { scope: "user", name: target.entry.name_canonical, changed };
}
