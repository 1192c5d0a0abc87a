/**
 * `deno task bench`: runs every module in bench/rows/ (each exports `rows(ctx)`), prints a
 * table with each figure, its baseline from the same run, the ratio and the target, and
 * writes bench/results.json (kept in the repo as the last measured figures).
 */

import { join } from "node:path";
import type { BenchRow, Measured } from "./lib.ts";
import { CLI_FLAGS } from "../tests/helpers/cli.ts";

export interface BenchContext {
  repoRoot: string;
  /**
   * Runs the CLI the way the compiled binary does: `src/main.ts` with the binary's flags,
   * modules loaded lazily per command (deno compile embeds the same module graph).
   */
  cli: { cmd: string; args: string[] };
  /** Runs the bundle `dist/skills.js` (its chunks in dist/bundle/, loaded on demand). */
  bundle: { cmd: string; args: string[] };
  /** Permission flags the compiled binary carries. */
  flags: string[];
  /** Deno's cache: commands run with a scratch HOME must still find the npm packages there. */
  denoDir: string;
  /** A scratch directory removed at the end. */
  tmp: string;
  runs: number;
}

const repoRoot = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
/** The binary's permission flags: one list, shared with the end-to-end tests. */
const flags = CLI_FLAGS;

function fmt(m: BenchRow["value"]): string {
  if (m === null) return "-";
  if ("tokens" in m) return `${m.tokens} tokens`;
  const rss = m.peakRssMiB === null ? "" : `, ${m.peakRssMiB} MiB`;
  return `${m.medianMs} ms${rss}`;
}

function ratio(row: BenchRow): string {
  if (!row.value || !row.baseline || "tokens" in row.value) return "-";
  return `${(row.value.medianMs / (row.baseline as Measured).medianMs).toFixed(2)}×`;
}

async function main() {
  const only = Deno.args[0];
  const tmp = await Deno.makeTempDir({ prefix: "skills-bench-" });
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
  const ctx: BenchContext = {
    repoRoot,
    cli: { cmd: Deno.execPath(), args: ["run", ...flags, join(repoRoot, "src", "main.ts")] },
    bundle: { cmd: Deno.execPath(), args: ["run", ...flags, join(repoRoot, "dist", "skills.js")] },
    flags,
    denoDir,
    tmp,
    runs: Number(Deno.env.get("BENCH_RUNS") ?? 7),
  };
  const modules = [];
  for await (const entry of Deno.readDir(join(repoRoot, "bench", "rows"))) {
    if (entry.isFile && entry.name.endsWith(".ts") && (!only || entry.name.includes(only))) {
      modules.push(entry.name);
    }
  }
  modules.sort();
  const rows: BenchRow[] = [];
  try {
    for (const name of modules) {
      const mod = await import(join(repoRoot, "bench", "rows", name));
      console.error(`bench: ${name} ...`);
      rows.push(...await mod.rows(ctx));
    }
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  const header = ["what", "value", "baseline", "ratio", "target", "ok"];
  const body = rows.map((r) => [
    r.name,
    fmt(r.value),
    r.baselineName ? `${r.baselineName}: ${fmt(r.baseline)}` : "-",
    ratio(r),
    r.target,
    r.pass === null ? "-" : r.pass ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const b of body) console.log(line(b));
  const result = {
    measured_at: new Date().toISOString(),
    machine: {
      os: Deno.build.os,
      arch: Deno.build.arch,
      cpus: navigator.hardwareConcurrency,
      deno: Deno.version.deno,
    },
    rows,
  };
  if (!only) {
    await Deno.writeTextFile(
      join(repoRoot, "bench", "results.json"),
      JSON.stringify(result, null, 2) + "\n",
    );
  }
  const failed = rows.filter((r) => r.pass === false);
  if (failed.length > 0) {
    console.log(`\n${failed.length} target(s) missed: ${failed.map((r) => r.name).join("; ")}`);
  }
}

if (import.meta.main) await main();
