/**
 * The audit result each installed skill keeps in `$SKILLS_HOME/.cache/audit-<name>.json`,
 * tagged with the rules version and the installed digest it was made for. `skills check`
 * reads it, and audits the skill again when the rules changed (a newer `skills`) or the
 * skill did (an update): stale findings are never reported, and current ones are not
 * recomputed on every check. A cache, so a broken or missing file is simply redone.
 */

import { AST_CATEGORIES } from "../../core/audit/owasp_ast.ts";
import { join } from "../os/paths.ts";
import type { AuditReport } from "../../core/audit/engine.ts";
import { AUDIT_RULES_VERSION } from "../../core/audit/audit_rules.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import {
  array,
  integer,
  matches,
  nullable,
  object,
  oneOf,
  record,
  string,
} from "../../core/manifest/validation.ts";
import { writeFileAtomic } from "../os/fs.ts";
import { CACHE_DIR } from "../store/home.ts";
import { auditDir } from "./scan.ts";

interface KeptAudit {
  rules_version: string;
  digest: string | null;
  report: AuditReport;
}

const FINDING = object({
  rule: string(),
  ast: oneOf(...AST_CATEGORIES.map((c) => c.id)),
  severity: oneOf("critical", "high", "medium", "info"),
  title: string(),
  explanation: string(),
  file: string(),
  line: integer({ min: 1 }),
  excerpt: string(),
});
const KEPT_AUDIT = object({
  rules_version: string(),
  digest: nullable(string()),
  report: object({
    rules_version: string(),
    files: integer({ min: 0 }),
    findings: array(FINDING),
    counts: record(integer({ min: 0 })),
    endpoints: array(string()),
  }),
});

export function installedAuditPath(home: string, canonical: string): string {
  return join(home, CACHE_DIR, `audit-${canonical}.json`);
}

/** Keeps `report` as the audit of `canonical` at `digest` (best effort: it is a cache). */
export async function saveInstalledAudit(
  home: string,
  canonical: string,
  digest: string | null,
  report: AuditReport,
): Promise<void> {
  const data: KeptAudit = { rules_version: report.rules_version, digest, report };
  try {
    await Deno.mkdir(join(home, CACHE_DIR), { recursive: true });
    await writeFileAtomic(installedAuditPath(home, canonical), JSON.stringify(data) + "\n", {
      durable: false,
    });
  } catch { /* a read-only home: audited again next time */ }
}

async function readInstalledAudit(home: string, canonical: string): Promise<KeptAudit | undefined> {
  try {
    const data: unknown = JSON.parse(await Deno.readTextFile(installedAuditPath(home, canonical)));
    return matches(KEPT_AUDIT, data) ? data as KeptAudit : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The audit of an installed skill under the current rules: the kept one when it was made
 * by these rules for the installed files, else a fresh audit (then kept). `refreshed` says
 * which.
 */
export async function installedAudit(
  home: string,
  entry: RegistryEntry,
): Promise<{ report: AuditReport; refreshed: boolean }> {
  const digest = installedDigest(entry);
  const kept = await readInstalledAudit(home, entry.name_canonical);
  if (kept !== undefined && kept.rules_version === AUDIT_RULES_VERSION && kept.digest === digest) {
    return { report: kept.report, refreshed: false };
  }
  const report = await auditDir(entry.installed_path, undefined, { home, keep: true });
  await saveInstalledAudit(home, entry.name_canonical, digest, report);
  return { report, refreshed: true };
}

function installedDigest(entry: RegistryEntry): string | null {
  const recorded = entry.installed_digest;
  return typeof recorded === "string" ? recorded : entry.trusted_digest;
}
