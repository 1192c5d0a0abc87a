/**
 * What one file contributes to a skill's audit, without its path: the shape a cache keyed by
 * the file's bytes and the rules version keeps (runtime/audit/audit_cache.ts). A file's
 * findings depend only on its bytes, its path inside the skill and the rules — but SKILL.md's
 * also on the manifest's permissions, so it is never cached. A stored finding keeps only what
 * the file decided — its rule, severity, line, excerpt and secret-flow note — and its title,
 * explanation and category are the rule's own, looked up again: a cache read back is checked
 * field by field and can only name rules that exist.
 *
 * Also what a reader of a report needs without the engine, whose flow analysis is most of the
 * audit's code and loads only when a skill is audited (runtime/audit/scan.ts): which findings
 * refuse an install, and how a finding is named for people.
 */

import { AUDIT_RULES, SEVERITIES, type Severity } from "./audit_rules.ts";
import type { FlowNote } from "./flow_findings.ts";
import { inert } from "../terminal_text.ts";

interface StoredFinding {
  rule: string;
  severity: Severity;
  line: number;
  excerpt: string;
  /** The secret flow behind a `secret-network` finding, judged once the skill is read. */
  note?: FlowNote;
}

export interface FileFindings {
  findings: StoredFinding[];
}

/**
 * Whether a file's findings are worth keeping by its bytes: not SKILL.md's (they depend on
 * the manifest too), nor a binary's (a NUL byte in its first 8 KiB, as the engine tells
 * them): the engine judges a binary by its class alone, faster than hashing it for a key.
 */
export function cacheableFile(file: { path: string; bytes: Uint8Array }): boolean {
  return file.path !== "SKILL.md" && !file.bytes.subarray(0, 8192).includes(0);
}

const RULE_IDS = new Set(AUDIT_RULES.map((rule) => rule.id));
/** Longer than any excerpt the engine writes (120 characters, escapes spelled out). */
const MAX_EXCERPT = 4_000;
const MAX_FINDINGS = 10_000;

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.length <= 1_000 &&
    value.every((s) => typeof s === "string" && s.length <= MAX_EXCERPT);
}

function validNote(value: unknown): FlowNote | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { host, secrets, ...flags } = value as Record<string, unknown>;
  if (host !== undefined && (typeof host !== "string" || host.length > 253)) return undefined;
  if (!isStrings(secrets)) return undefined;
  const note: FlowNote = { host, secrets };
  for (const flag of ["inName", "inDocument", "hidden"] as const) {
    const value = flags[flag];
    if (value !== undefined && typeof value !== "boolean") return undefined;
    if (value !== undefined) note[flag] = value;
  }
  return note;
}

function validFinding(value: unknown): StoredFinding | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { rule, severity, line, excerpt, note } = value as Record<string, unknown>;
  if (typeof rule !== "string" || !RULE_IDS.has(rule)) return undefined;
  if (typeof severity !== "string" || !SEVERITIES.includes(severity as Severity)) {
    return undefined;
  }
  if (typeof line !== "number" || !Number.isSafeInteger(line) || line < 1) return undefined;
  if (typeof excerpt !== "string" || excerpt.length > MAX_EXCERPT) return undefined;
  const found: StoredFinding = { rule, severity: severity as Severity, line, excerpt };
  if (note === undefined) return found;
  const checked = validNote(note);
  return checked === undefined ? undefined : { ...found, note: checked };
}

/** `value` as a file's findings when every field checks out, else undefined (a miss). */
export function validFileFindings(value: unknown): FileFindings | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { findings } = value as Record<string, unknown>;
  if (!Array.isArray(findings) || findings.length > MAX_FINDINGS) return undefined;
  const out: StoredFinding[] = [];
  for (const item of findings) {
    const checked = validFinding(item);
    if (checked === undefined) return undefined;
    out.push(checked);
  }
  return { findings: out };
}

/** Critical findings, the ones that refuse an install without --allow-risky. */
export function criticalFindings<F extends { severity: Severity }>(
  report: { findings: readonly F[] },
): F[] {
  return report.findings.filter((f) => f.severity === "critical");
}

/**
 * `rule file:line`, for people (summaries, errors, records): the file's name is the skill's,
 * and a name can hold an escape sequence, so it is shown inert.
 */
export function findingLabel(f: { rule: string; file: string; line: number }): string {
  return `${f.rule} ${inert(f.file)}:${f.line}`;
}
