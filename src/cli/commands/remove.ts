/** `skills remove <name>...`: confirm, then remove directories and entries atomically. */

import { declined, UsageError } from "../../core/errors.ts";
import {
  removalTargets,
  removeFromProject,
  removeInstalled,
} from "../../runtime/project/install.ts";
import type { LockedSkill } from "../../core/records/lockfile_model.ts";
import { canonicalSkillName } from "../../core/names.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { entriesToRemove } from "../../runtime/lifecycle/remove.ts";
import { unneededInstalled, unneededLocked } from "../../runtime/project/dependencies.ts";
import { describeTracking } from "../../runtime/lifecycle/update_installed.ts";
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
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
  });
  for (const note of change.recovered) warn(ctx, note);
  // Names the project's skills-lock.json records are the project's (issue 17).
  // Dependencies nothing else needs go too, each shown and confirmed like the rest.
  const { root, inProject, others } = removalTargets(ctx.cwd, options.names, options.project);
  const lockedExtra = unneededLocked(root, inProject.map((r) => r.key));
  if (lockedExtra.length > 0) {
    inProject.push(...removalTargets(ctx.cwd, lockedExtra, true).inProject);
  }
  const project = await confirmProjectRemovals(ctx, options, home, root, inProject);
  if (others.length === 0) {
    if (project.removed.length === 0) throw declined("Nothing was removed");
    if (options.json) writeJson(ctx, { removed: project.removed, ...linksField(project.links) });
    return project.removed.length === inProject.length ? 0 : 1;
  }
  const entries = await entriesToRemove(home, others);
  const unneeded = await unneededInstalled(home, entries.map((e) => e.name_canonical));
  entries.push(...unneeded);
  const accepted: RegistryEntry[] = [];
  for (const entry of entries) {
    ctx.stderr.write(describe(entry));
    if (unneeded.includes(entry)) {
      ctx.stderr.write(`  (a dependency nothing else installed needs once the others go)\n`);
    }
    const ok = await confirmAction(ctx, `Remove skill '${entry.name_canonical}'?`, {
      yes: options.yes,
      action: `Cannot remove skill '${entry.name_canonical}'`,
    });
    if (ok) accepted.push(entry);
  }
  if (accepted.length === 0 && project.removed.length === 0) {
    throw declined("Nothing was removed");
  }
  const user = await removeInstalled(change, home, accepted);
  for (const note of user.notes) warn(ctx, note);
  const { removed } = user;
  const links = [...project.links, ...user.links];
  if (options.json) {
    writeJson(ctx, { removed: [...project.removed, ...removed], ...linksField(links) });
  } else {
    for (const name of removed) ctx.stdout.write(`Removed '${name}'\n`);
    for (const path of links) ctx.stdout.write(`Removed link ${path}\n`);
  }
  const all = project.removed.length + removed.length;
  return all === entries.length + inProject.length ? 0 : 1;
}

/** `links_removed` in the JSON document, when `skills remove` removed links. */
function linksField(links: readonly string[]) {
  return links.length === 0 ? {} : { links_removed: links };
}

/**
 * Asks about each locked project skill, then removes those confirmed (runtime/project's
 * `removeFromProject`: folders, lock entries, this user's trust, links).
 */
async function confirmProjectRemovals(
  ctx: Context,
  options: RemoveOptions,
  home: string,
  root: string,
  removals: readonly { key: string; entry: LockedSkill; dir: string }[],
): Promise<{ removed: string[]; links: string[] }> {
  if (removals.length === 0) return { removed: [], links: [] };
  const accepted: string[] = [];
  for (const { key, entry, dir } of removals) {
    ctx.stderr.write(
      `\nSkill '${key}' (project)\n` + fields([
        [
          "Source",
          `${entry.source.url}${entry.source.subpath ? ` (${entry.source.subpath})` : ""}`,
        ],
        ["Commit", entry.commit],
        ["Path", dir],
      ]),
    );
    const ok = await confirmAction(ctx, `Remove project skill '${key}' and its lock entry?`, {
      yes: options.yes,
      action: `Cannot remove skill '${key}'`,
    });
    if (ok) accepted.push(key);
  }
  const { recovered, links } = await removeFromProject(home, root, accepted);
  for (const note of recovered) warn(ctx, note);
  if (!options.json) {
    for (const key of accepted) ctx.stdout.write(`Removed project skill '${key}'\n`);
    for (const path of links) ctx.stdout.write(`Removed link ${path}\n`);
  }
  return { removed: accepted, links };
}
