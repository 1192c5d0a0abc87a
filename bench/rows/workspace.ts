/**
 * What the user's project costs a run (issue 46's target ≤ +30 ms): `skills run` of
 * hello-extended in a git repository of 10,000 files (200 packages of 50 sources, committed,
 * as a mid-sized project) against the same run from an empty folder, both writable (the
 * copy-on-write workspace: an overlay over each, its diff read after the run), sampled in
 * turn, in the OS sandbox and in policy mode. What may grow with the folder is the search
 * for secret files and guarded paths before the run; the diff is read from the overlay's
 * upper layer, never by walking the folder (docs/running-scripts.md, "The workspace").
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, keepRunPlans, measureAlternately, type Measured } from "../lib.ts";

const FOLDERS = 200;
const FILES_PER_FOLDER = 50;
const BUDGET_MS = 30;

async function gitIn(cwd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: [
      "-c",
      "init.defaultBranch=main",
      "-c",
      "user.name=bench",
      "-c",
      "user.email=b@e",
      ...args,
    ],
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** A project of 10,000 files: a README, a package manifest, 200 packages, one commit. */
async function project(root: string): Promise<void> {
  for (let d = 0; d < FOLDERS; d++) {
    const dir = join(root, `pkg${d}`, "src");
    await Deno.mkdir(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_FOLDER - (d === 0 ? 2 : 0); f++) {
      await Deno.writeTextFile(join(dir, `f${f}.ts`), `export const x = ${f};\n`);
    }
  }
  await Deno.writeTextFile(join(root, "README.md"), "# A project\n");
  await Deno.writeTextFile(join(root, "package.json"), '{ "name": "a-project" }\n');
  await gitIn(root, ["init", "--quiet"]);
  await gitIn(root, ["add", "--all"]);
  await gitIn(root, ["commit", "--quiet", "-m", "project"]);
  await Deno.chmod(root, 0o755);
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const workspace = join(ctx.tmp, "workspace");
  await project(workspace);
  const empty = join(ctx.tmp, "workspace-empty");
  await Deno.mkdir(empty, { recursive: true });
  await Deno.chmod(empty, 0o755);
  const env = { SKILLS_HOME: join(ctx.tmp, "workspace-home"), NO_COLOR: "1" };
  const run = (cwd: string, sandbox: string) => ({
    cmd: ctx.cli.cmd,
    args: [...ctx.cli.args, "run", "hello-extended", "advanced_greeting", "--name", "Ada"],
    env: { ...env, SKILLS_SANDBOX: sandbox },
    cwd,
  });
  const modes = Deno.build.os === "linux" ? ["required", "off"] : ["off"];
  const specs = modes.flatMap((mode) => [run(empty, mode), run(workspace, mode)]);
  await keepRunPlans(specs);
  // A difference of tens of milliseconds under a shared machine's wobble: more rounds.
  const figures = await measureAlternately(specs, Math.max(ctx.runs * 2, 15)) as Measured[];
  return modes.map((mode, at) => {
    const baseline = figures[2 * at]!;
    const value = figures[2 * at + 1]!;
    const cost = value.medianMs - baseline.medianMs;
    return {
      name: `skills run from a project of ${FOLDERS * FILES_PER_FOLDER} files, ${
        mode === "off" ? "policy mode (SKILLS_SANDBOX=off)" : "in the OS sandbox"
      }`,
      value,
      baselineName: "the same run from an empty folder",
      baseline,
      target: `≤ baseline + ${BUDGET_MS} ms`,
      pass: cost <= BUDGET_MS,
      note: `${Math.round(cost)} ms over the empty folder; a git repository, writable`,
    };
  });
}
