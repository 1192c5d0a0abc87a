/**
 * The audit measured on labelled skills: the corpus the rules are tuned on
 * (tests/fixtures/audit_corpus/labelled.ts, with flows.ts) and the held-out set written
 * before the data-flow analysis and never tuned on (held_out.ts). A hostile sample is
 * caught by a critical or high finding; a benign one is flagged by one. Recall and precision
 * (caught / (caught + flagged)) per family and overall; prints the tables docs/reviewing.md
 * quotes. The held-out set is reported apart and held to a lower bar: it measures attacks the
 * rules did not see.
 */

import assert from "node:assert/strict";
import { auditSkill } from "../../../src/core/audit/engine.ts";
import { hostOwner } from "../../../src/core/policy/host_owners.ts";
import {
  type Family,
  LABELLED_CORPUS,
  type LabelledSample,
} from "../../fixtures/audit_corpus/labelled.ts";
import { HELD_OUT_CORPUS } from "../../fixtures/audit_corpus/held_out.ts";

const encoder = new TextEncoder();

function audit(files: Record<string, string>) {
  return auditSkill({
    files: Object.entries(files).map(([path, text]) => ({ path, bytes: encoder.encode(text) })),
    name: "sample",
  }, hostOwner);
}

interface Row {
  hostile: number;
  caught: number;
  benign: number;
  flagged: number;
}

interface Measured {
  byFamily: Map<Family, Row>;
  total: Row;
  missed: string[];
  benignCritical: string[];
  flaggedIds: string[];
}

function measure(corpus: readonly LabelledSample[]): Measured {
  const byFamily = new Map<Family, Row>();
  const total: Row = { hostile: 0, caught: 0, benign: 0, flagged: 0 };
  const out: Measured = { byFamily, total, missed: [], benignCritical: [], flaggedIds: [] };
  for (const sample of corpus) {
    const row = byFamily.get(sample.family) ?? { hostile: 0, caught: 0, benign: 0, flagged: 0 };
    byFamily.set(sample.family, row);
    const report = audit(sample.files);
    const serious = report.findings.filter((f) =>
      f.severity === "critical" || f.severity === "high"
    );
    for (const r of [row, total]) {
      if (sample.hostile) {
        r.hostile++;
        if (serious.length > 0) r.caught++;
      } else {
        r.benign++;
        if (serious.length > 0) r.flagged++;
      }
    }
    if (sample.hostile && serious.length === 0) out.missed.push(sample.id);
    if (!sample.hostile && serious.length > 0) {
      out.flaggedIds.push(`${sample.id}: ${serious.map((f) => `${f.rule}/${f.severity}`)}`);
      if (report.counts.critical > 0) out.benignCritical.push(sample.id);
    }
  }
  return out;
}

const recall = (r: Row) => r.hostile === 0 ? 1 : r.caught / r.hostile;
const precision = (r: Row) => r.caught + r.flagged === 0 ? 1 : r.caught / (r.caught + r.flagged);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function table(title: string, m: Measured): string {
  const lines = [
    title,
    "| family | hostile | caught | recall | benign | flagged | precision |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const row = (name: string, r: Row) =>
    `| ${name} | ${r.hostile} | ${r.caught} | ${pct(recall(r))} | ${r.benign} | ${r.flagged} | ${
      pct(precision(r))
    } |`;
  for (const [family, r] of [...m.byFamily].sort()) lines.push(row(family, r));
  lines.push(row("**overall**", m.total));
  lines.push(`missed: ${m.missed.join(" ") || "none"}`);
  lines.push(`benign flagged: ${m.flaggedIds.join("; ") || "none"}`);
  return lines.join("\n");
}

Deno.test("the labelled corpus: recall and precision >= 95% overall, recall >= 95% in every family, no benign critical", () => {
  const m = measure(LABELLED_CORPUS);
  console.log(table("labelled corpus (tuned on)", m));
  assert(m.total.hostile >= 110, `at least 110 hostile samples (${m.total.hostile})`);
  assert(m.total.benign >= 55, `at least 55 benign samples (${m.total.benign})`);
  assert(recall(m.total) >= 0.95, `overall recall ${pct(recall(m.total))}; missed ${m.missed}`);
  assert(precision(m.total) >= 0.95, `overall precision ${pct(precision(m.total))}`);
  for (const [family, r] of m.byFamily) {
    assert(recall(r) >= 0.95, `${family}: recall ${r.caught}/${r.hostile}; missed ${m.missed}`);
    assert(precision(r) >= 0.9, `${family}: precision ${pct(precision(r))}: ${m.flaggedIds}`);
  }
  assert.deepEqual(m.benignCritical, [], "benign samples refused");
});

Deno.test("the held-out set (never tuned on): reported apart, recall and precision >= 90%, no benign critical", () => {
  const m = measure(HELD_OUT_CORPUS);
  console.log(table("held-out set (written before the rules, not tuned on)", m));
  assert(m.total.hostile >= 35 && m.total.benign >= 20);
  assert(recall(m.total) >= 0.9, `held-out recall ${pct(recall(m.total))}; missed ${m.missed}`);
  assert(precision(m.total) >= 0.9, `held-out precision ${pct(precision(m.total))}`);
  assert.deepEqual(m.benignCritical, [], "benign held-out samples refused");
});

Deno.test("the data-flow families (environment, key files, assembled commands) are caught at critical", () => {
  const ids = (corpus: readonly LabelledSample[], family: Family) =>
    corpus.filter((s) => s.family === family && s.hostile);
  for (
    const family of ["env-exfiltration", "secret-file-exfiltration", "assembled-command"] as const
  ) {
    for (const sample of ids(LABELLED_CORPUS, family)) {
      assert.ok(audit(sample.files).counts.critical > 0, `${sample.id} is not critical`);
    }
  }
});
