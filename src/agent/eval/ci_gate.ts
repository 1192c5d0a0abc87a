/**
 * The CI gate (pure): thresholds on what an eval measured, a comparison with an earlier
 * result (`--against BENCHMARK.json --max-drop`), and the JUnit XML a CI system shows (one
 * testcase per eval and per query, and one for the gate).
 */

import type { Benchmark } from "./output_eval.ts";
import type { Split, TriggerMetrics } from "./stats.ts";
import type { TriggerReport } from "./trigger_eval.ts";

/** Exit statuses of `skills eval` (docs/reference.md and its --help say the same). */
export const EXIT_GATE_FAILED = 1;
export const EXIT_NOT_RUN = 3;

export interface GateOptions {
  minPassRate?: number | undefined;
  minDelta?: number | undefined;
  minRecall?: number | undefined;
  minPrecision?: number | undefined;
  /** Which queries the trigger thresholds read (default all). */
  split?: "all" | Split | undefined;
  /** The earlier result's pass rate (from `--against`), and how far it may fall. */
  against?: { passRate: number; file: string } | undefined;
  maxDrop?: number | undefined;
}

export interface GateResult {
  checked: string[];
  failures: string[];
  passed: boolean;
}

const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;

/** The pass rate a result file reports: a benchmark's with-skill mean, or a trigger report's. */
export function passRateOf(document: unknown, split: "all" | Split = "all"): number | undefined {
  // deno-lint-ignore no-explicit-any
  const d = document as Record<string, any> | undefined;
  const output = d?.run_summary?.with_skill?.pass_rate?.mean;
  if (typeof output === "number") return output;
  const trigger = d?.metrics?.[split]?.pass_rate;
  return typeof trigger === "number" ? trigger : undefined;
}

function check(result: GateResult, ok: boolean, text: string, failure: string): void {
  result.checked.push(text);
  if (!ok) result.failures.push(failure);
}

export function evaluateGate(
  options: GateOptions,
  outputs: Benchmark | undefined,
  triggers: TriggerReport | undefined,
): GateResult {
  const result: GateResult = { checked: [], failures: [], passed: true };
  if (outputs) {
    const rate = outputs.run_summary.with_skill.pass_rate.mean;
    const delta = outputs.run_summary.delta.pass_rate;
    if (options.minPassRate !== undefined) {
      check(
        result,
        rate >= options.minPassRate,
        `pass rate ≥ ${pct(options.minPassRate)}`,
        `pass rate with the skill ${pct(rate)} is below --min-pass-rate ${
          pct(options.minPassRate)
        }`,
      );
    }
    if (options.minDelta !== undefined) {
      check(
        result,
        delta >= options.minDelta,
        `delta ≥ ${pct(options.minDelta)}`,
        `delta ${pct(delta)} is below --min-delta ${pct(options.minDelta)}`,
      );
    }
  }
  const split = options.split ?? "all";
  if (triggers) {
    const metrics: TriggerMetrics = triggers.metrics[split];
    if (options.minRecall !== undefined) {
      check(
        result,
        metrics.recall >= options.minRecall,
        `recall (${split}) ≥ ${options.minRecall}`,
        `recall on ${split} queries ${metrics.recall} is below --min-recall ${options.minRecall}`,
      );
    }
    if (options.minPrecision !== undefined) {
      check(
        result,
        metrics.precision >= options.minPrecision,
        `precision (${split}) ≥ ${options.minPrecision}`,
        `precision on ${split} queries ${metrics.precision} is below --min-precision ${options.minPrecision}`,
      );
    }
  }
  if (options.against) {
    const now = outputs ? passRateOf(outputs) : passRateOf(triggers, split);
    const drop = options.against.passRate - (now ?? 0);
    const allowed = options.maxDrop ?? 0;
    check(
      result,
      drop <= allowed + 1e-9,
      `drop from ${options.against.file} ≤ ${pct(allowed)}`,
      `pass rate fell ${pct(drop)} from ${
        pct(options.against.passRate)
      } in ${options.against.file} ` +
        `(--max-drop ${pct(allowed)})`,
    );
  }
  result.passed = result.failures.length === 0;
  return result;
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
    // characters XML 1.0 cannot hold at all
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

interface Case {
  name: string;
  failure?: string;
}

function outputCases(benchmark: Benchmark): Case[] {
  const ids = [...new Set(benchmark.runs.map((r) => `${r.eval_id}\u0000${r.eval_name}`))];
  return ids.map((key) => {
    const [id, name] = key.split("\u0000") as [string, string];
    const runs = benchmark.runs.filter((r) =>
      String(r.eval_id) === id && r.configuration === "with_skill"
    );
    const failed = runs.flatMap((r) =>
      r.expectations.filter((e) => !e.passed).map((e) =>
        `run ${r.run_number}: ${e.text} — ${e.evidence}`
      )
    );
    return { name: `eval-${id}-${name}`, ...(failed.length ? { failure: failed.join("\n") } : {}) };
  });
}

function queryCases(report: TriggerReport): Case[] {
  return report.results.map((r) => ({
    name: r.query,
    ...(r.pass ? {} : {
      failure: `should_trigger=${r.should_trigger}, triggered ${r.triggers}/${r.runs} (${r.split})`,
    }),
  }));
}

/** One testsuite per kind of eval run, and the gate's own testcase. */
export function junitXml(
  skill: string,
  outputs: Benchmark | undefined,
  triggers: TriggerReport | undefined,
  gate: GateResult,
): string {
  const suites: { name: string; cases: Case[] }[] = [];
  if (outputs) suites.push({ name: `${skill} outputs`, cases: outputCases(outputs) });
  if (triggers) suites.push({ name: `${skill} triggers`, cases: queryCases(triggers) });
  suites.push({
    name: `${skill} gate`,
    cases: [{ name: "gate", ...(gate.passed ? {} : { failure: gate.failures.join("\n") }) }],
  });
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"];
  for (const suite of suites) {
    const failures = suite.cases.filter((c) => c.failure !== undefined).length;
    lines.push(
      `  <testsuite name="${
        xml(suite.name)
      }" tests="${suite.cases.length}" failures="${failures}">`,
    );
    for (const c of suite.cases) {
      const open = `    <testcase classname="${xml(suite.name)}" name="${xml(c.name)}"`;
      if (c.failure === undefined) lines.push(`${open}/>`);
      else {
        lines.push(
          `${open}>`,
          `      <failure message="failed">${xml(c.failure)}</failure>`,
          "    </testcase>",
        );
      }
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}
