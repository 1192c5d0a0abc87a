/** `skills update [<name>...|--all]`: review what changed upstream, confirm, swap atomically. */

import { isSkillError, SkillError, UsageError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/manifest/names.ts";
import { type RefFlags, type RefRequest, refRequest } from "../../core/sources/sources.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange, type Change } from "../../runtime/lifecycle/change.ts";
import type { LockedSkill } from "../../core/records/lockfile_model.ts";
import { findProjectRoot } from "../../runtime/catalog/scopes.ts";
import { readProjectLock } from "../../runtime/project/lockfile.ts";
import { beginProjectChange, type ProjectChange } from "../../runtime/project/transaction.ts";
import {
  applyProjectUpdate,
  planProjectUpdate,
  type ProjectUpdatePlan,
  recordProjectMoved,
  trackedLocked,
} from "../../runtime/project/update.ts";
import { entriesToUpdate, trackedEntry, type UpdatePlan } from "../../runtime/lifecycle/update.ts";
import type { TrackedSkill } from "../../runtime/lifecycle/update_planner.ts";
import { sourceLabel } from "../../runtime/lifecycle/fetch_source.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { updateSpec } from "../specs/update.ts";
import { confirmAction, progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { type Outcome, type PlanView, render, toJson, versions } from "../ui/update_ui.ts";
import { saveAuditRecord } from "../../runtime/audit/record.ts";
import { refreshCopies } from "../../runtime/project/links.ts";

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
 * Which names are the project's (issue 17): those its skills-lock.json records (a project
 * skill wins over an installed one of the same name), all of them with --all or --project.
 */
function projectNames(options: UpdateOptions, locked: Readonly<Record<string, LockedSkill>>) {
  if (options.names.length === 0) {
    return options.all || options.project ? Object.keys(locked).sort() : [];
  }
  const mine = options.names.filter((n) => Object.hasOwn(locked, n));
  const other = options.names.find((n) => !Object.hasOwn(locked, n));
  if (options.project && other !== undefined) {
    throw new SkillError(
      "not_found",
      `Cannot update skill '${other}': skills-lock.json does not record it`,
      {
        hint: "Run `skills list` to see the project's skills",
      },
    );
  }
  return mine;
}

// long because: one loop over both scopes (plan, ask, apply) whose steps share the change, the answers and the batch swapped in at the end.
export async function run(options: UpdateOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  // Staging, crash recovery and Ctrl-C rollback are the change's; --dry-run only previews.
  await using change = await beginChange(home, {
    env: ctx.env,
    signal: ctx.signal,
    progress: progress(ctx),
    preview: options.dryRun,
    // The project's signer policy applies to its skills (--project), on top of the user's.
    project: options.project ? findProjectRoot(ctx.cwd).root : undefined,
  });
  for (const note of change.recovered) warn(ctx, note);
  const { root } = findProjectRoot(ctx.cwd);
  const read = readProjectLock(root);
  if (options.project && read.state !== "ok") {
    throw new SkillError("not_found", `No usable skills-lock.json in ${root}`, {
      hint: read.state === "absent"
        ? "Record project skills with `skills add <source> --project`"
        : "Run `skills install` or `skills check` for details",
    });
  }
  const locked = read.state === "ok" ? read.lock.skills : {};
  const inProject = projectNames(options, locked);
  const userNames = options.names.filter((n) => !inProject.includes(n));
  const entries = options.project || (userNames.length === 0 && !options.all)
    ? []
    : await entriesToUpdate(home, userNames);
  if (entries.length + inProject.length === 0) {
    if (options.json) writeJson(ctx, { dry_run: options.dryRun, updates: [] });
    else ctx.stdout.write("No installed skills to update\n");
    return 0;
  }
  const moving = Object.values(options.refs).some((v) => v !== undefined);
  const request = moving ? refRequest(options.refs, undefined) : undefined;
  const single = entries.length + inProject.length === 1;
  // A dry run changes nothing, not even a dead command's leftovers in the project.
  await using tx = options.dryRun || inProject.length === 0
    ? undefined
    : await beginProjectChange(root, home);
  for (const note of tx?.recovered ?? []) warn(ctx, note);
  const project = projectSteps(inProject, { root, home, locked, change, tx, request });
  const user = userSteps(entries, { home, change, request, allowRisky: options.allowRisky });
  const outcomes: Outcome[] = [];
  // The project's skills first, then the installed ones: each planned, shown and confirmed
  // in turn, the same way whatever its scope. Of several installed skills, the accepted ones
  // are swapped in together at the end (one registry write), and said updated then.
  const steps = [...project.steps, ...user.steps];
  const later: { step: UpdateStep; at: number }[] = [];
  for (const [i, step] of steps.entries()) {
    let plan: PlanView | undefined;
    let waits = false;
    try {
      plan = await step.plan();
      const together = step.together === true && !single && user.applyTogether !== undefined;
      const apply = together
        ? () => {
          waits = true;
          return Promise.resolve([]);
        }
        : step.apply;
      const outcome = await decide(ctx, options, plan, apply);
      if (single && outcome.error) throw outcome.error;
      if (waits) later.push({ step, at: outcomes.length });
      else if (!options.json) {
        ctx.stdout.write(render(outcome, ctx, options.force, options.dryRun));
      }
      outcomes.push(outcome);
    } catch (error) {
      waits = false;
      if (single || !isSkillError(error) || error.code === "cancelled") throw error;
      const outcome: Outcome = { name: step.name, status: "failed", plan, error };
      if (!options.json) ctx.stdout.write(render(outcome, ctx));
      outcomes.push(outcome);
    } finally {
      // What it staged is kept until the swap that waits for it.
      if (!waits) step.discard();
      // A repository's fetch is kept while a skill still to come needs it, no longer.
      const needed = steps.slice(i + 1).flatMap((s) => (s.remote === undefined ? [] : [s.remote]));
      change.releaseShared(new Set(needed));
    }
  }
  if (later.length > 0) {
    const results = await user.applyTogether!(later.map(({ step }) => step.name));
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
  // Skills whose repository moved but whose files did not: their new commits, one write each.
  if (!options.dryRun) {
    await project.recordMoved();
    for (const note of await user.recordMoved()) warn(ctx, note);
  }
  if (options.json) {
    writeJson(ctx, { dry_run: options.dryRun, updates: outcomes.map(toJson) });
  }
  const bad = outcomes.filter((o) => ["blocked", "failed", "declined"].includes(o.status));
  return bad.length === 0 ? 0 : 1;
}

/** One skill's update, whatever its scope: plan it, apply the plan, free what it staged. */
interface UpdateStep {
  name: string;
  /** The URL of the skill's repository (or its directory), as the change fetches it. */
  remote: string | undefined;
  plan: () => Promise<PlanView>;
  /** Applies the plan `plan` returned; returns notes for the user. */
  apply: () => Promise<string[]>;
  /** Its swap may wait and be made with the others' (Steps.applyTogether). */
  together?: boolean;
  discard: () => void;
}

interface Steps {
  steps: UpdateStep[];
  /** Records the new commit of every planned skill whose repository moved but files did not. */
  recordMoved: () => Promise<string[]>;
  /**
   * Applies the planned updates of steps `names` (each `together`): all in one step (one
   * lock, one journal, one registry write), and only if that fails, one by one, so that one
   * skill's failure does not take the others with it. Per name: its notes, or its error.
   */
  applyTogether?: (names: readonly string[]) => Promise<Map<string, string[] | SkillError>>;
}

/** Where a skill is fetched from; undefined when its record is unusable (planning says why). */
function remoteOf(track: () => TrackedSkill): string | undefined {
  try {
    return sourceLabel(track().source);
  } catch {
    return undefined;
  }
}

/** The locked project skills `keys` (folder and lock entry swapped together). */
function projectSteps(
  keys: readonly string[],
  ws: {
    root: string;
    home: string;
    locked: Readonly<Record<string, LockedSkill>>;
    change: Change;
    tx: ProjectChange | undefined;
    request: RefRequest | undefined;
  },
): Steps {
  const planned: ProjectUpdatePlan[] = [];
  const steps = keys.map((key): UpdateStep => {
    let plan: ProjectUpdatePlan | undefined;
    return {
      name: key,
      remote: remoteOf(() => trackedLocked(ws.root, key, ws.locked[key]!)),
      plan: async () => {
        plan = await planProjectUpdate(ws.root, key, ws.locked[key]!, ws.change, {
          request: ws.request,
        });
        planned.push(plan);
        return { ...plan, canonical: key, staged: plan.staged && { changes: plan.staged.changes } };
      },
      apply: () => applyProjectUpdate(ws.tx!, ws.home, plan!),
      discard: () => {},
    };
  });
  return {
    steps,
    recordMoved: async () => {
      if (ws.tx !== undefined) await recordProjectMoved(ws.tx, planned);
      return [];
    },
  };
}

/** The installed skills `entries` (swapped in `$SKILLS_HOME` under the registry lock). */
function userSteps(
  entries: readonly RegistryEntry[],
  ws: { home: string; change: Change; request: RefRequest | undefined; allowRisky: boolean },
): Steps {
  const planned: UpdatePlan[] = [];
  const plans = new Map<string, UpdatePlan>();
  /** What follows a swap: the audit record, and copies `skills link --copy` made. */
  const after = async (plan: UpdatePlan) => {
    const staged = plan.staged!;
    await saveAuditRecord(ws.home, plan.canonical, staged.digest, staged.audit.report);
    const folder = { dir: plan.entry.installed_path, trusted: staged.entry.trusted_digest };
    return (await refreshCopies(ws.home, [folder])).notes;
  };
  const steps = entries.map((entry): UpdateStep => {
    let plan: UpdatePlan | undefined;
    return {
      name: entry.name_canonical,
      together: true,
      remote: remoteOf(() => trackedEntry(entry)),
      plan: async () => {
        plan = await ws.change.planUpdate(entry, {
          request: ws.request,
          allowRisky: ws.allowRisky,
        });
        planned.push(plan);
        plans.set(entry.name_canonical, plan);
        return plan;
      },
      apply: async () => [...await ws.change.applyUpdate(plan!), ...await after(plan!)],
      discard: () => {
        if (plan) ws.change.discard(plan);
      },
    };
  });
  const applyTogether = async (names: readonly string[]) => {
    const chosen = names.map((name) => plans.get(name)!);
    const results = new Map<string, string[] | SkillError>();
    try {
      const notes = await ws.change.applyUpdates(chosen);
      for (const [i, plan] of chosen.entries()) {
        results.set(plan.canonical, [...i === 0 ? notes : [], ...await after(plan)]);
      }
      return results;
    } catch (error) {
      // All or nothing failed (and rolled back): find the culprit by applying each alone.
      if (!isSkillError(error) || error.code === "cancelled") throw error;
    }
    for (const plan of chosen) {
      try {
        results.set(plan.canonical, [...await ws.change.applyUpdate(plan), ...await after(plan)]);
      } catch (error) {
        if (!isSkillError(error) || error.code === "cancelled") throw error;
        results.set(plan.canonical, error);
      }
    }
    return results;
  };
  return { steps, recordMoved: () => ws.change.recordMoved(planned), applyTogether };
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
    return { name, status: "blocked", plan, error: riskyError(name, risky.length) };
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

function riskyError(name: string, count: number): SkillError {
  return new SkillError(
    "risky_skill",
    `Cannot update skill '${name}': the new version adds ${count} critical audit finding${
      count === 1 ? "" : "s"
    }`,
    { hint: "Review them above; to update anyway, pass --allow-risky (recorded in the registry)" },
  );
}
