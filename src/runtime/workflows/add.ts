/**
 * `skills add <source>` below any front end, for either scope: the source resolved once
 * (lifecycle/resolve_source.ts), one change of the scope the skills go to (`$SKILLS_HOME`,
 * or the project seen from `cwd`), the fetch, the skills the source holds and the ones chosen, the one install planner
 * (lifecycle/install_plan.ts) skill by skill, the refusals, each accepted skill committed,
 * then what follows (the user's trust of a project's skills, `--agent` links).
 *
 * The front end supplies an `AddAsker`: it is told what happens (progress, notes, the
 * summaries to show, the refusals as they come), chooses among several skills, and
 * confirms each install; it renders the `AddOutcome` this returns. It never touches
 * staging, the journal or the records.
 */

import { declined, isSkillError, SkillError } from "../../core/errors.ts";
import type { AgentName } from "../../core/agents.ts";
import type { LockedSkill } from "../../core/records/lockfile_model.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import type { Scope } from "../../core/records/scope.ts";
import type { RefFlags, ResolvedSource } from "../../core/sources/sources.ts";
import { beginChange, type Change, scopeOf } from "../lifecycle/change.ts";
import {
  type Candidate,
  type Fetched,
  inspectCandidates,
  selectCandidates,
  sourceLabel,
} from "../lifecycle/fetch_source.ts";
import type {
  AlreadyInstalled,
  InstallPlan,
  PlanFor,
  PlanOptions,
  ProjectPlan,
} from "../lifecycle/install_plan.ts";
import { lockfilePath } from "../lifecycle/lockfile.ts";
import { resolveRequest } from "../lifecycle/resolve_source.ts";
import { saveAuditRecord } from "../audit/record.ts";
import { detectedAgents, linkAdded, type LinkOutcome } from "../project/links.ts";
import { type ClosureMember, resolveClosure } from "./dependencies.ts";
import { trustInstalled } from "../project/approvals.ts";
import type { ScopeChoice, WorkflowRequest } from "./request.ts";

/** What `skills add` asks for: the source as typed, which skills, where, and how. */
export interface AddRequest extends WorkflowRequest {
  /** The source as the user typed it (resolved once, here). */
  source: string;
  /** `--ref`, `--branch`, `--tag`. */
  refs: RefFlags;
  /** `--skill` selectors (`*` for all). */
  skills: readonly string[];
  /** `"project"` (`--project`): into `<root>/.agents/skills`, recorded in skills-lock.json. */
  scope?: ScopeChoice;
  /** `--list`: a preview of the source's skills; nothing is installed. */
  list: boolean;
  /** `--allow-unsigned`: past the user's and project's signature rules (recorded). */
  allowUnsigned?: boolean | undefined;
  /** `--name NEW`, `--name OLD=NEW` and `--allow-risky`, for either scope. */
  plan: Pick<PlanOptions, "rename" | "renames" | "allowRisky">;
  /** `--agent`: link what was installed for these agents. */
  agents: readonly AgentName[];
  /** `--agent all-detected`: and for the agents installed on this machine. */
  allDetected?: boolean;
}

/** What the steps below are given: the request with the agents to link decided. */
type AddOptions = Omit<AddRequest, "source" | "refs" | "skills">;

/** A plan as the front end shows it before asking, with where it is recorded. */
export type AddReview =
  | { scope: "user"; plan: InstallPlan; fetched: Fetched }
  | { scope: "project"; plan: ProjectPlan; fetched: Fetched; lockfile: string };

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
interface Added<P, E> {
  installed: P[];
  already: AlreadyInstalled<E>[];
  refused: Refused[];
  links: LinkOutcome[];
}

/** What `addWorkflow` did, for the front end to render. */
export type AddOutcome =
  | { kind: "list"; fetched: Fetched; candidates: Candidate[] }
  | ({ kind: "user" } & Added<InstallPlan, RegistryEntry>)
  | ({ kind: "project"; lockfile: string } & Added<ProjectPlan, LockedSkill>);

/**
 * Adds the skills `request` names from its source to the scope it says, asking `asker`;
 * returns what was done. Any failure or Ctrl-C before a commit leaves everything as it was.
 */
export async function addWorkflow(request: AddRequest, asker: AddAsker): Promise<AddOutcome> {
  const { home, cwd, env } = request;
  const resolved = await resolveRequest(request.source, request.refs, request.skills, {
    cwd,
    env,
    home,
  });
  const options: AddOptions = {
    ...request,
    agents: request.allDetected
      ? [...new Set([...request.agents, ...detectedAgents(env)])]
      : request.agents,
  };
  return await addResolved(resolved, options, asker);
}

/** `addWorkflow` once the source is resolved. */
async function addResolved(
  { source, request, selectors }: Awaited<ReturnType<typeof resolveRequest>>,
  options: AddOptions,
  asker: AddAsker,
): Promise<AddOutcome> {
  const project = options.scope === "project";
  // Staging, crash recovery and Ctrl-C rollback are the change's; --list only previews.
  // One change of the scope the skills go to (a project's signer policy applies too).
  await using change = await beginChange(scopeOf(options.home, options.cwd, project), {
    env: options.env,
    signal: options.signal,
    progress: asker.progress === undefined ? undefined : (line) => asker.progress!(line),
    preview: options.list,
    allowUnsigned: options.allowUnsigned,
  });
  for (const note of change.recovered) asker.note?.(note);
  const fetched = await change.fetch(source, request);
  asker.fetched?.(fetched);
  const candidates = await inspectCandidates(fetched);
  asker.found?.(fetched, candidates);
  if (options.list) return { kind: "list", fetched, candidates };
  const selected = await choose(candidates, selectors, source, asker);
  asker.selected?.(selected);
  const closure = await resolveClosure(change, fetched, selected, options);
  if (closure.length > 0) asker.closure?.(closure);
  if (change.inProject()) {
    const { home, root } = change.scope;
    const lockfile = lockfilePath(root);
    const added = await installSelected(change, { fetched, selected, closure }, options, asker, {
      review: (plan, from) => ({ scope: "project", plan, fetched: from, lockfile }),
      requiredBy: (plan, names, ranges) =>
        Object.assign(plan.entry, {
          requiredBy: names,
          ...(ranges.length > 0 ? { versionRanges: ranges } : {}),
        }),
      // Each skill on its own; the commit's notes are not shown (as always for a project).
      commit: async (batch) => void await change.commitInstall(batch),
      together: false,
      settle: async (installed, already) => {
        // The user who confirmed these files trusts them, bound to the digest.
        await trustInstalled(home, root, installed.map((p) => p.canonical));
        return await linkFor(options, { kind: "project", root }, [...installed, ...already]);
      },
    });
    return { kind: "project", lockfile, ...added };
  }
  if (!change.inUser()) throw new Error("unreachable: a change is of one of the two scopes");
  const added = await installSelected(change, { fetched, selected, closure }, options, asker, {
    review: (plan, from) => ({ scope: "user", plan, fetched: from }),
    requiredBy: (plan, names, ranges) =>
      Object.assign(plan.entry, {
        required_by: names,
        ...(ranges.length > 0 ? { version_ranges: ranges } : {}),
      }),
    commit: async (batch) => {
      for (const note of await change.commitInstall(batch)) asker.note?.(note);
      for (const p of batch) await saveAuditRecord(options.home, p.canonical, p.digest, p.audit);
    },
    together: true,
    // An installed skill is the user's: it is linked into the agents' user folders.
    settle: (installed, already) => linkFor(options, { kind: "user" }, [...installed, ...already]),
  });
  return { kind: "user", ...added };
}

/** The skills to install: asked for by name, chosen by the asker, or the only one. */
async function choose(
  candidates: readonly Candidate[],
  selectors: readonly string[],
  source: ResolvedSource,
  asker: AddAsker,
): Promise<Candidate[]> {
  if (selectors.length === 0 && candidates.length > 1 && asker.choose !== undefined) {
    const chosen = await asker.choose(candidates, source);
    if (chosen !== undefined) return chosen;
  }
  return selectCandidates(candidates, selectors, sourceLabel(source));
}

/** Links what is installed in `scope` for the agents `--agent` named. */
function linkFor(
  options: AddOptions,
  scope: { kind: "user" } | { kind: "project"; root: string },
  added: readonly { canonical: string }[],
): Promise<LinkOutcome[]> {
  const names = new Set(added.map((p) => p.canonical));
  return linkAdded(options.home, options.env, { scope, cwd: options.cwd }, names, options.agents);
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
async function installSelected<S extends Scope>(
  change: Change<S>,
  { fetched, selected, closure }: AddSet,
  options: AddOptions,
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
  const already = [...planning.already, ...dependencies.already];
  const links = await steps.settle(installed, already);
  return { installed, already, refused, links };
}

/** The dependencies planned: each plan with the fetch it came from, and those already installed. */
interface ClosurePlans<P, E> {
  plans: { plan: P; fetched: Fetched }[];
  already: AlreadyInstalled<E>[];
}

/**
 * Plans every dependency like a skill asked for (names, digest, audit) and records who
 * requires it; a refusal or an unaccepted critical finding refuses the whole install.
 */
async function planClosure<S extends Scope>(
  change: Change<S>,
  closure: readonly ClosureMember[],
  options: AddOptions,
  asker: AddAsker,
  steps: ScopeSteps<PlanFor<S>, PlanFor<S>["entry"]>,
): Promise<ClosurePlans<PlanFor<S>, PlanFor<S>["entry"]>> {
  const out: ClosurePlans<PlanFor<S>, PlanFor<S>["entry"]> = { plans: [], already: [] };
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
