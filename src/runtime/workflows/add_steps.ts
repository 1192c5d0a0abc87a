/**
 * The steps of `skills add` once its skills are chosen, the same for either scope
 * (`installSelected`, for add.ts): each skill planned in the change's scope, its summary
 * shown, refused or confirmed by the asker, the accepted ones committed (together where the
 * scope does so, one by one only to find the culprit of a failure), and a closure of
 * dependencies planned, shown, confirmed and committed as one. What the asker is told and
 * asked is declared here (`AddAsker`, `AddReview`).
 */

import { declined, isSkillError, SkillError } from "../../core/errors.ts";
import type { Scope } from "../../core/records/scope.ts";
import type { ResolvedSource } from "../../core/sources/sources.ts";
import type { Change } from "../lifecycle/change.ts";
import type { Candidate, Fetched } from "../lifecycle/fetch_source.ts";
import type {
  AlreadyInstalled,
  InstallPlan,
  PlanFor,
  PlanOptions,
  ProjectPlan,
} from "../lifecycle/install_plan.ts";
import type { LinkOutcome } from "../project/links.ts";
import type { ClosureMember } from "./dependencies.ts";

/** A plan as the front end shows it before asking, with where it is recorded. */
export type AddReview =
  | { scope: "user"; plan: InstallPlan; fetched: Fetched }
  | { scope: "project"; plan: ProjectPlan; fetched: Fetched; lockfile: string };

/** A skill `--skill '*'` left out for a same-named one: the one installed, and why. */
export interface SkippedTwin {
  kept: Candidate;
  /**
   * `declared`: the kept one is the source's own (its plugin manifest, or the top `skills/`);
   * `agent-folder`: the kept one is in an agent's folder at the top (`.agents/skills/`), this
   * one was only come upon; `shallower`: the kept one was found within three levels, this one
   * only by the deeper search of a tree with no layout; `identical`: the two hold the same bytes.
   */
  because: "collection" | "declared" | "agent-folder" | "shallower" | "identical";
}

/**
 * What the front end does for `addWorkflow`: only `confirm` is required; a callback left out
 * is a report nobody shows, and without `choose` the selection rules decide.
 */
export interface AddAsker {
  /** Progress lines of the fetch. */
  progress?(message: string): void;
  /** Notes as they arise (what recovering after a dead command did, a commit's notes). */
  note?(text: string): void;
  /** The source was fetched (its revision, if any, is known now). */
  fetched?(fetched: Fetched): void;
  /** The skills the source holds, read in validation mode. */
  found?(fetched: Fetched, candidates: readonly Candidate[]): void;
  /**
   * Which of several skills to install when none was asked for by name; undefined when
   * nobody can be asked (then the selection rules decide).
   */
  choose?(
    candidates: readonly Candidate[],
    source: ResolvedSource,
  ): Promise<Candidate[] | undefined>;
  /**
   * Folders `--skill '*'` left out because their SKILL.md is a symlink (one line for them all,
   * not a refusal each: a repository's mirror of its skills for another agent).
   */
  skippedLinks?(linked: readonly Candidate[]): void;
  /**
   * Skills `--skill '*'` left out for a same-named one it installs (each with that one and
   * why), one line for them all.
   */
  skippedTwins?(twins: ReadonlyMap<Candidate, SkippedTwin>): void;
  /**
   * Folders `--skill '*'` left out because their SKILL.md has no front matter and the source
   * does not name them as skills, one line for them all.
   */
  skippedFragments?(fragments: readonly Candidate[]): void;
  /** The skills chosen, before they are planned (their warnings to show). */
  selected?(selected: readonly Candidate[]): void;
  /**
   * What the chosen skills require, resolved before any question: one summary of every
   * dependency (each is then reviewed and confirmed like the skills asked for).
   */
  closure?(members: readonly ClosureMember[]): void;
  /** A skill refused, as it happens (the others go on). */
  refused?(name: string, error: SkillError): void;
  /** A plan's summary, shown before any question. */
  review?(review: AddReview): void;
  /** Whether to install this plan. */
  confirm(review: AddReview): Promise<boolean>;
}

/** A skill of a bulk install that was not installed, and why (as `add --json` reports it). */
interface Refused {
  name: string;
  code: string;
  message: string;
  hint: string | undefined;
}

/** What an install did: installed, already installed (nothing to do), refused, linked. */
export interface Added<P, E> {
  installed: P[];
  already: AlreadyInstalled<E>[];
  refused: Refused[];
  links: LinkOutcome[];
}

/** What differs between the scopes once the plans are made. */
interface ScopeSteps<P, E> {
  review(plan: P, fetched: Fetched): AddReview;
  /** Records in a dependency's entry the skills that require it, and the ranges they ask. */
  requiredBy(plan: P, names: string[], ranges: string[]): void;
  commit(batch: readonly P[]): Promise<void>;
  /** Whether the accepted plans are committed in one step first (one record write). */
  together: boolean;
  /** After the commits: what follows from them; the links made. */
  settle(installed: readonly P[], already: readonly AlreadyInstalled<E>[]): Promise<LinkOutcome[]>;
}

/** What to install: the skills chosen from the fetch, and the closure of what they require. */
interface AddSet {
  fetched: Fetched;
  selected: readonly Candidate[];
  closure: readonly ClosureMember[];
}

/**
 * Plans each selected skill in the change's scope, shows the summaries, refuses what must
 * be refused, asks about the rest, commits what was accepted and settles. With dependencies,
 * the closure is one install: every skill of it planned, shown and confirmed, all committed
 * together, and any refusal or "no" installs nothing.
 */
export async function installSelected<S extends Scope>(
  change: Change<S>,
  { fetched, selected, closure }: AddSet,
  options: { plan: Pick<PlanOptions, "rename" | "renames" | "allowRisky"> },
  asker: AddAsker,
  steps: ScopeSteps<PlanFor<S>, PlanFor<S>["entry"]>,
): Promise<Added<PlanFor<S>, PlanFor<S>["entry"]>> {
  const planning = await change.planEach(fetched, selected, options.plan);
  // One skill asked for and refused: the error is the answer, as it always was.
  if (selected.length === 1 && planning.refused.length === 1) throw planning.refused[0]!.error;
  if (closure.length > 0 && planning.refused.length > 0) throw planning.refused[0]!.error;
  const refused: Refused[] = [];
  const refuse = (name: string, error: SkillError) => {
    refused.push({ name, code: error.code, message: error.message, hint: error.hint });
    asker.refused?.(name, error);
  };
  for (const r of planning.refused) refuse(r.label, r.error);
  for (const plan of planning.plans) asker.review?.(steps.review(plan, fetched));
  const dependencies = await planClosure(change, closure, options, asker, steps);
  // Critical findings refuse a skill after its summary showed them and before any question:
  // the only one asked for is refused with the error; in a bulk selection, that skill alone.
  const { safe, risky } = change.setRiskyApart(planning.plans);
  for (const { plan, error } of risky) {
    if (selected.length === 1 || closure.length > 0) throw error;
    refuse(plan.canonical, error);
  }
  const accepted: PlanFor<S>[] = [];
  for (const plan of safe) {
    if (await asker.confirm(steps.review(plan, fetched))) accepted.push(plan);
  }
  if (safe.length > 0 && accepted.length === 0) {
    throw declined("Installation declined; nothing was installed");
  }
  for (const { plan, fetched: from } of dependencies.plans) {
    if (!(await asker.confirm(steps.review(plan, from)))) {
      throw declined(`Dependency '${plan.canonical}' declined; nothing was installed`);
    }
  }
  const installed = closure.length > 0
    ? await commitClosure([...accepted, ...dependencies.plans.map((d) => d.plan)], steps)
    : await commitAccepted(accepted, steps, refuse);
  // A dependency installed already is required by these skills too (`why`, `remove`).
  await change.recordRequirers(dependencies.requirers);
  const already = [...planning.already, ...dependencies.already];
  const links = await steps.settle(installed, already);
  return { installed, already, refused, links };
}

/** The dependencies planned: each plan with the fetch it came from, and those already installed. */
interface ClosurePlans<P, E> {
  plans: { plan: P; fetched: Fetched }[];
  already: AlreadyInstalled<E>[];
  /** Dependencies installed already, and the skills of this install that require them. */
  requirers: { canonical: string; requiredBy: string[] }[];
}

/**
 * Plans every dependency like a skill asked for (names, digest, audit) and records who
 * requires it; a refusal or an unaccepted critical finding refuses the whole install.
 */
async function planClosure<S extends Scope>(
  change: Change<S>,
  closure: readonly ClosureMember[],
  options: { plan: Pick<PlanOptions, "rename" | "renames" | "allowRisky"> },
  asker: AddAsker,
  steps: ScopeSteps<PlanFor<S>, PlanFor<S>["entry"]>,
): Promise<ClosurePlans<PlanFor<S>, PlanFor<S>["entry"]>> {
  const out: ClosurePlans<PlanFor<S>, PlanFor<S>["entry"]> = {
    plans: [],
    already: [],
    requirers: [],
  };
  for (const member of closure) {
    const planning = await change.planEach(member.fetched, [member.candidate], {
      allowRisky: options.plan.allowRisky,
    });
    const refusal = planning.refused[0];
    if (refusal !== undefined) {
      throw new SkillError(
        refusal.error.code,
        `Cannot install ${member.path.join(" → ")}: its dependency ${refusal.error.message}`,
        { hint: "Nothing was installed" },
      );
    }
    for (const plan of planning.plans) {
      steps.requiredBy(plan, [...member.requiredBy].sort(), member.ranges);
      asker.review?.(steps.review(plan, member.fetched));
    }
    const { risky } = change.setRiskyApart(planning.plans);
    if (risky[0] !== undefined) throw risky[0].error;
    out.plans.push(...planning.plans.map((plan) => ({ plan, fetched: member.fetched })));
    out.already.push(...planning.already);
    for (const already of planning.already) {
      out.requirers.push({ canonical: already.canonical, requiredBy: [...member.requiredBy] });
    }
  }
  return out;
}

/** Commits a closure in one step: all of it, or (rolled back) none of it. */
async function commitClosure<P>(
  plans: readonly P[],
  steps: Pick<ScopeSteps<P, unknown>, "commit">,
): Promise<P[]> {
  await steps.commit(plans);
  return [...plans];
}

/**
 * Commits the accepted plans: all of them in one step when the scope does so (one lock,
 * one journal, one record write however many skills), and only if that fails, one by one,
 * so that a skill that fails does not take the others with it (it is refused), unless it
 * was the only one or the user interrupted.
 */
async function commitAccepted<P extends { canonical: string }>(
  accepted: readonly P[],
  steps: Pick<ScopeSteps<P, unknown>, "commit" | "together">,
  refuse: (name: string, error: SkillError) => void,
): Promise<P[]> {
  if (accepted.length > 1 && steps.together) {
    try {
      await steps.commit(accepted);
      return [...accepted];
    } catch (error) {
      // All or nothing failed (and rolled back): find the culprit by committing each alone.
      if (!isSkillError(error) || error.code === "cancelled") throw error;
    }
  }
  const installed: P[] = [];
  for (const plan of accepted) {
    try {
      await steps.commit([plan]);
      installed.push(plan);
    } catch (error) {
      if (accepted.length === 1 || !isSkillError(error) || error.code === "cancelled") throw error;
      refuse(plan.canonical, error);
    }
  }
  return installed;
}
