/**
 * `skills list --json` (issue 26's targets):
 * - 20 installed skills: ≤ 150 ms;
 * - 1,000 installed, warm (the listing cache in place): ≤ 2.5× the 20-skill time, ≤ 120 MiB;
 * - 1,000 installed, cold (the listing cache removed before each sample): ≤ 0.7× `openskills
 *   list` on the same skills. openskills 1.5.0 is installed from npm into bench/.cache/ on
 *   first use and run with Node under a clean environment (this workplace's
 *   NODE_EXTRA_CA_CERTS slows every Node start); it lists `$HOME/.agent/skills`, which is
 *   where the skills live ($SKILLS_HOME's default). Where npm cannot install it, the row
 *   compares with the figure recorded in issue 26 (openskills 184 ms on the build machine)
 *   and says so.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measure, measureAlternately, type Measured } from "../lib.ts";
import { withListingSummary } from "../../src/runtime/catalog/cache.ts";

const OPENSKILLS = "openskills@1.5.0";
/** openskills list of 1,000 skills as issue 26 recorded it, for machines without npm. */
const RECORDED_OPENSKILLS_MS = 184;

/**
 * Writes `count` small installed skills and their registry entries straight to disk, the
 * entries as install records them (with their listing summary).
 */
export async function populateHome(home: string, count: number): Promise<void> {
  await Deno.mkdir(home, { recursive: true });
  const skills = [];
  for (let i = 0; i < count; i++) {
    const name = `bench-skill-${String(i).padStart(4, "0")}`;
    const dir = join(home, name);
    await Deno.mkdir(join(dir, "scripts"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: Benchmark skill number ${i} that does one small thing well.\nversion: 1.0.${i}\npermissions:\n  env: [BENCH_*]\n---\n\n# ${name}\n\nRun \`scripts/run.py --help\` first.\n`,
    );
    await Deno.writeTextFile(join(dir, "scripts", "run.py"), "print('ok')\n");
    // Installed skills are not edited seconds before a listing: date them like real installs.
    const past = new Date(Date.now() - 3600_000);
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
    // As install records it: with the listing summary (runtime/catalog/cache.ts).
    skills.push(
      await withListingSummary({
        name,
        name_canonical: name,
        source: { type: "git", url: `file:///repos/${name}.git`, subpath: "" },
        commit_sha: "0123456789abcdef0123456789abcdef01234567",
        branch: "main",
        tag: null,
        ref: null,
        installed_path: dir,
        trusted: true,
        trusted_digest: `sha256:${"0".repeat(64)}`,
        installed_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z",
      }, home),
    );
  }
  await Deno.writeTextFile(
    join(home, "registry.json"),
    JSON.stringify({ version: 1, skills }, null, 2),
  );
}

/** openskills' CLI, installed once into bench/.cache; undefined when npm cannot get it. */
async function openskills(ctx: BenchContext): Promise<string | undefined> {
  const prefix = join(ctx.repoRoot, "bench", ".cache", OPENSKILLS.replace("@", "-"));
  const cli = join(prefix, "node_modules", "openskills", "dist", "cli.js");
  const present = () => Deno.stat(cli).then(() => true, () => false);
  if (await present()) return cli;
  try {
    await Deno.mkdir(prefix, { recursive: true });
    const out = await new Deno.Command("npm", {
      args: ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", OPENSKILLS],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) console.error(`bench: list: npm: ${new TextDecoder().decode(out.stderr)}`);
  } catch (error) {
    console.error(`bench: list: npm: ${(error as Error).message}`);
  }
  return await present() ? cli : undefined;
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const smallUser = join(ctx.tmp, "list-user-20");
  const largeUser = join(ctx.tmp, "list-user-1000");
  const small = join(smallUser, ".agent", "skills");
  const large = join(largeUser, ".agent", "skills");
  await populateHome(small, 20);
  await populateHome(large, 1000);
  // Change times cannot be dated back like mtimes (that is what makes them a safe key for
  // the digest cache: runtime/trust/file_hashes.ts), and a file changed under 2 s ago is
  // always re-hashed: let them settle, as they have for any install that is not brand new.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const list = (user: string, home: string, cold = false) => () => {
    // Cold: the listing cache removed, as after an upgrade of skills or a cleared cache.
    if (cold) Deno.removeSync(join(home, ".cache", "catalog.json"));
    return {
      cmd: ctx.cli.cmd,
      args: [...ctx.cli.args, "list", "--json"],
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: user,
        DENO_DIR: ctx.denoDir,
        SKILLS_HOME: home,
      },
    };
  };
  const [twenty, thousand] = await measureAlternately(
    [list(smallUser, small), list(largeUser, large)],
    ctx.runs,
  );

  const peer = await openskills(ctx);
  let baseline: Measured;
  let cold: Measured;
  let baselineName: string;
  if (peer !== undefined) {
    const node = {
      cmd: "env",
      args: ["-i", `PATH=${Deno.env.get("PATH") ?? ""}`, `HOME=${largeUser}`, "node", peer, "list"],
      cwd: ctx.tmp,
    };
    [baseline, cold] = await measureAlternately([node, list(largeUser, large, true)], ctx.runs) as [
      Measured,
      Measured,
    ];
    baselineName = `openskills list (${OPENSKILLS}, Node ${await nodeVersion()})`;
  } else {
    cold = await measure(list(largeUser, large, true), ctx.runs);
    baseline = {
      medianMs: RECORDED_OPENSKILLS_MS,
      minMs: RECORDED_OPENSKILLS_MS,
      maxMs: RECORDED_OPENSKILLS_MS,
      peakRssMiB: null,
      runs: 0,
    };
    baselineName = "openskills list as recorded in issue 26 (npm could not install it here)";
  }
  return [
    {
      name: "skills list --json, 20 installed skills",
      value: twenty!,
      baselineName: null,
      baseline: null,
      target: "≤ 150 ms",
      pass: twenty!.medianMs <= 150,
    },
    {
      name: "skills list --json, 1,000 installed skills (warm)",
      value: thousand!,
      baselineName: "20 skills",
      baseline: twenty!,
      target: "≤ 2.5× baseline; ≤ 120 MiB",
      pass: thousand!.medianMs <= 2.5 * twenty!.medianMs &&
        (thousand!.peakRssMiB === null || thousand!.peakRssMiB <= 120),
    },
    {
      name: "skills list --json, 1,000 installed skills (cold: listing cache removed)",
      value: cold,
      baselineName,
      baseline,
      target: "≤ 0.7× baseline",
      pass: cold.medianMs <= 0.7 * baseline.medianMs,
      note: "openskills reads each SKILL.md and prints names and descriptions; skills list also " +
        "validates each manifest and tells whether each skill may run (digest state)",
    },
  ];
}

async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output()
    .catch(() => undefined);
  return out === undefined ? "?" : new TextDecoder().decode(out.stdout).trim().replace(/^v/, "");
}
