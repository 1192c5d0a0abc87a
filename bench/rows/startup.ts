/** `skills --version` against `deno run` of an empty script (target ≤ 2×). */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measure, measurePair } from "../lib.ts";

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const empty = join(ctx.tmp, "empty.js");
  await Deno.writeTextFile(empty, "");
  const { baseline, value } = await measurePair(
    { cmd: Deno.execPath(), args: ["run", "--quiet", empty] },
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "--version"] },
    ctx.runs,
  );
  const bundled = await measure(
    { cmd: ctx.bundle.cmd, args: [...ctx.bundle.args, "--version"] },
    ctx.runs,
  );
  return [{
    name: "skills --version",
    value,
    baselineName: "deno run empty.js",
    baseline,
    target: "≤ 2× baseline",
    pass: value.medianMs <= 2 * baseline.medianMs,
  }, {
    name: "skills --version (dist/skills.js bundle)",
    value: bundled,
    baselineName: "deno run empty.js",
    baseline,
    target: "informational: the bundle is parsed whole",
    pass: null,
  }];
}
