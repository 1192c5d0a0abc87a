/**
 * What a large writable workspace costs a run: `skills run` in a folder of 10,000 files (200
 * folders of 50, as a mid-sized repository) against the same run from an empty folder, both
 * writable (the copy-on-write workspace: an overlay over each, its diff read after the run).
 * What grows with the folder is only the secret-file finder's walk before the run; the diff
 * is read from the overlay's upper layer, never by walking the folder
 * (docs/running-scripts.md, "The workspace").
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
  const empty = join(ctx.tmp, "workspace-empty");
  await Deno.mkdir(empty, { recursive: true });
  await Deno.chmod(empty, 0o755);
  const env = { SKILLS_HOME: join(ctx.tmp, "workspace-home") };
  const run = (cwd: string) => ({
    cmd: ctx.cli.cmd,
    args: [
      ...ctx.cli.args,
      "run",
      "hello-extended",
      "advanced_greeting",
      "--name",
      "Ada",
    ],
    env,
    cwd,
  });
  const { baseline, value } = await measurePair(run(empty), run(workspace), ctx.runs);
  return [{
    name: `skills run in a writable workspace of ${FOLDERS * FILES_PER_FOLDER} files`,
    value,
    baselineName: "the same run from an empty folder",
    baseline,
    target: "informational: no worse than the two walks of before (1.7-2.5x)",
    pass: null,
    note:
      "secret files found by name before the run; the diff read from the overlay, no walk after",
  }];
}
