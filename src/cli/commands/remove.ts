/** `skills remove <name>...`: confirm, then remove directories and entries atomically. */

import { declined, UsageError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import type { RegistryEntry } from "../../core/registry_model.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { entriesToRemove } from "../../runtime/lifecycle/remove.ts";
import { describeTracking } from "../../runtime/lifecycle/update.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { removeSpec } from "../specs/remove.ts";
import { confirmAction, fields } from "../lifecycle_ui.ts";
import { writeJson } from "../render.ts";

export const help = renderHelp(removeSpec);

interface RemoveOptions extends ParsedCommon {
  names: string[];
  yes: boolean;
}

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export function parse(argv: readonly string[]): RemoveOptions {
  const { values, positionals } = parseSpec(removeSpec, argv);
  const flags = commonFlags(values);
  if (flags.help) return { ...flags, names: [], yes: false };
  if (positionals.length === 0) {
    throw new UsageError("Missing skill name", "Run `skills remove --help` for usage");
  }
  return {
    ...flags,
    names: positionals.map((n) => canonicalSkillName(n)),
    yes: values.yes === true,
  };
}

function describe(entry: RegistryEntry): string {
  return `\nSkill '${entry.name_canonical}'\n` + fields([
    ["Source", `${entry.source.url}${entry.source.subpath ? ` (${entry.source.subpath})` : ""}`],
    ["Commit", entry.commit_sha],
    ["Tracking", describeTracking(entry)],
    ["Path", entry.installed_path],
  ]);
}

export async function run(options: RemoveOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  await using change = await beginChange(home, { env: ctx.env, signal: ctx.signal });
  for (const note of change.recovered) warn(ctx, note);
  const entries = await entriesToRemove(home, options.names);
  const accepted: RegistryEntry[] = [];
  for (const entry of entries) {
    ctx.stderr.write(describe(entry));
    const ok = await confirmAction(ctx, `Remove skill '${entry.name_canonical}'?`, {
      yes: options.yes,
      action: `Cannot remove skill '${entry.name_canonical}'`,
    });
    if (ok) accepted.push(entry);
  }
  if (accepted.length === 0) throw declined("Nothing was removed");
  const { removed, notes } = await change.remove(accepted);
  for (const note of notes) warn(ctx, note);
  if (options.json) writeJson(ctx, { removed });
  else for (const name of removed) ctx.stdout.write(`Removed '${name}'\n`);
  return removed.length === entries.length ? 0 : 1;
}
