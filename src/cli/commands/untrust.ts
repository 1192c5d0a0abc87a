/** `skills untrust <name>`: withdraw approval; the skill stays installed but will not run. */

import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { untrustWorkflow } from "../../runtime/workflows/untrust.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { untrustSpec } from "../specs/untrust.ts";
import { renderUntrust } from "../ui/trust_ui.ts";

export const { help, parse } = defineCommand(
  untrustSpec,
  ({ positionals, common }) => {
    const flags = common;
    if (flags.help) return { ...flags, name: "" };
    return { ...flags, name: requireOne("untrust", positionals, "skill name") };
  },
);

type UntrustOptions = OptionsOf<typeof parse>;

export async function run(options: UntrustOptions, ctx: Context): Promise<number> {
  const outcome = await untrustWorkflow({
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
    name: options.name,
  }, { note: (text) => warn(ctx, text) });
  return renderUntrust(ctx, outcome, options.json);
}
