/**
 * `skills audit --format sarif`: the findings as one SARIF 2.1.0 log, so CI can upload them
 * to code scanning (GitHub's upload-sarif action). Rules carry a `security-severity`, which
 * code scanning turns into its critical/high/medium/low levels.
 */

import { AUDIT_RULES, type Finding, type Severity } from "./audit.ts";

/** One audited skill: where its files are, as URIs relative to the scan root or absolute. */
interface SarifTarget {
  /** Prefix for the skill's file paths: `skills/pdf/` (relative) or `file:///abs/pdf/`. */
  uriPrefix: string;
  findings: readonly Finding[];
}

const LEVEL: Record<Severity, "error" | "warning" | "note"> = {
  critical: "error",
  high: "error",
  medium: "warning",
  info: "note",
};

/** GitHub maps ≥ 9.0 to critical, 7.0–8.9 high, 4.0–6.9 medium, below that low. */
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: "9.5",
  high: "8.0",
  medium: "5.0",
  info: "1.0",
};

const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** Percent-encodes each path segment (spaces, `#`, `%` and non-ASCII in file names). */
function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export function renderSarif(targets: readonly SarifTarget[], toolVersion: string): unknown {
  const ruleIndex = new Map(AUDIT_RULES.map((r, i) => [r.id, i]));
  const results = targets.flatMap((target) =>
    target.findings.map((f) => {
      const relative = !target.uriPrefix.startsWith("file://");
      return {
        ruleId: f.rule,
        ruleIndex: ruleIndex.get(f.rule),
        level: LEVEL[f.severity],
        message: { text: `${f.title}: ${f.excerpt}` },
        locations: [{
          physicalLocation: {
            artifactLocation: relative
              ? { uri: encodePath(target.uriPrefix + f.file), uriBaseId: "%SRCROOT%" }
              : { uri: target.uriPrefix + encodePath(f.file) },
            region: { startLine: f.line, snippet: { text: f.excerpt } },
          },
        }],
        partialFingerprints: {
          "skillsAudit/v1": `${f.rule}:${target.uriPrefix}${f.file}:${f.excerpt}`,
        },
        properties: { severity: f.severity },
      };
    })
  );
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [{
      tool: {
        driver: {
          name: "skills audit",
          version: toolVersion,
          rules: AUDIT_RULES.map((r) => ({
            id: r.id,
            name: r.id.split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(""),
            shortDescription: { text: r.title },
            fullDescription: { text: r.explanation },
            help: { text: r.explanation },
            defaultConfiguration: { level: LEVEL[r.severity] },
            properties: {
              "security-severity": SECURITY_SEVERITY[r.severity],
              tags: ["security", "agent-skills"],
              severity: r.severity,
            },
          })),
        },
      },
      columnKind: "unicodeCodePoints",
      results,
    }],
  };
}
