/**
 * `skills --version` against `deno run` of an empty script (target ≤ 2×), and the bundle's
 * `--version` against the sources' (target ≤ 1.5×: its chunks load on demand).
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measurePair } from "../lib.ts";

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const empty = join(ctx.tmp, "empty.js");
  await Deno.writeTextFile(empty, "");
  const { baseline, value } = await measurePair(
    { cmd: Deno.execPath(), args: ["run", "--quiet", empty] },
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "--version"] },
    ctx.runs,
  );
  const bundled = await measurePair(
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "--version"] },
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
    value: bundled.value,
    baselineName: "skills --version (src/main.ts)",
    baseline: bundled.baseline,
    target: "≤ 1.5× baseline",
    pass: bundled.value.medianMs <= 1.5 * bundled.baseline.medianMs,
  }];
}
