/**
 * What the skills a user has installed cost a run of one of them: `skills run hello-extended`
 * with 1,000 installed skills against the same run with none, in the OS sandbox (policy mode
 * where there is none), the skill having run before. Its run plan (src/runtime/exec/run_plan.ts)
 * stands for the catalog: the registry is stat'ed, not read, and the plan lists the other
 * skills' folders the sandbox hides without reading them.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, keepRunPlans, measurePair } from "../lib.ts";
import { populateHome } from "./list.ts";

const INSTALLED = 1000;

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const many = join(ctx.tmp, "runner-scale-home");
  const none = join(ctx.tmp, "runner-scale-empty");
  await populateHome(many, INSTALLED);
  await Deno.mkdir(none, { recursive: true });
  const cwd = join(ctx.tmp, "runner-scale-cwd");
  await Deno.mkdir(cwd);
  const sandbox = Deno.build.os === "linux" ? "required" : "off";
  const run = (home: string) => ({
    cmd: ctx.cli.cmd,
    args: [...ctx.cli.args, "run", "hello-extended", "advanced_greeting", "--name", "Ada"],
    env: { SKILLS_HOME: home, SKILLS_SANDBOX: sandbox },
    cwd,
  });
  await keepRunPlans([run(none), run(many)]);
  const { baseline, value } = await measurePair(run(none), run(many), ctx.runs);
  return [{
    name: `skills run hello-extended with ${INSTALLED.toLocaleString("en")} installed skills${
      sandbox === "required" ? ", in the OS sandbox" : ""
    }`,
    value,
    baselineName: "the same run with none installed",
    baseline,
    target: "informational: what other installed skills cost a run",
    pass: null,
    note: "with the run plan kept: the registry stat'ed, the others neither read nor resolved",
  }];
}
