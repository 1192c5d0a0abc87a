/**
 * `skills context --json` with 1,000 active skills (plus the two bundled ones): the fixed
 * overhead, every skill's share and every activation's cost, measured linearly. Target:
 * ≤ 2 s and ≤ 200 MiB on a 2-core machine; baseline: the same command with no active
 * skill, sampled alternately in the same run.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measurePair } from "../lib.ts";
import { populateHome } from "./list.ts";

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const home = join(ctx.tmp, "context-home-1000");
  await populateHome(home, 1000);
  const spec = (skills: string) => ({
    cmd: ctx.cli.cmd,
    args: [...ctx.cli.args, "context", "--json"],
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: ctx.tmp,
      DENO_DIR: ctx.denoDir,
      SKILLS_HOME: home,
      AGENT_SKILLS: skills,
    },
  });
  const { baseline, value } = await measurePair(
    spec("none"),
    spec("all"),
    Math.min(ctx.runs, 5),
  );
  return [{
    name: "skills context --json, 1,000 active skills",
    value,
    baselineName: "no active skill",
    baseline,
    target: "≤ 2 s; ≤ 200 MiB",
    pass: value.medianMs <= 2000 && (value.peakRssMiB === null || value.peakRssMiB <= 200),
    note: "was quadratic: 3N+1 captured and tokenized requests (36.8 s, 377 MiB before)",
  }];
}
