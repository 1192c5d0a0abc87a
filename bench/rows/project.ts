/**
 * Project skills (issue 17). Row 1: `skills install --frozen` of a lockfile of 20 skills
 * from 20 local bare repositories (file://) into a fresh clone of the project — fetched at
 * the locked commits, every file verified, moved in atomically — against `git clone --depth 1`
 * of each of the 20 repositories in the same run (target ≤ 1.5×). Row 2: `skills list --json`
 * in a project holding 1,000 project skills (target ≤ 150 ms), against the same listing from
 * outside the project.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import {
  type BenchRow,
  measure,
  measureAlternately,
  type Measured,
  tmpfsDir,
  withinRatio,
} from "../lib.ts";

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
) {
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

const skillMd = (name: string, i: number) =>
  `---\nname: ${name}\ndescription: Benchmark skill number ${i} that does one small thing well.\nversion: 1.0.${i}\npermissions:\n  env: [BENCH_*]\n---\n\n# ${name}\n\nRun \`scripts/run.py --help\` first.\n`;

/** 20 bare repositories of one small skill each (SKILL.md, a script, two references). */
async function repositories(tmp: string): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < 20; i++) {
    const name = `locked-${String(i).padStart(2, "0")}`;
    const work = join(tmp, "project-bench-src", name);
    await Deno.mkdir(join(work, "scripts"), { recursive: true });
    await Deno.mkdir(join(work, "references"), { recursive: true });
    await Deno.writeTextFile(join(work, "SKILL.md"), skillMd(name, i));
    await Deno.writeTextFile(join(work, "scripts", "run.py"), `print("${name}")\n`);
    await Deno.writeTextFile(
      join(work, "references", "guide.md"),
      `# ${name}\n\n${"text ".repeat(400)}\n`,
    );
    await Deno.writeTextFile(
      join(work, "references", "api.md"),
      `# API\n\n${"call ".repeat(400)}\n`,
    );
    await run("git", ["-c", "init.defaultBranch=main", "init", "--quiet"], { cwd: work });
    await run("git", ["add", "--all"], { cwd: work });
    await run("git", ["commit", "--quiet", "-m", name], { cwd: work });
    const bare = join(tmp, "project-bench-repos", `${name}.git`);
    await run("git", ["clone", "--quiet", "--bare", work, bare]);
    urls.push(`file://${bare}`);
  }
  return urls;
}

async function installRow(ctx: BenchContext): Promise<BenchRow> {
  const urls = await repositories(ctx.tmp);
  // The project: its lockfile written by `skills add --project`, as a team would.
  const origin = join(ctx.tmp, "project-bench-origin");
  await Deno.mkdir(join(origin, ".git"), { recursive: true });
  const env = { SKILLS_HOME: join(ctx.tmp, "project-bench-home"), GIT_CONFIG_GLOBAL: "/dev/null" };
  for (const url of urls) {
    await run(ctx.cli.cmd, [...ctx.cli.args, "add", url, "--project", "--yes"], {
      cwd: origin,
      env,
    });
  }
  const lock = await Deno.readTextFile(join(origin, "skills-lock.json"));
  // One fresh clone of the project (its lockfile, no skills yet) per sample.
  const clone = async (i: number) => {
    const dir = join(ctx.tmp, `project-bench-clone-${i}`);
    await Deno.mkdir(join(dir, ".git"), { recursive: true });
    await Deno.writeTextFile(join(dir, "skills-lock.json"), lock);
    return dir;
  };
  const clones = new Map<number, string>();
  for (let i = -1; i < ctx.runs; i++) clones.set(i, await clone(i));
  const script = urls.map((url, i) =>
    `git clone --quiet --depth 1 -- '${url}' '${
      join(ctx.tmp, "project-bench-git")
    }'-$1-${i} || exit 1`
  ).join("\n");
  const loop = join(ctx.tmp, "project-bench-clones.sh");
  await Deno.writeTextFile(loop, `${script}\n`);
  // The CPU-bound twin (bench/lib.ts BenchRow.cpuBaseline): the same clones without fsync,
  // into a tmpfs where there is one, each sample's removed before the next.
  const shm = tmpfsDir(ctx.tmp);
  const cpuLoop = join(ctx.tmp, "project-bench-clones-cpu.sh");
  await Deno.writeTextFile(
    cpuLoop,
    `rm -rf '${shm}'/c-*\n${
      urls.map((url, i) =>
        `git -c core.fsync=none clone --quiet --depth 1 -- '${url}' '${shm}'/c-$1-${i} || exit 1`
      ).join("\n")
    }\n`,
  );
  const [baseline, cpuBaseline, value] = await measureAlternately([
    (i) => ({ cmd: "sh", args: [loop, String(i + 1)], env: GIT_ENV }),
    (i) => ({ cmd: "sh", args: [cpuLoop, String(i + 1)], env: GIT_ENV }),
    (i) => ({
      cmd: ctx.cli.cmd,
      args: [...ctx.cli.args, "install", "--frozen"],
      cwd: clones.get(i)!,
      env: {
        SKILLS_HOME: join(ctx.tmp, `project-bench-home-${i}`),
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
    }),
  ], ctx.runs).finally(() => Deno.remove(shm, { recursive: true })) as [
    Measured,
    Measured,
    Measured,
  ];
  return {
    name: "skills install --frozen (20 locked skills, 20 local repositories)",
    value,
    baselineName: "git clone --depth 1 of each",
    baseline,
    cpuBaselineName: "the same clones, core.fsync=none, into tmpfs",
    cpuBaseline,
    target: "≤ 1.5× baseline (both)",
    pass: withinRatio(value, 1.5, baseline, cpuBaseline),
    note:
      "one Deno start-up, then per skill: a direct read of the repository at the locked commit, every file hashed and compared with the lockfile, a copy into the project's staging; one journaled commit",
  };
}

/** 1,000 project skills in `<project>/.agents/skills`, dated like a checkout an hour old. */
async function bigProject(tmp: string): Promise<string> {
  const root = join(tmp, "project-bench-big");
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  const past = new Date(Date.now() - 3600_000);
  for (let i = 0; i < 1000; i++) {
    const name = `project-skill-${String(i).padStart(4, "0")}`;
    const dir = join(root, ".agents", "skills", name);
    await Deno.mkdir(join(dir, "scripts"), { recursive: true });
    await Deno.writeTextFile(join(dir, "SKILL.md"), skillMd(name, i));
    await Deno.writeTextFile(join(dir, "scripts", "run.py"), "print('ok')\n");
    for (
      const path of [
        join(dir, "scripts", "run.py"),
        join(dir, "scripts"),
        join(dir, "SKILL.md"),
        dir,
      ]
    ) {
      await Deno.utime(path, past, past);
    }
  }
  return root;
}

async function listRow(ctx: BenchContext): Promise<BenchRow> {
  const root = await bigProject(ctx.tmp);
  const home = join(ctx.tmp, "project-bench-list-home");
  const env = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: ctx.tmp,
    DENO_DIR: ctx.denoDir,
    SKILLS_HOME: home,
  };
  const list = (cwd: string) => ({
    cmd: ctx.cli.cmd,
    args: [...ctx.cli.args, "list", "--json"],
    cwd,
    env,
  });
  const outside = await measure(list(ctx.tmp), ctx.runs);
  const inside = await measure(list(join(root, ".agents")), ctx.runs);
  return {
    name: "skills list --json in a project of 1,000 project skills",
    value: inside,
    baselineName: "the same listing outside the project",
    baseline: outside,
    target: "≤ 150 ms",
    pass: inside.medianMs <= 150,
    note:
      "the project scope's own listing cache (stamps per skill directory), warm after the first run",
  };
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  return [await installRow(ctx), await listRow(ctx)];
}
