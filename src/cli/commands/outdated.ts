/** `skills outdated`: which locked or installed skills have new files upstream. */

import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { outdatedWorkflow } from "../../runtime/workflows/outdated.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { outdatedSpec } from "../specs/outdated.ts";
import { progress } from "../ui/lifecycle_ui.ts";
import { shortSha, table, writeJson } from "../ui/render.ts";

export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  outdatedSpec,
  ({ positionals, common }) => {
    if (positionals.length > 0) {
      throw new UsageError(
        `Unexpected argument '${positionals[0]}'`,
        "Run `skills outdated --help` for usage",
      );
    }
    return common;
  },
);

type OutdatedOptions = OptionsOf<typeof parse>;

export async function run(options: OutdatedOptions, ctx: Context): Promise<number> {
  const results = await outdatedWorkflow({
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
  }, options.json ? {} : { progress: progress(ctx) });
  const bad = results.filter((r) => r.status === "outdated" || r.status === "error");
  if (options.json) {
    writeJson(ctx, { outdated: bad.some((r) => r.status === "outdated"), skills: results });
    return bad.length === 0 ? 0 : 1;
  }
  if (results.length === 0) {
    ctx.stdout.write("No locked or installed skills to check\n");
    return 0;
  }
  ctx.stdout.write(table(
    ["NAME", "SCOPE", "TRACKING", "CURRENT", "LATEST", "STATUS"],
    results.map((r) => [
      r.name,
      r.scope,
      r.tracking,
      shortSha(r.current),
      shortSha(r.latest),
      r.status === "error"
        ? `error: ${r.error}`
        : r.status === "moved"
        ? "repository moved, skill unchanged"
        : r.status.replaceAll("_", " "),
    ]),
  ));
  const outdated = results.filter((r) => r.status === "outdated");
  if (outdated.length > 0) {
    ctx.stderr.write(
      `${outdated.length} outdated: update with \`skills update ${
        outdated.map((r) => r.name).join(" ")
      }\`\n`,
    );
  }
  return bad.length === 0 ? 0 : 1;
}
