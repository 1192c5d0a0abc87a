/** `skills logs <id> [--json]`: what a service printed (runtime/services). */

import type { Context } from "../../core/io.ts";
import { serviceLogs } from "../../runtime/services/control.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { logsSpec } from "../specs/logs.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(logsSpec, ({ positionals, common }) => {
  if (common.help) return { ...common, target: "" };
  return { ...common, target: requireOne("logs", positionals, "service id") };
});

type LogsOptions = OptionsOf<typeof parse>;

export async function run(options: LogsOptions, ctx: Context): Promise<number> {
  const { service, stdout, stderr } = await serviceLogs(
    skillsHome(ctx.env, ctx.cwd),
    options.target,
    ctx.env,
  );
  if (options.json) {
    writeJson(ctx, { id: service.id, alive: service.alive, stdout, stderr });
    return 0;
  }
  // The script's own bytes, as `skills run` passes them: stdout to stdout, stderr to stderr.
  ctx.stdout.write(stdout);
  ctx.stderr.write(stderr);
  return 0;
}
