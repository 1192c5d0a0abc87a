/**
 * The first `skills context --json` after an install (issue 46's targets): every installed
 * skill active (`AGENT_SKILLS=all`), so each activation needs the skill's verified copy.
 * - 400 skills just installed by `skills add --skill '*'` (each sample installs into a fresh
 *   home first, not timed): ≤ 1.5 s;
 * - 1,000 installed the same way, warm (the copies made by a run before): ≤ 0.8 s.
 * The baseline of both is the same command with no active skill on the same home, sampled in
 * turn.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measureAlternately, type Measured } from "../lib.ts";
import { manyRepo } from "./add.ts";

function install(ctx: BenchContext, url: string, home: string): void {
  const out = new Deno.Command(ctx.cli.cmd, {
    args: [...ctx.cli.args, "add", url, "--skill", "*", "--yes"],
    env: { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  if (!out.success) throw new Error(`skills add: ${new TextDecoder().decode(out.stderr)}`);
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const context = (home: string, skills: string) => ({
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
  const four = await manyRepo(ctx.tmp, 400);
  const firstHome = join(ctx.tmp, "context-first-none");
  install(ctx, four, firstHome);
  const [firstBase, first] = await measureAlternately([
    context(firstHome, "none"),
    (i: number) => {
      const home = join(ctx.tmp, `context-first-${i}`);
      install(ctx, four, home);
      return context(home, "all");
    },
  ], Math.min(ctx.runs, 5)) as [Measured, Measured];

  const thousand = await manyRepo(ctx.tmp, 1000);
  const warmHome = join(ctx.tmp, "context-warm-1000");
  install(ctx, thousand, warmHome);
  const [warmBase, warm] = await measureAlternately([
    context(warmHome, "none"),
    context(warmHome, "all"),
  ], Math.min(ctx.runs, 5)) as [Measured, Measured];
  return [{
    name: "first skills context --json after installing 400 skills (all active)",
    value: first,
    baselineName: "no active skill",
    baseline: firstBase,
    target: "≤ 1.5 s",
    pass: first.medianMs <= 1500,
    note: "each sample installs the 400 skills into a fresh home first (not timed)",
  }, {
    name: "skills context --json, 1,000 installed skills all active, warm",
    value: warm,
    baselineName: "no active skill",
    baseline: warmBase,
    target: "≤ 0.8 s",
    pass: warm.medianMs <= 800,
    note: "installed by skills add; the verified copies made by the warm-up",
  }];
}
