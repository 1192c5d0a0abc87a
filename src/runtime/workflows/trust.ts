/**
 * `skills trust <name>` below any front end, for either scope: the project skill of that name
 * (reviewed against the lockfile, approved by this user in `$SKILLS_HOME/project-trust.json`,
 * the lockfile's permissions kept in step: project/approvals.ts) or the installed one (its
 * files hashed afresh, validated, then its registry entry trusted with that digest through
 * the user's change). The asker is shown what is about to be trusted and approves it or not;
 * a skill already trusted with these very files is not asked about.
 */

import { declined } from "../../core/errors.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import type { InspectResult } from "../catalog/loader.ts";
import { currentDigest, inspectForTrust, trustTarget } from "../lifecycle/targets.ts";
import { trustProjectSkill, type TrustReview } from "../project/approvals.ts";
import {
  beginUserChange,
  chosenProjectSkill,
  type Reports,
  type ScopeChoice,
  type WorkflowRequest,
} from "./request.ts";

/** Which skill to trust, and in which scope. */
interface TrustRequest extends WorkflowRequest {
  name: string;
  /** Undefined: a project skill of that name wins over an installed one. */
  scope?: ScopeChoice;
}

/** An installed skill as the user is shown it before trusting it. */
export interface InstalledReview {
  entry: RegistryEntry;
  /** Its folder read in validation mode (it has no errors, or it would be refused). */
  inspected: InspectResult;
  /** The digest of its files now, which the approval binds. */
  digest: string;
}

/** What is to be trusted, shown to the asker before its answer. */
export type TrustQuestion =
  | { scope: "project"; review: TrustReview }
  | ({ scope: "user" } & InstalledReview);

/** What `trustWorkflow` asks: whether to trust what it was shown (no is `declined`). */
export interface TrustAsker extends Reports {
  approve(question: TrustQuestion): Promise<boolean>;
}

/** What `skills trust` did, or found done already. */
export type TrustOutcome =
  | { scope: "bundled"; name: string }
  | { scope: "project"; review: TrustReview }
  | { scope: "user"; name: string; digest: string; entry: RegistryEntry; changed: boolean };

/**
 * Trusts the skill `request.name` means with its current files, once the asker approves;
 * a bundled skill is always trusted, an unknown name is `not_found`, a skill with manifest
 * errors `invalid_manifest`, a no `declined`.
 */
export async function trustWorkflow(
  request: TrustRequest,
  asker: TrustAsker,
): Promise<TrustOutcome> {
  const { home } = request;
  await using change = await beginUserChange(request, asker);
  const projectSkill = await chosenProjectSkill(request);
  if (projectSkill !== undefined) {
    const approve = (review: TrustReview) => asker.approve({ scope: "project", review });
    return { scope: "project", review: await trustProjectSkill(home, projectSkill, approve) };
  }
  const target = await trustTarget(home, request.name);
  if (target.kind === "bundled") return { scope: "bundled", name: target.canonical };
  const entry = target.entry;
  const name = entry.name_canonical;
  const inspected = await inspectForTrust(name, entry.installed_path);
  const digest = await currentDigest(entry);
  if (entry.trusted && entry.trusted_digest === digest) {
    return { scope: "user", name, digest, entry, changed: false };
  }
  if (!await asker.approve({ scope: "user", entry, inspected, digest })) {
    throw declined(`Skill '${name}' was not trusted`);
  }
  const trusted = await change.trust(entry, digest);
  return { scope: "user", name, digest, entry: trusted, changed: true };
}
