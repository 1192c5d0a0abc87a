/**
 * `skills install [--frozen]`: restore the project's skills from `skills-lock.json`, every
 * file verified; under --frozen (or CI=true) nothing is written unless all agrees.
 * `skills install <source>` is a usage error pointing to `skills add`.
 */

import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { installWorkflow } from "../../runtime/workflows/install.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { installSpec } from "../specs/install.ts";
import { progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { isCi, renderMismatches } from "../ui/project_ui.ts";

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

export async function run(options: InstallOptions, ctx: Context): Promise<number> {
  const frozen = options.frozen || isCi(ctx.env);
  if (frozen && options.force) {
    throw new UsageError(
      `--force replaces folders; ${options.frozen ? "--frozen" : "CI=true"} changes nothing`,
    );
  }
  const installed = await installWorkflow({
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
    frozen,
    force: options.force,
    trust: options.trust,
  }, { progress: progress(ctx), note: (text) => warn(ctx, text) });
  const { report, blocking, trusted } = installed;
  if (options.json) {
    writeJson(ctx, {
      lockfile: installed.lockfile,
      format: installed.format,
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
  const { untrusted } = installed;
  if (untrusted.length > 0) {
    warn(
      ctx,
      `not trusted by you yet: ${untrusted.join(", ")} (review, then \`skills trust <name>\`)`,
    );
  }
  return 0;
}
