/**
 * What a writable workspace costs a run: `skills run` in a folder of 10,000 files (200
 * folders of 50, as a mid-sized repository) against the same run with `--read-only`, where
 * the workspace is neither walked for guarded paths and secrets nor compared afterwards for
 * the receipt. The difference is the two bounded walks (docs/running-scripts.md, "The workspace").
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measurePair } from "../lib.ts";

const FOLDERS = 200;
const FILES_PER_FOLDER = 50;

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const workspace = join(ctx.tmp, "workspace");
  for (let d = 0; d < FOLDERS; d++) {
    const dir = join(workspace, `pkg${d}`, "src");
    await Deno.mkdir(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_FOLDER; f++) {
      await Deno.writeTextFile(join(dir, `f${f}.ts`), `export const x = ${f};\n`);
    }
  }
  await Deno.chmod(workspace, 0o755);
  const env = { SKILLS_HOME: join(ctx.tmp, "workspace-home") };
  const run = (extra: string[]) => ({
    cmd: ctx.cli.cmd,
    args: [
      ...ctx.cli.args,
      "run",
      ...extra,
      "hello-extended",
      "advanced_greeting",
      "--name",
      "Ada",
    ],
    env,
    cwd: workspace,
  });
  const { baseline, value } = await measurePair(run(["--read-only"]), run([]), ctx.runs);
  return [{
    name: `skills run in a writable workspace of ${FOLDERS * FILES_PER_FOLDER} files`,
    value,
    baselineName: "the same run with --read-only",
    baseline,
    target: "informational: the walks before and after a run",
    pass: null,
    note: "guarded paths and secrets found, every entry's stat compared for the receipt",
  }];
}
