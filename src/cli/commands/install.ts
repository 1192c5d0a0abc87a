/**
 * `skills install [--frozen]`: restore the project's skills from `skills-lock.json`, every
 * file verified; under --frozen (or CI=true) nothing is written unless all agrees.
 * `skills install <source>` is a usage error pointing to `skills add`.
 */

import { SkillError, UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { readProjectTrust } from "../../runtime/store/project_records_file.ts";
import { findProjectRoot } from "../../runtime/catalog/scopes.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { readProjectLock } from "../../runtime/project/lockfile.ts";
import { type ForeignReport, restoreForeign } from "../../runtime/project/foreign.ts";
import { restoreLocked, type RestoreReport } from "../../runtime/project/restore.ts";
import { beginProjectChange } from "../../runtime/project/transaction.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { installSpec } from "../specs/install.ts";
import { progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { isCi, renderMismatches } from "../ui/project_ui.ts";
import { trustInstalled } from "../../runtime/project/trust.ts";
import { refreshCopies, trustedProjectFolders } from "../../runtime/project/links.ts";

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  installSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    if (positionals.length > 0 && !flags.help) {
      throw new UsageError(
        "`skills install` restores the project's skills-lock.json; it takes no source",
        `Did you mean \`skills add ${positionals[0]}\`? (add --project records it in the lockfile)`,
      );
    }
    return {
      ...flags,
      frozen: values.frozen === true,
      force: values.force === true,
      trust: values.trust === true,
    };
  },
);

type InstallOptions = OptionsOf<typeof parse>;

// long because: the install workflow in order (lockfile state, fetch each source, verify, write) in one change.
export async function run(options: InstallOptions, ctx: Context): Promise<number> {
  const frozen = options.frozen || isCi(ctx.env);
  if (frozen && options.force) {
    throw new UsageError(
      `--force replaces folders; ${options.frozen ? "--frozen" : "CI=true"} changes nothing`,
    );
  }
  const home = skillsHome(ctx.env, ctx.cwd);
  const { root } = findProjectRoot(ctx.cwd);
  // What a dead command left in the project is rolled back first, lockfile or not.
  await using tx = await beginProjectChange(root, home);
  for (const note of tx.recovered) warn(ctx, note);
  const read = readProjectLock(root);
  if (read.state === "absent") {
    throw new SkillError("not_found", `No skills-lock.json in ${root}`, {
      hint: "Record project skills with `skills add <source> --project`",
    });
  }
  if (read.state === "invalid") {
    throw new SkillError("parse_error", `Cannot read ${read.path}: it ${read.reason}`, {
      hint: "Restore it from git (`git checkout -- skills-lock.json`) or fix it by hand",
    });
  }
  const say = progress(ctx);
  await using change = await beginChange(home, {
    env: ctx.env,
    signal: ctx.signal,
    progress: say,
    project: root,
  });
  for (const note of change.recovered) warn(ctx, note);
  const ws = { root, home, change, tx };
  const restoreOptions = { frozen, force: options.force };
  const report: RestoreReport & Partial<ForeignReport> = read.state === "ok"
    ? await restoreLocked(ws, read.lock, restoreOptions)
    : await restoreForeign(ws, read.entries, restoreOptions);
  for (const note of report.notes ?? []) warn(ctx, note);
  const blocking = report.mismatches.filter((m) => m.blocking);
  let trusted: string[] = [];
  if (options.trust && blocking.length === 0) {
    trusted = await trustInstalled(home, root, [...report.present, ...report.restored]);
  }
  // Copies `skills link --copy` made of the folders show what the lockfile restored.
  const copies = frozen || blocking.length > 0 ? { refreshed: [], notes: [] } : await refreshCopies(
    home,
    trustedProjectFolders(home, root, [...report.present, ...report.restored]),
  );
  for (const note of copies.notes) warn(ctx, note);
  if (options.json) {
    writeJson(ctx, {
      lockfile: read.path,
      format: read.state === "ok" ? "skills" : "vercel",
      frozen,
      ok: blocking.length === 0,
      present: report.present,
      restored: report.restored,
      held: report.held,
      mismatches: report.mismatches.map(({ blocking: b, ...m }) => ({ ...m, blocking: b })),
      converted: report.converted ?? false,
      trusted,
      notes: report.notes ?? [],
    });
    return blocking.length === 0 ? 0 : 1;
  }
  const out: string[] = [];
  for (const name of report.restored) out.push(`Restored '${name}' into .agents/skills/${name}`);
  out.push(...renderMismatches(report.mismatches));
  if (blocking.length === 0 && report.restored.length === 0) {
    out.push(
      `Nothing to do: the ${report.present.length} skill(s) of skills-lock.json are in place`,
    );
  }
  for (const name of trusted) out.push(`Trusted '${name}'`);
  if (out.length > 0) ctx.stdout.write(out.join("\n") + "\n");
  if (blocking.length > 0) {
    const names = [...new Set(blocking.map((m) => m.skill))];
    const nothing = frozen ? "; nothing was written (--frozen)" : "";
    ctx.stderr.write(
      `error: skills-lock.json does not match for ${names.join(", ")}${nothing}\n`,
    );
    return 1;
  }
  // Restoring is not approving: say which restored skills this user has not trusted.
  const approved = readProjectTrust(home).doc.projects[root] ?? {};
  const untrusted = report.restored.filter((n) =>
    !trusted.includes(n) && approved[`.agents/skills/${n}`] === undefined
  );
  if (untrusted.length > 0) {
    warn(
      ctx,
      `not trusted by you yet: ${untrusted.join(", ")} (review, then \`skills trust <name>\`)`,
    );
  }
  return 0;
}
