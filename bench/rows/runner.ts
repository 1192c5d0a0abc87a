/**
 * The script runner's cost:
 * - overhead of `skills run` over running the same script with python3 directly
 *   (target: ≤ +60 ms median);
 * - a script printing 1 GiB to stdout: cut at the 1 MiB cap, ≤ 2 s, CLI peak RSS ≤ 150 MiB.
 *
 * Peak RSS comes from GNU time's %M: the ru_maxrss of the waited `deno` process, which
 * Linux reports as the maximum over that process and the descendants it reaped — i.e. the
 * largest single process of the tree (the CLI; the python printer stays near 10 MiB), not
 * the sum of the tree.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measure, measurePair } from "../lib.ts";
import { installRunnerSkill } from "../../tests/helpers/install_fixture.ts";

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const home = join(ctx.tmp, "runner-home");
  await Deno.mkdir(home, { recursive: true });
  await installRunnerSkill(home, "runner-lab");
  const env = { SKILLS_HOME: home, NO_COLOR: "1" };

  const script = join(ctx.repoRoot, "skills/core/hello-extended/scripts/advanced_greeting.py");
  const { baseline, value } = await measurePair(
    { cmd: "python3", args: [script, "--name", "Ada", "--json"], env },
    {
      cmd: ctx.cli.cmd,
      args: [
        ...ctx.cli.args,
        "run",
        "hello-extended",
        "advanced_greeting",
        "--name",
        "Ada",
        "--json",
      ],
      env,
    },
    ctx.runs,
  );
  const overhead = value.medianMs - baseline.medianMs;

  // Exit 1: the output was cut at the cap and the script stopped.
  const flood = await measure(
    {
      cmd: ctx.cli.cmd,
      args: [...ctx.cli.args, "run", "runner-lab", "flood"],
      env,
    },
    Math.min(ctx.runs, 5),
    1,
  );
  const rssOk = flood.peakRssMiB === null || flood.peakRssMiB <= 150;

  return [
    {
      name: "skills run hello-extended advanced_greeting --name Ada --json",
      value,
      baselineName: "python3 advanced_greeting.py --name Ada --json",
      baseline,
      target: "≤ baseline + 60 ms",
      pass: overhead <= 60,
      note: `runner overhead ${Math.round(overhead)} ms`,
    },
    {
      name: "skills run: script printing 1 GiB to stdout (cut at 1 MiB)",
      value: flood,
      baselineName: null,
      baseline: null,
      target: "≤ 2 s, peak RSS ≤ 150 MiB",
      pass: flood.medianMs <= 2000 && rssOk,
      note: "peak RSS: GNU time %M of the CLI (max over it and its reaped children)",
    },
  ];
}
