/**
 * `deno task bench`: runs every module in bench/rows/ (each exports `rows(ctx)`), prints a
 * table with each figure, its baseline from the same run, the ratio and the target, and
 * writes bench/results.json (kept in the repo as the last measured figures).
 * `deno run -A bench/main.ts <filter>` runs the modules whose file name contains `filter`
 * and merges their rows into bench/results.json: every row those modules made before is
 * replaced, the others are kept, and each row carries the date it was measured.
 */

import { join } from "node:path";
import { type BenchRow, cpuModel, loadAverage, type Measured } from "./lib.ts";
import { BUNDLE_FLAGS, CLI_FLAGS } from "../tests/helpers/cli.ts";

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

function ratio(row: BenchRow, baseline = row.baseline): string {
  if (!row.value || !baseline || "tokens" in row.value) return "-";
  return `${(row.value.medianMs / (baseline as Measured).medianMs).toFixed(2)}×`;
}

/** The load while a row was sampled: its value's start and end, else its module's start. */
function loadOf(row: BenchRow): string {
  const v = row.value && "medianMs" in row.value ? row.value : undefined;
  if (v?.load !== undefined) {
    return v.loadEnd === undefined ? `${v.load}` : `${v.load}→${v.loadEnd}`;
  }
  return row.load_average === undefined ? "-" : `${row.load_average}`;
}

interface Results {
  measured_at: string;
  machine: Record<string, unknown>;
  rows: BenchRow[];
}

/**
 * The results of a partial run merged into the last ones: the rows of the modules that ran
 * (found by their module, or by name for rows written before rows named their module) are
 * replaced in place, new ones appended; `measured_at` stays the last full run's. A row
 * measured on another machine than the full run says so in its note.
 */
function merged(
  previous: Results,
  fresh: readonly BenchRow[],
  modules: readonly string[],
  existing: ReadonlySet<string>,
  machine: Record<string, unknown>,
): Results {
  const ran = new Set(modules);
  const names = new Set(fresh.map((r) => r.name));
  // A row of a module that ran, or of one since removed from bench/rows/, goes.
  const replaced = (row: BenchRow) =>
    row.module !== undefined
      ? ran.has(row.module) || !existing.has(row.module)
      : names.has(row.name);
  const sameMachine = JSON.stringify(previous.machine) === JSON.stringify(machine);
  const stamped = fresh.map((row) =>
    sameMachine
      ? row
      : { ...row, note: `${row.note ? `${row.note}; ` : ""}measured on ${JSON.stringify(machine)}` }
  );
  const out: BenchRow[] = [];
  let inserted = false;
  for (const row of previous.rows) {
    if (!replaced(row)) out.push(row);
    else if (!inserted) {
      out.push(...stamped);
      inserted = true;
    }
  }
  if (!inserted) out.push(...stamped);
  return { ...previous, rows: out };
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
    // As docs/setup.md documents it (with --no-config).
    bundle: {
      cmd: Deno.execPath(),
      args: ["run", ...BUNDLE_FLAGS, join(repoRoot, "dist", "skills.js")],
    },
    flags,
    denoDir,
    tmp,
    runs: Number(Deno.env.get("BENCH_RUNS") ?? 7),
  };
  const all = new Set<string>();
  for await (const entry of Deno.readDir(join(repoRoot, "bench", "rows"))) {
    if (entry.isFile && entry.name.endsWith(".ts")) all.add(entry.name);
  }
  const modules = [...all].filter((name) => !only || name.includes(only)).sort();
  const rows: BenchRow[] = [];
  const cpu = cpuModel();
  const startedAt = new Date().toISOString();
  try {
    for (const name of modules) {
      const mod = await import(join(repoRoot, "bench", "rows", name));
      console.error(`bench: ${name} ...`);
      const measuredAt = new Date().toISOString();
      const load = loadAverage();
      for (const row of await mod.rows(ctx) as BenchRow[]) {
        const sampled = row.value && "medianMs" in row.value ? row.value.load : undefined;
        const at = sampled ?? load;
        rows.push({
          ...row,
          measured_at: measuredAt,
          ...(at === undefined ? {} : { load_average: at }),
          cpu,
          module: name,
        });
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  console.log(
    `CPU: ${cpu} (${navigator.hardwareConcurrency} cores); load at the end: ${
      loadAverage() ?? "-"
    }`,
  );
  const header = ["what", "value", "baseline (same run)", "ratio", "target", "ok", "load"];
  const body = rows.map((r) => [
    r.name,
    fmt(r.value),
    (r.baselineName ? `${r.baselineName}: ${fmt(r.baseline)}` : "-") +
    (r.cpuBaselineName ? `; ${r.cpuBaselineName}: ${fmt(r.cpuBaseline ?? null)}` : ""),
    ratio(r) + (r.cpuBaseline ? ` / ${ratio(r, r.cpuBaseline)}` : ""),
    r.target,
    r.pass === null ? "-" : r.pass ? "yes" : "NO",
    loadOf(r),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const b of body) console.log(line(b));
  const machine = {
    cpu,
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpus: navigator.hardwareConcurrency,
    deno: Deno.version.deno,
  };
  const resultsPath = join(repoRoot, "bench", "results.json");
  const result = only
    ? merged(JSON.parse(await Deno.readTextFile(resultsPath)), rows, modules, all, machine)
    : { measured_at: startedAt, machine, rows };
  await Deno.writeTextFile(resultsPath, JSON.stringify(result, null, 2) + "\n");
  const failed = rows.filter((r) => r.pass === false);
  if (failed.length > 0) {
    console.log(`\n${failed.length} target(s) missed: ${failed.map((r) => r.name).join("; ")}`);
  }
}

if (import.meta.main) await main();
