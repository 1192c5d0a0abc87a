/**
 * How audit findings read on a terminal, shared by `skills audit` and the summaries of
 * `add`, `update` and `check`. Excerpts arrive escaped (core/audit/engine.ts), so nothing a skill
 * wrote can move the cursor or hide itself here.
 */

import type { AuditDelta, AuditReport, Finding, Severity } from "../../core/audit/engine.ts";
import { findingLabel } from "../../core/audit/file_findings.ts";
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

/** Past this many URLs, a list of them is told by host: what a reviewer can take in. */
const URLS_LISTED = 8;

/**
 * The endpoints as one line: every URL when they are few; else their hosts, most named first,
 * each with how many URLs name it (a document skill's XML namespace names run to dozens of URLs
 * on a few hosts). `--json` and `skills audit --verbose` keep every URL.
 */
export function endpointsText(endpoints: readonly string[]): string {
  if (endpoints.length <= URLS_LISTED) return endpoints.join(", ");
  const hosts = new Map<string, number>();
  for (const url of endpoints) {
    let host = url;
    try {
      host = new URL(url).host;
    } catch { /* listed as written */ }
    hosts.set(host, (hosts.get(host) ?? 0) + 1);
  }
  const byCount = [...hosts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  return `${plural(endpoints.length, "URL")} on ${plural(hosts.size, "host")}: ${
    byCount.map(([host, n]) => `${host} (${n})`).join(", ")
  }`;
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
  if (report.endpoints.length > 0) {
    lines.push(`  Endpoints:   ${endpointsText(report.endpoints)}`);
  }
  return lines.join("\n") + "\n";
}

/** What an update adds: new critical/high findings and new endpoints, one line each. */
export function auditDeltaLines(ctx: Pick<Context, "color">, delta: AuditDelta): string[] {
  return [
    ...delta.findings.map((f) =>
      `  ${paint(ctx, f.severity, `+ ${f.severity}`)} ${findingLabel(f)}: ${f.title}: ${f.excerpt}`
    ),
    ...(delta.endpoints.length > URLS_LISTED
      ? [`  + endpoints ${endpointsText(delta.endpoints)}`]
      : delta.endpoints.map((e) => `  + endpoint ${e}`)),
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
