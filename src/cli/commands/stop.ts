/** `skills stop <id|skill> [--json]`: ends a service, its sandbox and its ports (runtime/services). */

import { inert } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";
import { findServices, stopServices } from "../../runtime/services/control.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { stopSpec } from "../specs/stop.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(stopSpec, ({ positionals, common }) => {
  if (common.help) return { ...common, target: "" };
  return { ...common, target: requireOne("stop", positionals, "service id or skill name") };
});

type StopOptions = OptionsOf<typeof parse>;

export async function run(options: StopOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const found = await findServices(home, options.target, ctx.env);
  const stopped = await stopServices(home, found, ctx.env);
  if (options.json) {
    writeJson(ctx, { stopped });
    return 0;
  }
  for (const result of stopped) {
    ctx.stdout.write(
      result.stopped
        ? `Stopped ${result.id} (${inert(result.skill)} ${inert(result.script)})\n`
        : `${result.id} had ended already (${inert(result.end_reason ?? "unknown")})\n`,
    );
  }
  return 0;
}
