/**
 * `skills list --json` of a real-sized collection against the peer (issue 46's target
 * ≤ 0.4×): the 18 skills of a repository laid out as anthropics/skills
 * (bench/fixtures/public_collection.ts) installed by `skills add --skill '*'`, listed with the
 * two bundled ones (20), against vercel-labs' `skills@1.7.4 list -g --json` of the same 18
 * installed by the peer's own `add -g` (scripts/peer_cli.ts installs it with its Node 22).
 * Both run under a clean environment and are sampled in turn.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measureAlternately, type Measured } from "../lib.ts";
import { COLLECTION_SKILLS, writePublicCollection } from "../fixtures/public_collection.ts";
import { ensurePeer } from "../../scripts/peer_cli.ts";

async function run(cmd: string, args: string[], env: Record<string, string>, cwd?: string) {
  const out = await new Deno.Command(cmd, {
    args,
    env,
    clearEnv: true,
    ...(cwd ? { cwd } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

const gitEnv = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const work = join(ctx.tmp, "list-peer-collection");
  await writePublicCollection(work);
  for (const args of [["init", "--quiet"], ["add", "--all"], ["commit", "--quiet", "-m", "c"]]) {
    await run("git", ["-c", "init.defaultBranch=main", ...args], { ...gitEnv, PATH: path }, work);
  }
  const ours = join(ctx.tmp, "list-peer-ours");
  const home = join(ours, ".agent", "skills");
  const env = { PATH: path, HOME: ours, DENO_DIR: ctx.denoDir, SKILLS_HOME: home };
  await run(ctx.cli.cmd, [...ctx.cli.args, "add", `file://${work}`, "--skill", "*", "--yes"], {
    ...env,
    GIT_CONFIG_GLOBAL: "/dev/null",
  });
  const { node, cli } = await ensurePeer();
  const theirs = join(ctx.tmp, "list-peer-theirs");
  await Deno.mkdir(theirs);
  const peerEnv = { PATH: path, HOME: theirs, DISABLE_TELEMETRY: "1", NO_COLOR: "1" };
  await run(node, [cli, "add", work, "-g", "--agent", "claude-code", "--skill", "*", "-y"], {
    ...peerEnv,
    GIT_CONFIG_GLOBAL: "/dev/null",
  }, theirs);
  const listed = JSON.parse(await run(node, [cli, "list", "-g", "--json"], peerEnv, theirs));
  if (listed.length !== COLLECTION_SKILLS.length) {
    throw new Error(`the peer lists ${listed.length} skills, not ${COLLECTION_SKILLS.length}`);
  }
  const mine = JSON.parse(await run(ctx.cli.cmd, [...ctx.cli.args, "list", "--json"], env));
  if (mine.skills.length !== COLLECTION_SKILLS.length + 2) {
    throw new Error(`skills list shows ${mine.skills.length}, not ${COLLECTION_SKILLS.length + 2}`);
  }
  // Installed skills are not listed in the two seconds after their install (a fresh file is
  // always hashed again): let them settle, as every install but a brand new one has.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const clean = (cmd: string, args: string[], vars: Record<string, string>) => ({
    cmd: "env",
    args: ["-i", ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), cmd, ...args],
    cwd: ctx.tmp,
  });
  const [baseline, value] = await measureAlternately([
    clean(node, [cli, "list", "-g", "--json"], peerEnv),
    clean(ctx.cli.cmd, [...ctx.cli.args, "list", "--json"], env),
  ], Math.max(ctx.runs, 11)) as [Measured, Measured];
  return [{
    name: `skills list --json, the ${COLLECTION_SKILLS.length} skills of a collection laid out ` +
      "as anthropics/skills (+2 bundled)",
    value,
    baselineName: "skills@1.7.4 list -g --json of the same skills (Node 22)",
    baseline,
    target: "≤ 0.4× baseline",
    pass: value.medianMs <= 0.4 * baseline.medianMs,
    note: "both under a clean environment; the peer installed them with its own add -g",
  }];
}
