/** `skills update [<name>...|--all]`: review what changed upstream, confirm, swap atomically. */

import { describeNetworkList } from "../../core/net_grants.ts";
import { describeError, isSkillError, SkillError, UsageError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { type RefFlags, refRequest } from "../../core/sources.ts";
import type { ChangeSummary } from "../../core/changes.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import type { LockedSkill } from "../../core/lockfile_model.ts";
import { findProjectRoot } from "../../runtime/catalog/scopes.ts";
import { readProjectLock } from "../../runtime/project/lockfile.ts";
import { beginProjectChange } from "../../runtime/project/transaction.ts";
import { applyProjectUpdate, planProjectUpdate } from "../../runtime/project/update.ts";
import { entriesToUpdate, type UpdatePlan } from "../../runtime/lifecycle/update.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { updateSpec } from "../specs/update.ts";
import { confirmAction, progress } from "../lifecycle_ui.ts";
import { shortSha, writeJson } from "../render.ts";
import { auditDeltaLines, findingJson } from "../audit_ui.ts";
import { saveAuditRecord } from "../../runtime/audit/record.ts";

export const help = renderHelp(updateSpec);

interface UpdateOptions extends ParsedCommon {
  names: string[];
  all: boolean;
  /** Only the project's locked skills. */
  project: boolean;
  refs: RefFlags;
  dryRun: boolean;
  force: boolean;
  yes: boolean;
  allowRisky: boolean;
}

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export function parse(argv: readonly string[]): UpdateOptions {
  const { values, positionals } = parseSpec(updateSpec, argv);
  const flags = commonFlags(values);
  const refs: RefFlags = { ref: values.ref, branch: values.branch, tag: values.tag };
  const base = {
    ...flags,
    names: [] as string[],
    all: values.all === true,
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
}

type Status =
  | "up_to_date"
  | "pinned"
  | "would_update"
  | "updated"
  | "declined"
  | "blocked"
  | "failed";

/** What rendering needs of a plan, an installed skill's or a locked project skill's. */
interface PlanView {
  canonical: string;
  kind: "up_to_date" | "pinned" | "update";
  entry: { source: { type: "git" | "local" | "oci"; url: string } };
  oldSha: string | null;
  newSha: string | null;
  tracking: string;
  localChanges: boolean;
  /** An installed skill's plan also carries the new version's audit. */
  staged?: { changes: ChangeSummary } & Partial<Pick<UserStaged, "audit" | "risky" | "entry">>;
}

type UserStaged = NonNullable<UpdatePlan["staged"]>;

interface Outcome {
  name: string;
  status: Status;
  plan: PlanView | undefined;
  error: SkillError | undefined;
}

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
  const outcomes: Outcome[] = [];
  if (inProject.length > 0) {
    // A dry run changes nothing, not even a dead command's leftovers.
    await using tx = options.dryRun ? undefined : await beginProjectChange(root, home);
    for (const note of tx?.recovered ?? []) warn(ctx, note);
    for (const key of inProject) {
      let plan: PlanView | undefined;
      try {
        const planned = await planProjectUpdate(root, key, locked[key]!, change, { request });
        const staged = planned.staged && { changes: planned.staged.changes };
        plan = { ...planned, canonical: key, staged };
        const outcome = await decide(ctx, options, plan, async () => {
          await applyProjectUpdate(tx!, home, planned);
          return [];
        });
        if (single && outcome.error) throw outcome.error;
        if (!options.json) ctx.stdout.write(render(outcome, ctx, options.force));
        outcomes.push(outcome);
      } catch (error) {
        if (single || !isSkillError(error) || error.code === "cancelled") throw error;
        const outcome: Outcome = { name: key, status: "failed", plan, error };
        if (!options.json) ctx.stdout.write(render(outcome, ctx));
        outcomes.push(outcome);
      }
    }
  }
  for (const entry of entries) {
    const name = entry.name_canonical;
    let plan: UpdatePlan | undefined;
    try {
      plan = await change.planUpdate(entry, { request, allowRisky: options.allowRisky });
      const planned = plan;
      const outcome = await decide(ctx, options, plan, async () => {
        const notes = await change.applyUpdate(planned);
        const staged = planned.staged!;
        await saveAuditRecord(home, name, staged.digest, staged.audit.report);
        return notes;
      });
      if (single && outcome.error) throw outcome.error;
      if (!options.json) ctx.stdout.write(render(outcome, ctx, options.force));
      outcomes.push(outcome);
    } catch (error) {
      if (single || !isSkillError(error) || error.code === "cancelled") throw error;
      const outcome: Outcome = { name, status: "failed", plan, error };
      if (!options.json) ctx.stdout.write(render(outcome, ctx));
      outcomes.push(outcome);
    } finally {
      if (plan) change.discard(plan);
    }
  }
  if (options.json) {
    writeJson(ctx, { dry_run: options.dryRun, updates: outcomes.map(toJson) });
  }
  const bad = outcomes.filter((o) => ["blocked", "failed", "declined"].includes(o.status));
  return bad.length === 0 ? 0 : 1;
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

const MARK = { added: "+", modified: "~", removed: "-" } as const;

function renderChanges(changes: ChangeSummary): string[] {
  const lines = changes.files.map((f) =>
    `  ${MARK[f.change]} ${f.path}${f.kind === "other" ? "" : `  [${f.kind}]`}`
  );
  if (changes.files.length === 0) lines.push("  (no file changes in this skill)");
  const show = (v: string[]) => (v.length === 0 ? "none" : v.join(", "));
  if (changes.network) {
    lines.push(
      `  ! permissions.network: ${describeNetworkList(changes.network.before)} → ${
        describeNetworkList(changes.network.after)
      }`,
    );
  }
  if (changes.permissions) {
    lines.push(
      `  ! permissions.env: ${show(changes.permissions.before)} → ${
        show(changes.permissions.after)
      }`,
    );
  }
  const flagged = Object.entries(changes.flags).filter(([, v]) => v).map(([k]) => k);
  if (flagged.length > 0) lines.push(`  review: ${flagged.join(", ")} changed`);
  return lines;
}

/** "from <sha> to <sha>", or for a skill copied from a directory, where it is copied from. */
function versions(plan: PlanView): string {
  if (plan.entry.source.type === "local") {
    return `from its source directory ${plan.entry.source.url}`;
  }
  return `from ${shortSha(plan.oldSha)} to ${shortSha(plan.newSha)}`;
}

/** What the new commit adds to the audit: new critical/high findings, new endpoints. */
function renderAudit(plan: PlanView, ctx: Pick<Context, "color">): string[] {
  const staged = plan.staged!;
  if (staged.audit === undefined) return [];
  const lines = auditDeltaLines(ctx, staged.audit.added);
  if (lines.length === 0) lines.push("  audit: nothing new at high or critical, no new endpoints");
  else lines.unshift("  audit: the new version adds");
  if ((staged.risky ?? []).length > 0) {
    lines.push("  ! new critical findings: refused without --allow-risky");
  } else if (staged.entry?.allowed_risky && staged.audit.added.findings.length > 0) {
    lines.push("  ! critical findings accepted with --allow-risky");
  }
  return lines;
}

function render(o: Outcome, ctx: Pick<Context, "color">, force = false): string {
  const plan = o.plan;
  const local = plan?.entry.source.type === "local";
  switch (o.status) {
    case "up_to_date":
      return local
        ? `${o.name}: up to date (${plan?.tracking})\n`
        : `${o.name}: up to date (${shortSha(plan?.oldSha)}, ${plan?.tracking})\n`;
    case "pinned":
      return `${o.name}: pinned to ${shortSha(plan?.oldSha)}; left alone (move it with --ref)\n`;
    case "would_update": {
      const head = local
        ? `${o.name}: new files in ${plan?.entry.source.url}`
        : `${o.name}: ${shortSha(plan?.oldSha)} → ${shortSha(plan?.newSha)} (${plan?.tracking})`;
      const lines = [head, ...renderChanges(plan!.staged!.changes), ...renderAudit(plan!, ctx)];
      if (plan?.localChanges) {
        lines.push(
          force
            ? "  ! local changes will be discarded (--force)"
            : "  ! local changes would be discarded (needs --force)",
        );
      }
      return lines.join("\n") + "\n";
    }
    case "updated":
      return local
        ? `${o.name}: updated from ${plan?.entry.source.url}\n`
        : `${o.name}: updated to ${shortSha(plan?.newSha)}\n`;
    case "declined":
      return `${o.name}: not updated (declined)\n`;
    case "blocked":
    case "failed":
      return `${o.name}: ${describeError(o.error)}\n`;
  }
}

function toJson(o: Outcome) {
  const plan = o.plan;
  return {
    name: o.name,
    status: o.status,
    old_sha: plan?.oldSha ?? null,
    new_sha: plan?.newSha ?? null,
    tracking: plan?.tracking ?? null,
    local_changes: plan?.localChanges ?? null,
    changes: plan?.staged?.changes ?? null,
    audit: plan?.staged?.audit
      ? {
        rules_version: plan.staged.audit.report.rules_version,
        counts: plan.staged.audit.report.counts,
        added: plan.staged.audit.added.findings.map(findingJson),
        new_endpoints: plan.staged.audit.added.endpoints,
        refused: (plan.staged.risky ?? []).length > 0,
        allowed_risky: plan.staged.entry?.allowed_risky ?? null,
      }
      : null,
    error: o.error ? { code: o.error.code, message: o.error.message } : null,
  };
}
