/**
 * `skills audit --format sarif`: the findings as one SARIF 2.1.0 log, so CI can upload them
 * to code scanning (GitHub's upload-sarif action). Rules carry a `security-severity`, which
 * code scanning turns into its critical/high/medium/low levels, and relate to their OWASP
 * Agentic Skills Top 10 category, which the log carries as a taxonomy (`runs[].taxonomies`,
 * each rule's `relationships`), so that findings can be grouped by AST01…AST10.
 */

import { AUDIT_RULES, type Finding, type Severity } from "./engine.ts";
import { AST_CATEGORIES, AST_TAXONOMY } from "./owasp_ast.ts";

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

/** The taxonomy component: every AST category, whether a rule of ours detects it or not. */
function astTaxonomy() {
  return {
    name: AST_TAXONOMY.name,
    organization: AST_TAXONOMY.organization,
    version: AST_TAXONOMY.version,
    informationUri: AST_TAXONOMY.informationUri,
    isComprehensive: true,
    shortDescription: { text: "Ten security risks of agent skills" },
    taxa: AST_CATEGORIES.map((c) => ({
      id: c.id,
      name: c.name,
      shortDescription: { text: c.name },
      fullDescription: { text: c.description },
    })),
  };
}

const TAXONOMY_REF = { name: AST_TAXONOMY.name, index: 0 };

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
        properties: { severity: f.severity, ast: f.ast },
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
          supportedTaxonomies: [TAXONOMY_REF],
          rules: AUDIT_RULES.map((r) => ({
            id: r.id,
            name: r.id.split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(""),
            shortDescription: { text: r.title },
            fullDescription: { text: r.explanation },
            help: { text: r.explanation },
            defaultConfiguration: { level: LEVEL[r.severity] },
            relationships: [{
              target: {
                id: r.ast,
                index: AST_CATEGORIES.findIndex((c) => c.id === r.ast),
                toolComponent: TAXONOMY_REF,
              },
              kinds: ["relevant"],
            }],
            properties: {
              "security-severity": SECURITY_SEVERITY[r.severity],
              tags: ["security", "agent-skills", `owasp-${r.ast.toLowerCase()}`],
              severity: r.severity,
              ast: r.ast,
            },
          })),
        },
      },
      taxonomies: [astTaxonomy()],
      columnKind: "unicodeCodePoints",
      results,
    }],
  };
}
