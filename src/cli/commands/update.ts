/** `skills update [<name>...|--all]`: review what changed upstream, confirm, swap atomically. */

import { isSkillError, SkillError, UsageError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { type RefFlags, refRequest } from "../../core/sources/sources.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { findProjectRoot } from "../../runtime/catalog/scopes.ts";
import { beginUpdates } from "../../runtime/project/update.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { updateSpec } from "../specs/update.ts";
import { confirmAction, progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { type Outcome, type PlanView, render, toJson, versions } from "../ui/update_ui.ts";

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  updateSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const refs: RefFlags = { ref: values.ref, branch: values.branch, tag: values.tag };
    const base = {
      ...flags,
      names: [] as string[],
      all: values.all === true,
      /** Only the project's locked skills. */
      project: values.project === true,
      refs,
      dryRun: values["dry-run"] === true,
      force: values.force === true,
      yes: values.yes === true,
      allowRisky: values["allow-risky"] === true,
      allowUnsigned: values["allow-unsigned"] === true,
      acceptSignerChange: values["accept-signer-change"] === true,
    };
    if (flags.help) return base;
    const hint = "Run `skills update --help` for usage";
    if (positionals.length === 0 && !base.all && !base.project) {
      throw new UsageError("Name the skills to update, or pass --all", hint);
    }
    if (positionals.length > 0 && base.all) {
      throw new UsageError("Give skill names or --all, not both", hint);
    }
    const moving = Object.values(refs).some((v) => v !== undefined);
    if (moving && (base.all || positionals.length !== 1)) {
      throw new UsageError("--ref, --branch and --tag move exactly one named skill", hint);
    }
    if (moving) refRequest(refs, undefined); // validates and rejects conflicting flags
    return { ...base, names: positionals.map((n) => canonicalSkillName(n)) };
  },
);

type UpdateOptions = OptionsOf<typeof parse>;

/**
 * One change over both scopes: the project's skills first, then the installed ones, each
 * planned, shown and confirmed in turn, the same way whatever its scope. Of several
 * installed skills, the accepted ones are swapped in together at the end (one registry
 * write), and said updated then.
 */
export async function run(options: UpdateOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  // Staging, crash recovery and Ctrl-C rollback are the change's; --dry-run only previews.
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
    progress: progress(ctx),
    preview: options.dryRun,
    // The project's signer policy applies to its skills (--project), on top of the user's.
    project: options.project ? findProjectRoot(ctx.cwd).root : undefined,
    allowUnsigned: options.allowUnsigned,
    acceptSignerChange: options.acceptSignerChange,
  });
  for (const note of change.recovered) warn(ctx, note);
  const moving = Object.values(options.refs).some((v) => v !== undefined);
  await using updates = await beginUpdates(home, ctx.cwd, change, {
    names: options.names,
    all: options.all,
    project: options.project,
    dryRun: options.dryRun,
    request: moving ? refRequest(options.refs, undefined) : undefined,
    allowRisky: options.allowRisky,
  });
  const { steps } = updates;
  if (steps.length === 0) {
    if (options.json) writeJson(ctx, { dry_run: options.dryRun, updates: [] });
    else ctx.stdout.write("No installed skills to update\n");
    return 0;
  }
  for (const note of updates.recovered) warn(ctx, note);
  const single = steps.length === 1;
  const outcomes: Outcome[] = [];
  const later: Waiting[] = [];
  for (const [i, step] of steps.entries()) {
    let waits = false;
    try {
      const settled = await settle(ctx, options, step, single);
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
  if (later.length > 0) await swapTogether(ctx, options, updates, later, outcomes);
  // Skills whose repository moved but whose files did not: their new commits, one write each.
  if (!options.dryRun) {
    for (const note of await updates.recordMoved()) warn(ctx, note);
  }
  if (options.json) {
    writeJson(ctx, { dry_run: options.dryRun, updates: outcomes.map(toJson) });
  }
  const bad = outcomes.filter((o) => ["blocked", "failed", "declined"].includes(o.status));
  return bad.length === 0 ? 0 : 1;
}

type Updates = Awaited<ReturnType<typeof beginUpdates>>;
type Step = Updates["steps"][number];
/** A step accepted to be swapped in with the others, and where its outcome stands. */
type Waiting = { step: Step; at: number };

/**
 * One step planned, shown, confirmed and applied — or, of several installed skills, kept
 * for the swap together (`waits`). A failure of one of several is its outcome, said at
 * once; a single skill's, a cancel or any other error is thrown.
 */
async function settle(
  ctx: Context,
  options: UpdateOptions,
  step: Step,
  single: boolean,
): Promise<{ outcome: Outcome; waits: boolean }> {
  let plan: PlanView | undefined;
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
    const outcome = await decide(ctx, options, plan, apply);
    if (single && outcome.error) throw outcome.error;
    if (!waits && !options.json) {
      ctx.stdout.write(render(outcome, ctx, options.force, options.dryRun));
    }
    return { outcome, waits };
  } catch (error) {
    if (single || !isSkillError(error) || error.code === "cancelled") throw error;
    const outcome: Outcome = { name: step.name, status: "failed", plan, error };
    if (!options.json) ctx.stdout.write(render(outcome, ctx));
    return { outcome, waits: false };
  }
}

/**
 * The accepted installed skills swapped in together (one registry write), each outcome
 * then made final — updated, or failed with the swap's error — said and its staging freed.
 */
async function swapTogether(
  ctx: Context,
  options: UpdateOptions,
  updates: Updates,
  later: readonly Waiting[],
  outcomes: Outcome[],
): Promise<void> {
  const results = await updates.applyTogether(later.map(({ step }) => step.name));
  for (const { step, at } of later) {
    const result = results.get(step.name)!;
    const outcome: Outcome = result instanceof SkillError
      ? { ...outcomes[at]!, status: "failed", error: result }
      : outcomes[at]!;
    if (!(result instanceof SkillError)) { for (const note of result) warn(ctx, note); }
    outcomes[at] = outcome;
    if (!options.json) ctx.stdout.write(render(outcome, ctx, options.force, options.dryRun));
    step.discard();
  }
}

async function decide(
  ctx: Context,
  options: UpdateOptions,
  plan: PlanView,
  apply: () => Promise<string[]>,
): Promise<Outcome> {
  const name = plan.canonical;
  if (plan.kind !== "update") return { name, status: plan.kind, plan, error: undefined };
  if (options.dryRun) return { name, status: "would_update", plan, error: undefined };
  if (plan.localChanges && !options.force) {
    const error = new SkillError(
      "conflict",
      `Cannot update skill '${name}': local changes would be discarded`,
      { hint: `Its files differ from what was installed; review them, then pass --force` },
    );
    return { name, status: "blocked", plan, error };
  }
  const risky = plan.staged?.risky ?? [];
  if (risky.length > 0) {
    // Shown first (what the commit adds), then refused without a question.
    (options.json ? ctx.stderr : ctx.stdout).write(
      render({ name, status: "would_update", plan, error: undefined }, ctx, options.force),
    );
    const error = riskyError(name, risky.length, plan.scope);
    return { name, status: "blocked", plan, error };
  }
  const preview = render(
    { name, status: "would_update", plan, error: undefined },
    ctx,
    options.force,
  );
  (options.json ? ctx.stderr : ctx.stdout).write(preview);
  const discard = plan.localChanges ? " Local changes will be discarded." : "";
  const ok = await confirmAction(
    ctx,
    `Update skill '${name}' ${versions(plan)}?${discard}`,
    { yes: options.yes, action: `Cannot update skill '${name}'` },
  );
  if (!ok) return { name, status: "declined", plan, error: undefined };
  for (const note of await apply()) warn(ctx, note);
  return { name, status: "updated", plan, error: undefined };
}

function riskyError(name: string, count: number, scope: PlanView["scope"]): SkillError {
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
