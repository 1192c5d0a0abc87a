/**
 * docs/performance.md's table, made from `bench/results.json` (the one source of truth):
 * `deno run --allow-read --allow-write bench/table.ts` rewrites the table between the
 * `<!-- bench:start -->` and `<!-- bench:end -->` markers; tests/bench_table_test.ts checks
 * that docs/performance.md holds exactly what this makes from the committed results.
 */

import type { BenchRow, Measured } from "./lib.ts";

export const START = "<!-- bench:start -->";
export const END = "<!-- bench:end -->";

interface Results {
  measured_at: string;
  machine: { cpu?: string; os: string; arch: string; cpus: number; deno: string };
  rows: BenchRow[];
}

function value(v: BenchRow["value"]): string {
  if (v === null) return "—";
  if ("tokens" in v) return `${v.tokens} tokens`;
  const m = v as Measured;
  return `${Math.round(m.medianMs)} ms${
    m.peakRssMiB === null ? "" : `, ${Math.round(m.peakRssMiB)} MiB`
  }`;
}

function against(row: BenchRow, name: string, base: Measured): string {
  const v = row.value;
  const ratio = v !== null && !("tokens" in v)
    ? ` (${(v.medianMs / base.medianMs).toFixed(2)}×)`
    : "";
  return `${name}: ${Math.round(base.medianMs)} ms${ratio}`;
}

/** The baseline and, for a disk-bound one, the CPU-bound baseline measured beside it. */
function baseline(row: BenchRow): string {
  if (row.baselineName === null || row.baseline === null) return "—";
  const first = against(row, row.baselineName, row.baseline);
  return row.cpuBaselineName && row.cpuBaseline
    ? `${first}; ${against(row, row.cpuBaselineName, row.cpuBaseline)}`
    : first;
}

/**
 * The Markdown of the section between the markers (a sentence of when and where, the table).
 * Rows refreshed alone (`bench/main.ts <filter>`) are dated in their own column, so a figure
 * never passes for the last full run's when it is not.
 */
export function performanceTable(results: Results): string {
  const { machine } = results;
  const full = results.measured_at.slice(0, 10);
  const when = (row: BenchRow) =>
    (row.measured_at?.slice(0, 10) ?? full) +
    (row.load_average === undefined ? "" : ` (load ${row.load_average.toFixed(1)})`);
  const lines = [
    `Last full run: ${full}, ${machine.os}/${machine.arch}, ` +
    `${machine.cpus} cores, Deno ${machine.deno} (from \`bench/results.json\`).`,
    "",
    "A row's date is when it was measured with its baseline (rows can be refreshed alone).",
    "",
    "CPU: the model name in `/proc/cpuinfo` where the row was measured (compare ratios only).",
    "",
    "Beside the date: the 1-minute load average when the row's sampling started.",
    "",
    "| what | measured | baseline (same run) | target | met | CPU | date |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...results.rows.map((row) =>
      `| ${row.name.replaceAll("|", "\\|")} | ${value(row.value)} | ${baseline(row)} | ${
        row.target.replaceAll("|", "\\|")
      } | ${row.pass === null ? "—" : row.pass ? "✓" : "✗"} | ${row.cpu ?? "not recorded"} | ${
        when(row)
      } |`
    ),
  ];
  return lines.join("\n");
}

/** The document with the section between the markers replaced. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/performance.md lacks ${START} … ${END}`);
  return `${readme.slice(0, start + START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url);
  const results = JSON.parse(await Deno.readTextFile(new URL("bench/results.json", root)));
  const readmeUrl = new URL("docs/performance.md", root);
  const readme = await Deno.readTextFile(readmeUrl);
  await Deno.writeTextFile(readmeUrl, withTable(readme, performanceTable(results)));
}
