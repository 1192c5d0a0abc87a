/** `skills remove <name>...`: confirm, then remove directories and entries atomically. */

import { UsageError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { describeTracking } from "../../runtime/lifecycle/update_installed.ts";
import {
  type Removal,
  type RemoveAsker,
  type RemoveOutcome,
  removeWorkflow,
} from "../../runtime/workflows/remove.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { removeSpec } from "../specs/remove.ts";
import { confirmAction, fields } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  removeSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    if (flags.help) return { ...flags, names: [], yes: false, project: false };
    if (positionals.length === 0) {
      throw new UsageError("Missing skill name", "Run `skills remove --help` for usage");
    }
    return {
      ...flags,
      names: positionals.map((n) => canonicalSkillName(n)),
      yes: values.yes === true,
      project: values.project === true,
    };
  },
);

type RemoveOptions = OptionsOf<typeof parse>;

export async function run(options: RemoveOptions, ctx: Context): Promise<number> {
  const outcome = await removeWorkflow({
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
    names: options.names,
    scope: options.project ? "project" : undefined,
  }, removeAsker(ctx, options));
  return renderRemoved(ctx, options, outcome);
}

/**
 * The terminal's asker: each skill described on stderr, then asked about (`--yes` answers);
 * each scope's removals said as they are done (in text mode).
 */
function removeAsker(ctx: Context, options: RemoveOptions): RemoveAsker {
  return {
    note: (text) => warn(ctx, text),
    confirm: (removal) => {
      ctx.stderr.write(describe(removal));
      const name = removal.scope === "project" ? removal.key : removal.entry.name_canonical;
      const question = removal.scope === "project"
        ? `Remove project skill '${name}' and its lock entry?`
        : `Remove skill '${name}'?`;
      return confirmAction(ctx, question, {
        yes: options.yes,
        action: `Cannot remove skill '${name}'`,
      });
    },
    removed: (scope, { removed, links }) => {
      if (options.json) return;
      const what = scope === "project" ? "project skill " : "";
      for (const name of removed) ctx.stdout.write(`Removed ${what}'${name}'\n`);
      for (const path of links) ctx.stdout.write(`Removed link ${path}\n`);
    },
  };
}

function describe(removal: Removal): string {
  const { entry } = removal;
  const source = `${entry.source.url}${entry.source.subpath ? ` (${entry.source.subpath})` : ""}`;
  if (removal.scope === "project") {
    return `\nSkill '${removal.key}' (project)\n` + fields([
      ["Source", source],
      ["Commit", removal.entry.commit],
      ["Path", removal.dir],
    ]);
  }
  const text = `\nSkill '${removal.entry.name_canonical}'\n` + fields([
    ["Source", source],
    ["Commit", removal.entry.commit_sha],
    ["Tracking", describeTracking(removal.entry)],
    ["Path", removal.entry.installed_path],
  ]);
  return removal.unneeded
    ? `${text}  (a dependency nothing else installed needs once the others go)\n`
    : text;
}

/** The JSON document (text was said as each scope finished); the exit status. */
function renderRemoved(ctx: Context, options: RemoveOptions, outcome: RemoveOutcome): number {
  const { project, user } = outcome;
  const removed = [...project.removed, ...user.removed];
  if (options.json) {
    const links = [...project.links, ...user.links];
    writeJson(ctx, { removed, ...(links.length === 0 ? {} : { links_removed: links }) });
  }
  return removed.length === outcome.asked ? 0 : 1;
}
