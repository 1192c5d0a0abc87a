/** `skills why <name>`: the chains of installed skills that require it. */

import { inert } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";
import { whyInstalled } from "../../runtime/workflows/dependencies.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { whySpec } from "../specs/why.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(
  whySpec,
  ({ positionals, common }) => {
    if (common.help) return { ...common, name: "" };
    return { ...common, name: requireOne("why", positionals, "skill name") };
  },
);

type WhyOptions = OptionsOf<typeof parse>;

export async function run(options: WhyOptions, ctx: Context): Promise<number> {
  const found = await whyInstalled(ctx.env, ctx.cwd, options.name);
  if (options.json) {
    writeJson(ctx, { skills: found });
    return 0;
  }
  for (const { name, scope, chains } of found) {
    ctx.stdout.write(`${inert(name)} (${scope})\n`);
    for (const chain of chains) {
      const asked = chain.length === 1 ? " (asked for; nothing requires it)" : "";
      ctx.stdout.write(`  ${chain.map((n) => inert(n)).join(" → ")}${asked}\n`);
    }
  }
  return 0;
}
