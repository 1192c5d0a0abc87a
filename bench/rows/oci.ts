/**
 * Skills on an OCI registry (issue 29), against a real registry (Debian's docker-registry on
 * a loopback port). Row 1: `skills add oci://…:v1 --yes` of one skill (a copy of the bundled
 * kalshi-markets, renamed) against `skills add file://… --yes` of the same skill from a local
 * bare git repository, in the same run (target ≤ 1.5×), each into a fresh $SKILLS_HOME.
 * Rows 2-3: 32 clients running `skills install --frozen` at once, each in its own clone of a
 * project whose lockfile holds 20 skills published to 20 repositories of the one registry;
 * p50 and p99 of their wall times and the error count (target: 0), against one client alone.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, type Measured, measurePair, round } from "../lib.ts";
import { startRegistry } from "../../tests/helpers/oci_registry.ts";

const CLIENTS = 32;
const SKILLS = 20;

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

async function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<void> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: { ...GIT_ENV, ...options.env },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function measured(values: readonly number[], at: number): Measured {
  return {
    medianMs: round(percentile(values, at)),
    minMs: round(Math.min(...values)),
    maxMs: round(Math.max(...values)),
    peakRssMiB: null,
    runs: values.length,
  };
}

/** One `install --frozen` in `cwd`: its wall time, or null when it failed. */
async function frozenInstall(ctx: BenchContext, cwd: string, home: string) {
  const start = performance.now();
  const out = await new Deno.Command(ctx.cli.cmd, {
    args: [...ctx.cli.args, "install", "--frozen"],
    cwd,
    env: { ...GIT_ENV, HOME: ctx.tmp, DENO_DIR: ctx.denoDir, SKILLS_HOME: home },
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - start;
  if (out.code !== 0) {
    console.error(`bench: oci: install --frozen failed: ${new TextDecoder().decode(out.stderr)}`);
    return null;
  }
  return ms;
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const registry = await startRegistry();
  try {
    const cliEnv = { HOME: ctx.tmp, DENO_DIR: ctx.denoDir, PATH: Deno.env.get("PATH") ?? "" };
    const cli = (args: string[], cwd?: string, env: Record<string, string> = {}) =>
      run(ctx.cli.cmd, [...ctx.cli.args, ...args], { cwd, env: { ...cliEnv, ...env } });

    // Row 1: the same skill from the registry and from a local bare repository.
    const work = join(ctx.tmp, "oci-bench-src");
    await copyDir(join(ctx.repoRoot, "skills", "core", "kalshi-markets"), work);
    const md = join(work, "SKILL.md");
    await Deno.writeTextFile(
      md,
      (await Deno.readTextFile(md)).replace(/^name: .*$/m, "name: bench-markets"),
    );
    await run("git", ["-c", "init.defaultBranch=main", "init", "--quiet"], { cwd: work });
    await run("git", ["add", "--all"], { cwd: work });
    await run("git", ["commit", "--quiet", "-m", "bench"], { cwd: work });
    const bare = join(ctx.tmp, "oci-bench.git");
    await run("git", ["clone", "--quiet", "--bare", work, bare]);
    const reference = `oci://${registry.host}/bench/markets:v1`;
    await cli(["publish", work, reference]);
    const { baseline, value } = await measurePair(
      (i) => ({
        cmd: ctx.cli.cmd,
        args: [...ctx.cli.args, "add", `file://${bare}`, "--yes"],
        env: { ...GIT_ENV, ...cliEnv, SKILLS_HOME: join(ctx.tmp, `oci-git-home-${i}`) },
      }),
      (i) => ({
        cmd: ctx.cli.cmd,
        args: [...ctx.cli.args, "add", reference, "--yes"],
        env: { ...cliEnv, SKILLS_HOME: join(ctx.tmp, `oci-home-${i}`) },
      }),
      ctx.runs,
    );

    // Rows 2-3: a project locking 20 skills from 20 repositories of the registry.
    const project = join(ctx.tmp, "oci-bench-project");
    await Deno.mkdir(project, { recursive: true });
    await run("git", ["-c", "init.defaultBranch=main", "init", "--quiet"], { cwd: project });
    for (let i = 0; i < SKILLS; i++) {
      const name = `oci-locked-${String(i).padStart(2, "0")}`;
      const dir = join(ctx.tmp, "oci-bench-skills", name);
      await Deno.mkdir(join(dir, "scripts"), { recursive: true });
      await Deno.mkdir(join(dir, "references"), { recursive: true });
      await Deno.writeTextFile(
        join(dir, "SKILL.md"),
        `---\nname: ${name}\ndescription: Benchmark skill number ${i} that does one small thing well.\n---\n\n# ${name}\n\nRun \`scripts/run.py --help\` first.\n`,
      );
      await Deno.writeTextFile(join(dir, "scripts", "run.py"), `print("${name}")\n`);
      await Deno.writeTextFile(
        join(dir, "references", "guide.md"),
        `# ${name}\n\n${"text ".repeat(400)}\n`,
      );
      const ref = `oci://${registry.host}/bench/${name}:v1`;
      await cli(["publish", dir, ref]);
      await cli(["add", ref, "--project", "--yes"], project, {
        SKILLS_HOME: join(ctx.tmp, "oci-bench-project-home"),
      });
    }
    await run("git", ["add", "skills-lock.json"], { cwd: project });
    await run("git", ["commit", "--quiet", "-m", "lock"], { cwd: project });

    let clones = 0;
    const clone = async () => {
      const dir = join(ctx.tmp, `oci-bench-clone-${clones++}`);
      await run("git", ["clone", "--quiet", project, dir]);
      return { dir, home: join(ctx.tmp, `${dir}-home`) };
    };
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await clone();
      const ms = await frozenInstall(ctx, c.dir, c.home);
      if (ms === null) throw new Error("skills install --frozen failed with one client alone");
      alone.push(ms);
    }
    const concurrent: number[] = [];
    let errors = 0;
    const rounds = 2;
    for (let r = 0; r < rounds; r++) {
      const targets = await Promise.all(Array.from({ length: CLIENTS }, clone));
      const times = await Promise.all(targets.map((c) => frozenInstall(ctx, c.dir, c.home)));
      for (const ms of times) {
        if (ms === null) errors++;
        else concurrent.push(ms);
      }
    }
    if (concurrent.length === 0) throw new Error("every concurrent install --frozen failed");
    const p50 = measured(concurrent, 50);
    const p99 = measured(concurrent, 99);
    const single = measured(alone, 50);
    console.error(
      `bench: oci: add ${value.medianMs} ms vs git ${baseline.medianMs} ms; ${CLIENTS} × install --frozen ` +
        `(${SKILLS} skills) × ${rounds}: p50 ${p50.medianMs} ms, p99 ${p99.medianMs} ms, errors ${errors} ` +
        `(alone: ${single.medianMs} ms)`,
    );
    const name =
      `skills install --frozen, ${CLIENTS} clients at once, ${SKILLS}-skill OCI lockfile, one registry`;
    const note = `${concurrent.length} installs measured over ${rounds} rounds, errors: ${errors}`;
    return [
      {
        name: "skills add oci:// (one skill, local registry)",
        value,
        baselineName: "skills add file:// of the same skill (local bare repository)",
        baseline,
        target: "≤ 1.5× baseline",
        pass: value.medianMs <= 1.5 * baseline.medianMs,
        note:
          "pull = manifest + config + layer by digest over loopback HTTP, every blob and file checked",
      },
      {
        name: `${name}, p50`,
        value: p50,
        baselineName: "one client alone, p50",
        baseline: single,
        target: "errors = 0",
        pass: errors === 0,
        note,
      },
      {
        name: `${name}, p99`,
        value: p99,
        baselineName: "one client alone, p50",
        baseline: single,
        target: "errors = 0",
        pass: errors === 0,
        note,
      },
    ];
  } finally {
    await registry.close();
  }
}
