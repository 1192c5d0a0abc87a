/**
 * What `skills eval` prints: the progress line on a terminal (stderr), the table of an
 * output eval (pass rate with and without the skill, delta, tokens, seconds), the trigger
 * report (precision, recall, F1 per split, the failing queries) and the gate's verdict.
 */

import type { Context } from "../../core/io.ts";
import type { Benchmark } from "../../agent/eval/output_eval.ts";
import type { TriggerReport } from "../../agent/eval/trigger_eval.ts";
import type { GateResult } from "../../agent/eval/ci_gate.ts";
import type { Progress } from "../../agent/eval/pool.ts";
import type { Improvement } from "../../agent/eval/improve.ts";
import { inert } from "../../core/terminal_text.ts";
import { style, table } from "./render.ts";

const pct = (n: number) => `${Math.round(n * 100)}%`;
const signed = (n: number, text: string) => (n > 0 ? `+${text}` : text);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** Progress on stderr, rewritten in place; nothing when stderr is not a terminal. */
export function progressLine(ctx: Context, what: string): {
  update(progress: Progress): void;
  done(): void;
} {
  let shown = false;
  return {
    update(p) {
      if (!ctx.isTty) return;
      const eta = p.etaMs === undefined ? "" : ` · ETA ${seconds(p.etaMs)}`;
      ctx.stderr.write(`\r\x1b[2K${what} ${p.done}/${p.total} · ${seconds(p.elapsedMs)}${eta}`);
      shown = true;
    },
    done() {
      if (shown) ctx.stderr.write("\r\x1b[2K");
    },
  };
}

function meanOf(benchmark: Benchmark, id: string, configuration: string): number {
  const runs = benchmark.runs.filter((r) =>
    String(r.eval_id) === id && r.configuration === configuration
  );
  return runs.reduce((n, r) => n + r.result.pass_rate, 0) / Math.max(1, runs.length);
}

export function renderBenchmark(benchmark: Benchmark, written: string, color: boolean): string {
  const s = style(color);
  const baselineName = benchmark.run_summary.old_skill ? "old_skill" : "without_skill";
  const ids = [...new Map(benchmark.runs.map((r) => [String(r.eval_id), r.eval_name]))];
  const rows = ids.map(([id, name]) => {
    const withSkill = meanOf(benchmark, id, "with_skill");
    const without = meanOf(benchmark, id, baselineName);
    return [
      `eval-${id}-${name}`,
      pct(withSkill),
      pct(without),
      signed(withSkill - without, pct(withSkill - without)),
    ];
  });
  const { with_skill: w, delta } = benchmark.run_summary;
  const o = benchmark.run_summary.old_skill ?? benchmark.run_summary.without_skill!;
  const sd = (stat: { mean: number; stddev: number }) => `${pct(stat.mean)} ± ${pct(stat.stddev)}`;
  rows.push(
    [
      "pass rate (mean ± sd)",
      sd(w.pass_rate),
      sd(o.pass_rate),
      signed(delta.pass_rate, pct(delta.pass_rate)),
    ],
    [
      "tokens (mean)",
      String(Math.round(w.tokens.mean)),
      String(Math.round(o.tokens.mean)),
      signed(delta.tokens, String(Math.round(delta.tokens))),
    ],
    [
      "seconds (mean)",
      w.time_seconds.mean.toFixed(1),
      o.time_seconds.mean.toFixed(1),
      signed(delta.time_seconds, delta.time_seconds.toFixed(1)),
    ],
  );
  const header = baselineName === "old_skill" ? "old skill" : "without";
  return table(["eval", "with skill", header, "delta"], rows) +
    s.dim(`results: ${inert(written)}\n`);
}

export function renderTriggers(report: TriggerReport, written: string, color: boolean): string {
  const s = style(color);
  const rows = (["all", "train", "validation"] as const).map((split) => {
    const m = report.metrics[split];
    return [
      split,
      String(m.queries),
      `${m.passed}/${m.queries}`,
      m.precision.toFixed(2),
      m.recall.toFixed(2),
      m.f1.toFixed(2),
    ];
  });
  let out = table(["queries", "count", "passed", "precision", "recall", "f1"], rows);
  const failing = report.results.filter((r) => !r.pass);
  if (failing.length > 0) {
    out += `\nfailing queries (${failing.length}):\n`;
    for (const r of failing) {
      const expected = r.should_trigger ? "should trigger" : "should not trigger";
      out += `  ${s.red("✗")} ${
        inert(r.query)
      }  (${expected}; ${r.triggers}/${r.runs}, ${r.split})\n`;
    }
  }
  return out + s.dim(`results: ${inert(written)}\n`);
}

export function renderGate(gate: GateResult, color: boolean): string {
  if (gate.checked.length === 0) return "";
  const s = style(color);
  if (gate.passed) return `${s.green("gate passed")}: ${gate.checked.join(", ")}\n`;
  return gate.failures.map((f) => `${s.red("gate failed")}: ${f}\n`).join("");
}

export function renderImprovement(improvement: Improvement, color: boolean): string {
  const s = style(color);
  const passed = (m: { passed: number; queries: number }) => `${m.passed}/${m.queries}`;
  const rows = improvement.iterations.map((it) => [
    String(it.iteration),
    passed(it.train),
    passed(it.validation),
    `${it.description.length}`,
    it.description.length > 60 ? `${it.description.slice(0, 57)}…` : it.description,
  ]);
  const { best } = improvement;
  return table(["iteration", "train", "validation", "chars", "description"], rows) +
    `\n${s.bold(`best: iteration ${best.iteration}`)} (validation ${passed(best.validation)}, ` +
    `train ${passed(best.train)})\n${inert(best.description)}\n` +
    s.dim(
      "Nothing was written: put this description in SKILL.md yourself, then run --triggers again.\n",
    );
}
