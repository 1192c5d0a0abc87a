/**
 * `skills add --yes` of one skill from a local bare repository (file://) against a plain
 * `git clone --depth 1` of the same repository, median wall time in the same run
 * (target ≤ 2.5×, issue 26), plus the floor any Deno program that runs git has on the same
 * scale, and `add --skill '*'` of 1,000 skills from one repository against 100 (≤ 12×, so
 * the cost grows linearly, and ≤ 4 s).
 * Row 1: a single-skill repo, a copy of the bundled kalshi-markets (SKILL.md + ten
 * scripts) renamed so it does not collide with the bundled one. Row 2: one skill out of a
 * 20-skill collection (skills/<name>/ with a 256 KiB asset each), where the clone itself
 * dominates. Each sample installs into a fresh $SKILLS_HOME / clones into a fresh
 * directory.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import {
  type BenchRow,
  type CommandSpec,
  measureAlternately,
  type Measured,
  measurePair,
  tmpfsDir,
  withinRatio,
} from "../lib.ts";
import { COLLECTION_SKILLS, writePublicCollection } from "../fixtures/public_collection.ts";

async function git(cwd: string, args: string[]) {
  const out = await new Deno.Command("git", {
    args: ["-c", "init.defaultBranch=main", ...args],
    cwd,
    env: {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "bench",
      GIT_AUTHOR_EMAIL: "bench@example.invalid",
      GIT_COMMITTER_NAME: "bench",
      GIT_COMMITTER_EMAIL: "bench@example.invalid",
    },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function copyDir(from: string, to: string) {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/** A bare repo holding one skill (kalshi-markets renamed to bench-markets). */
async function benchRepo(tmp: string, repoRoot: string): Promise<string> {
  const work = join(tmp, "add-bench-src");
  await copyDir(join(repoRoot, "skills", "core", "kalshi-markets"), work);
  const md = join(work, "SKILL.md");
  await Deno.writeTextFile(
    md,
    (await Deno.readTextFile(md)).replace(/^name: .*$/m, "name: bench-markets"),
  );
  await git(work, ["init", "--quiet"]);
  await git(work, ["add", "--all"]);
  await git(work, ["commit", "--quiet", "-m", "bench"]);
  const bare = join(tmp, "add-bench.git");
  await git(tmp, ["clone", "--quiet", "--bare", work, bare]);
  return `file://${bare}`;
}

/** A bare repo with 20 skills under skills/<name>/, each with an incompressible asset. */
async function collectionRepo(tmp: string): Promise<string> {
  const work = join(tmp, "add-bench-collection");
  for (let i = 0; i < 20; i++) {
    const dir = join(work, "skills", `coll-${i}`);
    await Deno.mkdir(join(dir, "assets"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      `---\nname: coll-${i}\ndescription: Collection skill ${i} for the add benchmark.\n---\n# coll-${i}\n\nRead assets/data.bin.\n`,
    );
    const bytes = new Uint8Array(256 * 1024);
    for (let o = 0; o < bytes.length; o += 65536) {
      crypto.getRandomValues(bytes.subarray(o, o + 65536));
    }
    await Deno.writeFile(join(dir, "assets", "data.bin"), bytes);
  }
  await Deno.writeTextFile(join(work, "README.md"), "# A collection\n");
  await git(work, ["init", "--quiet"]);
  await git(work, ["add", "--all"]);
  await git(work, ["commit", "--quiet", "-m", "collection"]);
  const bare = join(tmp, "add-bench-collection.git");
  await git(tmp, ["clone", "--quiet", "--bare", work, bare]);
  return `file://${bare}`;
}

/** The baseline of every row: `git clone --depth 1` of `url`, into a fresh directory. */
function cloneSpec(ctx: BenchContext, url: string, tag: string): (run: number) => CommandSpec {
  return (i) => ({
    cmd: "git",
    args: ["clone", "--quiet", "--depth", "1", "--", url, join(ctx.tmp, `${tag}-clone-${i}`)],
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

/**
 * The CPU-bound baseline beside the clone: the same clone with `core.fsync=none` into a tmpfs
 * (/dev/shm where there is one), so that a slow disk, which stretches the clone's fsync of
 * its pack, cannot make a row pass. Each sample's clone is removed before the next.
 */
function cpuCloneSpec(shm: string, url: string, tag: string): (run: number) => CommandSpec {
  return (i) => {
    try {
      Deno.removeSync(join(shm, `${tag}-cpu-clone-${i - 1}`), { recursive: true });
    } catch { /* the first sample: nothing to remove */ }
    return {
      cmd: "git",
      args: [
        "-c",
        "core.fsync=none",
        "clone",
        "--quiet",
        "--depth",
        "1",
        "--",
        url,
        join(shm, `${tag}-cpu-clone-${i}`),
      ],
      env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    };
  };
}

const CPU_CLONE = "the same clone, core.fsync=none, into tmpfs";

/**
 * `skills add` of `url` against the clone and the CPU-bound clone, sampled in turn; the
 * target holds against both, so neither a slow disk nor a fast one decides it.
 */
async function row(
  ctx: BenchContext,
  name: string,
  url: string,
  extra: string[],
  budget = 2.5,
): Promise<BenchRow> {
  const tag = name.replace(/\W+/g, "-");
  const shm = tmpfsDir(ctx.tmp);
  const [baseline, cpuBaseline, value] = await measureAlternately([
    cloneSpec(ctx, url, tag),
    cpuCloneSpec(shm, url, tag),
    (i) => ({
      cmd: ctx.cli.cmd,
      args: [...ctx.cli.args, "add", url, ...extra, "--yes"],
      env: { SKILLS_HOME: join(ctx.tmp, `${tag}-home-${i}`), GIT_CONFIG_GLOBAL: "/dev/null" },
    }),
  ], ctx.runs).finally(() => Deno.remove(shm, { recursive: true })) as [
    Measured,
    Measured,
    Measured,
  ];
  return {
    name,
    value,
    baselineName: "git clone --depth 1",
    baseline,
    cpuBaselineName: CPU_CLONE,
    cpuBaseline,
    target: `≤ ${budget}× baseline (both)`,
    pass: withinRatio(value, budget, baseline, cpuBaseline),
    note:
      "skills add = Deno start-up + direct read of the local repository (one git cat-file --batch; no clone) + validation + full audit + digest + locked registry write",
  };
}

/**
 * A repository laid out as anthropics/skills (bench/fixtures/public_collection.ts: 18
 * skills, 415 files, ~10 MiB), every skill added in one command.
 */
async function publicCollectionRepo(tmp: string): Promise<string> {
  const work = join(tmp, "add-bench-public");
  await writePublicCollection(work);
  await git(work, ["init", "--quiet"]);
  await git(work, ["add", "--all"]);
  await git(work, ["commit", "--quiet", "-m", "collection"]);
  const bare = join(tmp, "add-bench-public.git");
  await git(tmp, ["clone", "--quiet", "--bare", work, bare]);
  return `file://${bare}`;
}

/**
 * A bare repo of `count` small skills under skills/<name>/ (SKILL.md and one script), made
 * once a run: a second module asking for the same count in the same scratch folder (the
 * add and first-context rows both use 1,000) gets the one already made, where a second
 * `git commit` of the same files would fail with nothing to commit.
 */
export async function manyRepo(tmp: string, count: number): Promise<string> {
  const bare = join(tmp, `add-bench-many-${count}.git`);
  if (await Deno.stat(bare).then(() => true, () => false)) return `file://${bare}`;
  const work = join(tmp, `add-bench-many-${count}`);
  for (let i = 0; i < count; i++) {
    const name = `many-${String(i).padStart(4, "0")}`;
    const dir = join(work, "skills", name);
    await Deno.mkdir(join(dir, "scripts"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: Skill ${i} of a large collection, for the many-skills add benchmark.\n---\n# ${name}\n\nRun scripts/run.py.\n`,
    );
    await Deno.writeTextFile(join(dir, "scripts", "run.py"), `print("ok ${i}")\n`);
  }
  await git(work, ["init", "--quiet"]);
  await git(work, ["add", "--all"]);
  await git(work, ["commit", "--quiet", "-m", "many"]);
  await git(tmp, ["clone", "--quiet", "--bare", work, bare]);
  return `file://${bare}`;
}

/**
 * Every skill of a 1,000-skill repository in one command against every skill of a 100-skill
 * one: one lock, one journal and one registry write per command, so ≤ 12× (linear,
 * with room for the larger registry) and ≤ 4 s. Each sample installs into a fresh home.
 */
async function manyRow(ctx: BenchContext): Promise<BenchRow> {
  const hundred = await manyRepo(ctx.tmp, 100);
  const thousand = await manyRepo(ctx.tmp, 1000);
  const add = (url: string, tag: string) => (i: number) => ({
    cmd: ctx.cli.cmd,
    args: [...ctx.cli.args, "add", url, "--skill", "*", "--yes"],
    env: { SKILLS_HOME: join(ctx.tmp, `${tag}-home-${i}`), GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  const { baseline, value } = await measurePair(
    add(hundred, "many-100"),
    add(thousand, "many-1000"),
    Math.min(ctx.runs, 3),
  );
  return {
    name: "skills add --skill '*', 1,000 skills from one repository",
    value,
    baselineName: "100 skills from one repository",
    baseline,
    target: "≤ 12× baseline; ≤ 4 s",
    pass: value.medianMs <= 12 * baseline.medianMs && value.medianMs <= 4000,
    note: "one commit for every skill: one lock, one journal, one registry write",
  };
}

/**
 * What no Deno program that asks git anything can beat: `deno run` of a script that spawns
 * one `git rev-parse` of the repository, against the same clone. Informational: when this
 * floor is already above 2.5× the clone, so is every `skills add`.
 */
async function floorRow(ctx: BenchContext, url: string): Promise<BenchRow> {
  const script = join(ctx.tmp, "git-floor.js");
  await Deno.writeTextFile(
    script,
    `await new Deno.Command("git", { args: ["--git-dir=${
      url.slice("file://".length)
    }", "rev-parse", "HEAD"], stdout: "piped" }).output();\n`,
  );
  const { baseline, value } = await measurePair(
    cloneSpec(ctx, url, "floor"),
    { cmd: Deno.execPath(), args: ["run", "--quiet", "--allow-run=git", script] },
    ctx.runs,
  );
  return {
    name: "floor: deno start-up + one git process",
    value,
    baselineName: "git clone --depth 1",
    baseline,
    target: "informational: the least any Deno CLI calling git can take",
    pass: null,
  };
}

/**
 * What a Deno program doing only the install's I/O takes (bench/minimal_install.ts: the
 * same git reads, files written and hashed, an fsync'd registry; no validation, lock,
 * journal or staging). Informational: the room left between it and 2.5× the clone is what
 * everything that makes `skills add` safe, and loading its modules, must fit in.
 */
async function minimalRow(ctx: BenchContext, url: string): Promise<BenchRow> {
  const program = join(ctx.repoRoot, "bench", "minimal_install.ts");
  const { baseline, value } = await measurePair(
    cloneSpec(ctx, url, "minimal"),
    (i) => ({
      cmd: Deno.execPath(),
      args: [
        "run",
        "--quiet",
        "--allow-run=git",
        "--allow-read",
        "--allow-write",
        program,
        url.slice("file://".length),
        join(ctx.tmp, `minimal-home-${i}`),
      ],
    }),
    ctx.runs,
  );
  return {
    name: "floor: minimal install, no safety (single-skill repo)",
    value,
    baselineName: "git clone --depth 1",
    baseline,
    target: "informational: the install's I/O alone, in Deno",
    pass: null,
  };
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const single = await benchRepo(ctx.tmp, ctx.repoRoot);
  const collection = await collectionRepo(ctx.tmp);
  const publicCollection = await publicCollectionRepo(ctx.tmp);
  return [
    await row(ctx, "skills add (single-skill repo)", single, []),
    await row(ctx, "skills add (1 of 20 skills, 5 MiB repo)", collection, ["--skill", "coll-7"]),
    await row(
      ctx,
      `skills add --skill '*' of a collection laid out as anthropics/skills (${COLLECTION_SKILLS.length} skills, 415 files)`,
      publicCollection,
      ["--skill", "*"],
      1.5,
    ),
    await floorRow(ctx, single),
    await minimalRow(ctx, single),
    await manyRow(ctx),
  ];
}
