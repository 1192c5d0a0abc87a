/**
 * The script runner's cost (issue 26's targets):
 * - `skills run hello-extended advanced_greeting --json` in the OS sandbox
 *   (SKILLS_SANDBOX=required) ≤ floor + 25 ms, and in policy mode (SKILLS_SANDBOX=off)
 *   ≤ floor + 15 ms, where the floor is `deno run` of a small script that spawns the same
 *   `python3` command (found on PATH the same way, so a version manager's shim weighs on
 *   both sides) and prints its output: what any Deno CLI that runs the script must pay.
 *   The skill has run before (bench/lib.ts keepRunPlans): its run plan is kept, as for every
 *   run of a skill version but its first.
 *   The three are sampled in turn in the same run, from an empty folder: what a workspace
 *   costs (walked before and after a run for guarded paths and the receipt) grows with the
 *   folder the user runs in and has its own row (workspace.ts; in this repository's root,
 *   where the bench starts, it adds ~150 ms).
 * - a script printing 1 GiB to stdout: cut at the 1 MiB cap, ≤ 2 s, CLI peak RSS ≤ 150 MiB.
 *
 * Peak RSS comes from GNU time's %M: the ru_maxrss of the waited `deno` process, which
 * Linux reports as the maximum over that process and the descendants it reaped — i.e. the
 * largest single process of the tree (the CLI; the python printer stays near 10 MiB), not
 * the sum of the tree.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, keepRunPlans, measure, measureAlternately } from "../lib.ts";
import { installRunnerSkill } from "../../tests/helpers/install_fixture.ts";

const ARGS = ["--name", "Ada", "--json"];

/** The floor: Deno's start-up, one spawn of the same python3 command, its output printed. */
async function floorScript(tmp: string, script: string): Promise<string> {
  const path = join(tmp, "run-floor.js");
  await Deno.writeTextFile(
    path,
    `const out = await new Deno.Command("python3", { args: ${
      JSON.stringify([script, ...ARGS])
    }, stdout: "piped" }).output();\nDeno.stdout.writeSync(out.stdout);\nDeno.exit(out.code);\n`,
  );
  return path;
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const home = join(ctx.tmp, "runner-home");
  await Deno.mkdir(home, { recursive: true });
  await installRunnerSkill(home, "runner-lab");
  const env = { SKILLS_HOME: home, NO_COLOR: "1" };
  const script = join(ctx.repoRoot, "skills/core/hello-extended/scripts/advanced_greeting.py");
  const floor = await floorScript(ctx.tmp, script);
  const cwd = join(ctx.tmp, "runner-cwd");
  await Deno.mkdir(cwd);
  const run = (sandbox: string, cli = ctx.cli) => ({
    cmd: cli.cmd,
    args: [...cli.args, "run", "hello-extended", "advanced_greeting", ...ARGS],
    env: { ...env, SKILLS_SANDBOX: sandbox },
    cwd,
  });
  const linux = Deno.build.os === "linux";
  // A difference of a few milliseconds under a ±30% wobble: more rounds than usual.
  const runs = Math.max(ctx.runs * 2, 15);
  const runsOfSkills = [
    run("off"),
    run("off", ctx.bundle),
    ...(linux ? [run("required"), run("required", ctx.bundle)] : []),
  ];
  await keepRunPlans(runsOfSkills);
  // The same runs from the bundle too: its modules come built, as the compiled binary's do,
  // which tells how much of the cost is loading the sources (informational rows).
  const [base, policy, bundledPolicy, sandboxed, bundledSandboxed] = await measureAlternately([
    { cmd: Deno.execPath(), args: ["run", "--quiet", "--allow-run=python3", floor], env, cwd },
    ...runsOfSkills,
  ], runs);
  const floorName = "floor: deno run of a script spawning the same python3 command";
  const judged = (label: string, value: typeof base, budget: number): BenchRow => {
    const cost = value!.medianMs - base!.medianMs;
    return {
      name: `skills run hello-extended advanced_greeting --json, ${label}`,
      value: value!,
      baselineName: floorName,
      baseline: base!,
      target: `≤ baseline + ${budget} ms`,
      pass: cost <= budget,
      note: `${Math.round(cost)} ms over the floor; run from an empty folder`,
    };
  };
  const fromBundle = (label: string, value: typeof base): BenchRow => ({
    name: `skills run hello-extended advanced_greeting --json, ${label}, dist/skills.js bundle`,
    value: value!,
    baselineName: floorName,
    baseline: base!,
    target: "informational: the row above with the modules built, as in the binary",
    pass: null,
    note: `${Math.round(value!.medianMs - base!.medianMs)} ms over the floor`,
  });

  // Exit 1: the output was cut at the cap and the script stopped.
  const flood = await measure(
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "run", "runner-lab", "flood"], env },
    Math.min(ctx.runs, 5),
    1,
  );
  const rssOk = flood.peakRssMiB === null || flood.peakRssMiB <= 150;

  return [
    ...(sandboxed ? [judged("in the OS sandbox", sandboxed, 25)] : []),
    ...(bundledSandboxed ? [fromBundle("in the OS sandbox", bundledSandboxed)] : []),
    judged("policy mode (SKILLS_SANDBOX=off)", policy, 15),
    fromBundle("policy mode (SKILLS_SANDBOX=off)", bundledPolicy),
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
