/**
 * How audit findings read on a terminal, shared by `skills audit` and the summaries of
 * `add`, `update` and `check`. Excerpts arrive escaped (core/audit/engine.ts), so nothing a skill
 * wrote can move the cursor or hide itself here.
 */

import type { AuditDelta, AuditReport, Finding, Severity } from "../../core/audit/engine.ts";
import { findingLabel } from "../../core/audit/engine.ts";
import type { Context } from "../../core/io.ts";
import { style } from "./render.ts";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `1 critical, 2 high, 0 medium; 3 endpoints`. */
export function countsLine(report: AuditReport): string {
  const c = report.counts;
  return `${c.critical} critical, ${c.high} high, ${c.medium} medium; ${
    plural(report.endpoints.length, "endpoint")
  }`;
}

function paint(ctx: Pick<Context, "color">, severity: Severity, text: string): string {
  const s = style(ctx.color);
  return severity === "critical" || severity === "high"
    ? s.red(text)
    : severity === "medium"
    ? s.yellow(text)
    : text;
}

/** Two lines per finding: `SEVERITY rule file:line`, then title and the matched text. */
export function findingLines(
  ctx: Pick<Context, "color">,
  f: Finding,
  indent = "  ",
  explain = false,
): string[] {
  const lines = [
    `${indent}${paint(ctx, f.severity, f.severity.toUpperCase().padEnd(8))} ${findingLabel(f)}`,
    `${indent}         ${f.title}: ${f.excerpt}`,
  ];
  if (explain) lines.push(`${indent}         ${style(ctx.color).dim(f.explanation)}`);
  return lines;
}

/**
 * The audit part of an install summary: counts, every critical, high and medium finding,
 * and the endpoints (where data can go).
 */
export function auditSummary(ctx: Pick<Context, "color">, report: AuditReport): string {
  const lines = [`  Audit:       ${countsLine(report)}`];
  for (const f of report.findings.filter((f) => f.severity !== "info")) {
    lines.push(...findingLines(ctx, f, "    "));
  }
  if (report.endpoints.length > 0) lines.push(`  Endpoints:   ${report.endpoints.join(", ")}`);
  return lines.join("\n") + "\n";
}

/** What an update adds: new critical/high findings and new endpoints, one line each. */
export function auditDeltaLines(ctx: Pick<Context, "color">, delta: AuditDelta): string[] {
  return [
    ...delta.findings.map((f) =>
      `  ${paint(ctx, f.severity, `+ ${f.severity}`)} ${findingLabel(f)}: ${f.title}: ${f.excerpt}`
    ),
    ...delta.endpoints.map((e) => `  + endpoint ${e}`),
  ];
}

/** JSON of a finding (what `--json` prints; the same fields as the report). */
export function findingJson(f: Finding) {
  return {
    rule: f.rule,
    ast: f.ast,
    severity: f.severity,
    title: f.title,
    file: f.file,
    line: f.line,
    excerpt: f.excerpt,
    explanation: f.explanation,
  };
}
