/** `skills update [<name>...|--all]`: review what changed upstream, confirm, swap atomically. */

import { UsageError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { type RefFlags, refRequest } from "../../core/sources/sources.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { type UpdateAsker, updateWorkflow } from "../../runtime/workflows/update.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { updateSpec } from "../specs/update.ts";
import { confirmAction, progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { render, toJson, versions } from "../ui/update_ui.ts";

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
 * The project's skills first, then the installed ones, each planned, shown and confirmed in
 * turn (runtime/workflows/update.ts); each outcome is said as it is final, the JSON document
 * at the end.
 */
export async function run(options: UpdateOptions, ctx: Context): Promise<number> {
  const moving = Object.values(options.refs).some((v) => v !== undefined);
  const outcomes = await updateWorkflow({
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
    names: options.names,
    all: options.all,
    scope: options.project ? "project" : undefined,
    dryRun: options.dryRun,
    force: options.force,
    ref: moving ? refRequest(options.refs, undefined) : undefined,
    allowRisky: options.allowRisky,
    allowUnsigned: options.allowUnsigned,
    acceptSignerChange: options.acceptSignerChange,
  }, updateAsker(ctx, options));
  if (outcomes.length === 0) {
    if (options.json) writeJson(ctx, { dry_run: options.dryRun, updates: [] });
    else ctx.stdout.write("No installed skills to update\n");
    return 0;
  }
  if (options.json) {
    writeJson(ctx, { dry_run: options.dryRun, updates: outcomes.map(toJson) });
  }
  const bad = outcomes.filter((o) => ["blocked", "failed", "declined"].includes(o.status));
  return bad.length === 0 ? 0 : 1;
}

/**
 * The terminal's asker: progress and notes on stderr; what an update would change before
 * its question (on stdout, or stderr under --json, whose stdout is the one document); each
 * outcome on stdout as it is final (not under --json).
 */
function updateAsker(ctx: Context, options: UpdateOptions): UpdateAsker {
  return {
    progress: progress(ctx),
    note: (text) => warn(ctx, text),
    preview: (plan) => {
      const preview = {
        name: plan.canonical,
        status: "would_update",
        plan,
        error: undefined,
      } as const;
      (options.json ? ctx.stderr : ctx.stdout).write(
        render(preview, ctx, options.force),
      );
    },
    confirm: (plan) => {
      const name = plan.canonical;
      const discard = plan.localChanges ? " Local changes will be discarded." : "";
      return confirmAction(
        ctx,
        `Update skill '${name}' ${versions(plan)}?${discard}`,
        { yes: options.yes, action: `Cannot update skill '${name}'` },
      );
    },
    settled: (outcome) => {
      if (!options.json) ctx.stdout.write(render(outcome, ctx, options.force, options.dryRun));
    },
  };
}
