/**
 * `skills check`: the doctor — skill status, activation hint, tools, sandbox, home
 * consistency, the project. What it looks at is runtime/inspect's (`examine`); this prints it.
 */

import type { Context } from "../../core/io.ts";
import { UsageError } from "../../core/errors.ts";
import { examine } from "../../runtime/inspect/doctor.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { checkSpec } from "../specs/check.ts";
import { doctorText } from "../ui/doctor_ui.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(
  checkSpec,
  ({ values, positionals, common }) => {
    if (positionals.length > 0) {
      throw new UsageError(
        `Unexpected argument '${positionals[0]}'`,
        "Run `skills check --help` for usage",
      );
    }
    return { ...common, repair: values.repair === true };
  },
);

type CheckOptions = OptionsOf<typeof parse>;

export async function run(options: CheckOptions, ctx: Context): Promise<number> {
  const report = await examine(ctx, { repair: options.repair });
  if (options.json) writeJson(ctx, report.json);
  else ctx.stdout.write(doctorText(report, ctx.color).join("\n") + "\n");
  return report.healthy ? 0 : 1;
}
