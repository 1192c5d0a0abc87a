/**
 * The audit measured on the labelled corpus of tests/fixtures/audit_corpus/labelled.ts:
 * recall per family (a hostile sample is caught by a critical or high finding), false
 * positives on benign look-alikes at critical and at high. Prints the table docs/reviewing.md quotes.
 */

import assert from "node:assert/strict";
import { auditSkill } from "../../src/core/audit/audit.ts";
import { type Family, LABELLED_CORPUS } from "../fixtures/audit_corpus/labelled.ts";

const encoder = new TextEncoder();

function audit(files: Record<string, string>) {
  return auditSkill({
    files: Object.entries(files).map(([path, text]) => ({ path, bytes: encoder.encode(text) })),
    name: "sample",
  });
}

Deno.test("the labelled corpus: hostile recall >= 90% overall and per family, no benign critical, <= 5% benign high", () => {
  const byFamily = new Map<
    Family,
    { hostile: number; caught: number; benign: number; flagged: number }
  >();
  const missed: string[] = [];
  const benignCritical: string[] = [];
  const benignHigh: string[] = [];
  for (const sample of LABELLED_CORPUS) {
    const row = byFamily.get(sample.family) ?? { hostile: 0, caught: 0, benign: 0, flagged: 0 };
    byFamily.set(sample.family, row);
    const report = audit(sample.files);
    const serious = report.findings.filter((f) =>
      f.severity === "critical" || f.severity === "high"
    );
    if (sample.hostile) {
      row.hostile++;
      if (serious.length > 0) row.caught++;
      else missed.push(sample.id);
    } else {
      row.benign++;
      if (serious.length > 0) row.flagged++;
      if (report.counts.critical > 0) {
        benignCritical.push(`${sample.id}: ${serious.map((f) => f.rule)}`);
      } else if (report.counts.high > 0) {
        benignHigh.push(`${sample.id}: ${serious.map((f) => f.rule)}`);
      }
    }
  }
  const hostile = LABELLED_CORPUS.filter((s) => s.hostile).length;
  const benign = LABELLED_CORPUS.length - hostile;
  const caught = [...byFamily.values()].reduce((sum, r) => sum + r.caught, 0);
  const flagged = [...byFamily.values()].reduce((sum, r) => sum + r.flagged, 0);
  const lines = ["family               hostile caught recall  benign flagged precision"];
  for (const [family, r] of [...byFamily].sort()) {
    const precision = r.caught + r.flagged === 0 ? 1 : r.caught / (r.caught + r.flagged);
    lines.push(
      `${family.padEnd(20)} ${String(r.hostile).padStart(7)} ${String(r.caught).padStart(6)} ${
        (100 * r.caught / Math.max(1, r.hostile)).toFixed(0).padStart(5)
      }%  ${String(r.benign).padStart(6)} ${String(r.flagged).padStart(7)} ${
        (100 * precision).toFixed(0).padStart(8)
      }%`,
    );
  }
  lines.push(
    `overall: ${caught}/${hostile} hostile caught (${(100 * caught / hostile).toFixed(1)}%), ` +
      `precision ${(100 * caught / (caught + flagged)).toFixed(1)}%, ` +
      `benign ${benign}: critical ${benignCritical.length}, high ${benignHigh.length} ` +
      `(${(100 * benignHigh.length / benign).toFixed(1)}%)`,
  );
  console.log(lines.join("\n"));
  assert(hostile >= 60, `at least 60 hostile samples (${hostile})`);
  assert(caught / hostile >= 0.9, `overall recall ${caught}/${hostile}; missed ${missed}`);
  for (const [family, r] of byFamily) {
    if (r.hostile === 0) continue;
    assert(
      r.caught / r.hostile >= 0.9,
      `${family}: recall ${r.caught}/${r.hostile}; missed ${missed}`,
    );
  }
  assert(benignCritical.length === 0, `benign samples refused: ${benignCritical.join("; ")}`);
  console.log(benignHigh.join("\n"));
  assert(benignHigh.length / benign <= 0.05, `benign high: ${benignHigh.join("; ")}`);
});
