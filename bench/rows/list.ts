/** `skills list --json` with 20 and 1,000 installed skills (targets: ≤ 150 ms; ≤ 3× and ≤ 120 MiB). */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measure } from "../lib.ts";

/** Writes `count` small installed skills and their registry entries straight to disk. */
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
    skills.push({
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
    });
  }
  await Deno.writeTextFile(
    join(home, "registry.json"),
    JSON.stringify({ version: 1, skills }, null, 2),
  );
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const small = join(ctx.tmp, "home-20");
  const large = join(ctx.tmp, "home-1000");
  await populateHome(small, 20);
  await populateHome(large, 1000);
  // Change times cannot be dated back like mtimes (that is what makes them a safe key for
  // the digest cache: runtime/trust/file_hashes.ts), and a file changed under 2 s ago is
  // always re-hashed: let them settle, as they have for any install that is not brand new.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const run = (home: string) =>
    measure({
      cmd: ctx.cli.cmd,
      args: [...ctx.cli.args, "list", "--json"],
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: ctx.tmp,
        DENO_DIR: ctx.denoDir,
        SKILLS_HOME: home,
      },
    }, ctx.runs);
  const twenty = await run(small);
  const thousand = await run(large);
  return [
    {
      name: "skills list --json, 20 installed skills",
      value: twenty,
      baselineName: null,
      baseline: null,
      target: "≤ 150 ms",
      pass: twenty.medianMs <= 150,
    },
    {
      name: "skills list --json, 1,000 installed skills",
      value: thousand,
      baselineName: "20 skills",
      baseline: twenty,
      target: "≤ 3× the 20-skill time; ≤ 120 MiB",
      pass: thousand.medianMs <= 3 * twenty.medianMs &&
        (thousand.peakRssMiB === null || thousand.peakRssMiB <= 120),
    },
  ];
}
