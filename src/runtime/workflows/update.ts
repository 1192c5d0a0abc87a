/**
 * `skills update [<name>...|--all]` below any front end, for both scopes: one change of the
 * user's (which fetches for both), the steps of the project's skills then the installed ones
 * (update_steps.ts), each planned, shown, confirmed by the asker and applied in turn, the
 * same way whatever its scope. Of several installed skills, the accepted ones are swapped in
 * together at the end (one registry write) and said updated then. What the asker is told of
 * each skill is its final outcome, in order; the outcomes are returned for the front end.
 */

import { isSkillError, SkillError } from "../../core/errors.ts";
import type { RefRequest } from "../../core/sources/sources.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import { beginChange } from "../lifecycle/change.ts";
import { beginUpdates, type Updates, type UpdateStep, type UpdateView } from "./update_steps.ts";
import type { Reports, ScopeChoice, WorkflowRequest } from "./request.ts";

/** Which skills to update, from which scope, and what the user allowed. */
export interface UpdateRequest extends WorkflowRequest {
  /** Canonical names; none means every skill of the scope asked (`--all`, or the project's). */
  names: readonly string[];
  all: boolean;
  /** `"project"`: the project's locked skills only; undefined: the lockfile's names are its. */
  scope?: ScopeChoice;
  /** `--dry-run`: planned and shown, nothing written. */
  dryRun: boolean;
  /** `--force`: local changes are discarded. */
  force: boolean;
  /** `--ref`/`--branch`/`--tag`: the one named skill moved to follow this. */
  ref: RefRequest | undefined;
  allowRisky: boolean;
  allowUnsigned: boolean;
  acceptSignerChange: boolean;
}

/** What `updateWorkflow` asks and tells. */
export interface UpdateAsker extends Reports {
  /** Progress lines of the fetches. */
  progress?(message: string): void;
  /** What an update would change, shown before it is asked about or refused for its findings. */
  preview?(plan: UpdateView): void;
  /** Whether to apply this update. */
  confirm(plan: UpdateView): Promise<boolean>;
  /** A skill's final outcome, as soon as it is known, in order. */
  settled?(outcome: UpdateOutcome): void;
}

/** What became of one skill in an update (the `status` of `skills update --json`). */
export type UpdateStatus =
  | "up_to_date"
  | "pinned"
  | "moved"
  | "would_update"
  | "updated"
  | "declined"
  | "blocked"
  | "failed";

/** One skill's outcome. */
interface UpdateOutcome {
  name: string;
  status: UpdateStatus;
  plan: UpdateView | undefined;
  error: SkillError | undefined;
}

/** A step accepted to be swapped in with the others, and where its outcome stands. */
type Waiting = { step: UpdateStep; at: number };

/**
 * Updates the skills `request` names in their scopes, asking `asker` about each. A single
 * skill's failure is thrown; of several, each failure is that skill's outcome.
 */
export async function updateWorkflow(
  request: UpdateRequest,
  asker: UpdateAsker,
): Promise<UpdateOutcome[]> {
  const { home, cwd } = request;
  const project = request.scope === "project";
  // Staging, crash recovery and Ctrl-C rollback are the change's; --dry-run only previews.
  await using change = await beginChange({ kind: "user", home }, {
    env: request.env,
    signal: request.signal,
    progress: asker.progress === undefined ? undefined : (line) => asker.progress!(line),
    preview: request.dryRun,
    // The project's signer policy applies to its skills (--project), on top of the user's.
    project: project ? findProjectRoot(cwd).root : undefined,
    allowUnsigned: request.allowUnsigned,
    acceptSignerChange: request.acceptSignerChange,
  });
  for (const note of change.recovered) asker.note?.(note);
  await using updates = await beginUpdates(home, cwd, change, request);
  const { steps } = updates;
  if (steps.length === 0) return [];
  for (const note of updates.recovered) asker.note?.(note);
  const single = steps.length === 1;
  const outcomes: UpdateOutcome[] = [];
  const later: Waiting[] = [];
  for (const [i, step] of steps.entries()) {
    let waits = false;
    try {
      const settled = await settle(request, asker, step, single);
      waits = settled.waits;
      if (waits) later.push({ step, at: outcomes.length });
      outcomes.push(settled.outcome);
    } finally {
      // What it staged is kept until the swap that waits for it.
      if (!waits) step.discard();
      // A repository's fetch is kept while a skill still to come needs it, no longer.
      const needed = steps.slice(i + 1).flatMap((s) => (s.remote === undefined ? [] : [s.remote]));
      change.releaseShared(new Set(needed));
    }
  }
  if (later.length > 0) await swapTogether(asker, updates, later, outcomes);
  // Skills whose repository moved but whose files did not: their new commits, one write each.
  if (!request.dryRun) {
    for (const note of await updates.recordMoved()) asker.note?.(note);
  }
  return outcomes;
}

/**
 * One step planned, shown, confirmed and applied — or, of several installed skills, kept
 * for the swap together (`waits`). A failure of one of several is its outcome, said at
 * once; a single skill's, a cancel or any other error is thrown.
 */
async function settle(
  request: UpdateRequest,
  asker: UpdateAsker,
  step: UpdateStep,
  single: boolean,
): Promise<{ outcome: UpdateOutcome; waits: boolean }> {
  let plan: UpdateView | undefined;
  let waits = false;
  try {
    plan = await step.plan();
    const together = step.together === true && !single;
    const apply = together
      ? () => {
        waits = true;
        return Promise.resolve([]);
      }
      : step.apply;
    const outcome = await decide(request, asker, plan, apply);
    if (single && outcome.error) throw outcome.error;
    if (!waits) asker.settled?.(outcome);
    return { outcome, waits };
  } catch (error) {
    if (single || !isSkillError(error) || error.code === "cancelled") throw error;
    const outcome: UpdateOutcome = { name: step.name, status: "failed", plan, error };
    asker.settled?.(outcome);
    return { outcome, waits: false };
  }
}

/**
 * The accepted installed skills swapped in together (one registry write), each outcome
 * then made final — updated, or failed with the swap's error — said and its staging freed.
 */
async function swapTogether(
  asker: UpdateAsker,
  updates: Updates,
  later: readonly Waiting[],
  outcomes: UpdateOutcome[],
): Promise<void> {
  const results = await updates.applyTogether(later.map(({ step }) => step.name));
  for (const { step, at } of later) {
    const result = results.get(step.name)!;
    const outcome: UpdateOutcome = result instanceof SkillError
      ? { ...outcomes[at]!, status: "failed", error: result }
      : outcomes[at]!;
    if (!(result instanceof SkillError)) { for (const note of result) asker.note?.(note); }
    outcomes[at] = outcome;
    asker.settled?.(outcome);
    step.discard();
  }
}

/** What becomes of one planned skill: nothing to do, refused, declined, or applied. */
async function decide(
  request: UpdateRequest,
  asker: UpdateAsker,
  plan: UpdateView,
  apply: () => Promise<string[]>,
): Promise<UpdateOutcome> {
  const name = plan.canonical;
  if (plan.kind !== "update") return { name, status: plan.kind, plan, error: undefined };
  if (request.dryRun) return { name, status: "would_update", plan, error: undefined };
  if (plan.localChanges && !request.force) {
    const error = new SkillError(
      "conflict",
      `Cannot update skill '${name}': local changes would be discarded`,
      { hint: `Its files differ from what was installed; review them, then pass --force` },
    );
    return { name, status: "blocked", plan, error };
  }
  const risky = plan.staged?.risky ?? [];
  // Shown first (what the commit adds); a risky one is then refused without a question.
  asker.preview?.(plan);
  if (risky.length > 0) {
    return { name, status: "blocked", plan, error: riskyError(name, risky.length, plan.scope) };
  }
  if (!await asker.confirm(plan)) return { name, status: "declined", plan, error: undefined };
  for (const note of await apply()) asker.note?.(note);
  return { name, status: "updated", plan, error: undefined };
}

function riskyError(name: string, count: number, scope: UpdateView["scope"]): SkillError {
  // An acceptance is kept in the registry; a project's lockfile is shared, so not there.
  const recorded = scope === "user" ? " (recorded in the registry)" : "";
  return new SkillError(
    "risky_skill",
    `Cannot update skill '${name}': the new version adds ${count} critical audit finding${
      count === 1 ? "" : "s"
    }`,
    { hint: `Review them above; to update anyway, pass --allow-risky${recorded}` },
  );
}
