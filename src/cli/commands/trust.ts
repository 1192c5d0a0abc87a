/** `skills trust <name>`: approve an installed skill's current files (bound to their digest). */

import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { trustWorkflow } from "../../runtime/workflows/trust.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { trustSpec } from "../specs/trust.ts";
import { approveOnTerminal, renderTrust } from "../ui/trust_ui.ts";

export const { help, parse } = defineCommand(
  trustSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    if (flags.help) return { ...flags, name: "", yes: false };
    return {
      ...flags,
      name: requireOne("trust", positionals, "skill name"),
      yes: values.yes === true,
    };
  },
);

type TrustOptions = OptionsOf<typeof parse>;

export async function run(options: TrustOptions, ctx: Context): Promise<number> {
  const outcome = await trustWorkflow({
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
    name: options.name,
  }, { note: (text) => warn(ctx, text), approve: approveOnTerminal(ctx, options) });
  return renderTrust(ctx, outcome, options.json);
}
