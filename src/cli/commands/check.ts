/**
 * `skills check`: the doctor — skill status, activation hint, tools, sandbox, home
 * consistency, the project. What it looks at is runtime/inspect's (`examine`); this prints it.
 */

import type { Context } from "../../core/io.ts";
import { UsageError } from "../../core/errors.ts";
import { examine } from "../../runtime/inspect/doctor.ts";
import { type CheckId, CHECKS } from "../../runtime/inspect/checks.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { checkSpec } from "../specs/check.ts";
import { doctorText } from "../ui/doctor_ui.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(
  checkSpec,
  ({ values, positionals, common }) => {
    const ids = CHECKS.map((c) => c.id);
    for (const name of positionals) {
      if (!(ids as string[]).includes(name)) {
        throw new UsageError(`Unknown check '${name}'`, `Name one of ${ids.join(", ")}`);
      }
    }
    return {
      ...common,
      repair: values.repair === true,
      only: positionals.length > 0 ? positionals as CheckId[] : undefined,
    };
  },
);

type CheckOptions = OptionsOf<typeof parse>;

export async function run(options: CheckOptions, ctx: Context): Promise<number> {
  const report = await examine(ctx, { repair: options.repair, only: options.only });
  if (options.json) writeJson(ctx, report.json);
  else ctx.stdout.write(doctorText(report, ctx.color).join("\n") + "\n");
  return report.healthy ? 0 : 1;
}
