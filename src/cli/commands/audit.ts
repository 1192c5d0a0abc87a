/**
 * `skills audit <dir | name | source>`: the static scan of core/audit/audit_rules.ts over every
 * file of one or more skills, as text, JSON or SARIF. What the target is and its audit are
 * runtime/inspect/audit_target.ts's (a source is fetched by a read-only preview change and
 * removed with it: nothing is installed); this command parses and renders.
 */

import { SEVERITIES, type Severity } from "../../core/audit/engine.ts";
import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { renderSarif } from "../../core/audit/sarif.ts";
import { VERSION } from "../../core/version.ts";
import { type Audited, auditTarget } from "../../runtime/inspect/audit_target.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { auditSpec } from "../specs/audit.ts";
import { progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { countsLine, endpointsText, findingJson, findingLines } from "../ui/audit_ui.ts";

type Format = "text" | "json" | "sarif";

/** Ctrl-C stops git while a source is fetched; the preview's staging is removed. */
export const handlesInterrupt = true;

const HINT = "Run `skills audit --help` for usage";

export const { help, parse } = defineCommand(
  auditSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const format = (values.format ?? (flags.json ? "json" : "text")).toLowerCase();
    if (format !== "text" && format !== "json" && format !== "sarif") {
      throw new UsageError(`Unknown format '${values.format}' (use text, json or sarif)`, HINT);
    }
    if (flags.json && format !== "json") {
      throw new UsageError("--json is --format json; give one of them", HINT);
    }
    const failOn = (values["fail-on"] ?? "high").toLowerCase();
    if (failOn !== "none" && !(SEVERITIES as readonly string[]).includes(failOn)) {
      throw new UsageError(
        `Unknown --fail-on level '${values["fail-on"]}' (use critical, high, medium, info or none)`,
        HINT,
      );
    }
    const target = flags.help ? "" : requireOne("audit", positionals, "target");
    return {
      ...flags,
      json: format === "json",
      target,
      format: format as Format,
      failOn: failOn as Severity | "none",
    };
  },
);

type AuditOptions = OptionsOf<typeof parse>;

export async function run(options: AuditOptions, ctx: Context): Promise<number> {
  const audited = await auditTarget(options.target, ctx, progress(ctx));
  if (options.format === "sarif") {
    writeJson(
      ctx,
      renderSarif(
        audited.map((a) => ({ uriPrefix: a.uriPrefix, findings: a.report.findings })),
        VERSION,
      ),
    );
  } else if (options.format === "json") {
    writeJson(ctx, {
      rules_version: audited[0]?.report.rules_version ?? null,
      skills: audited.map((a) => ({
        name: a.name,
        path: a.label,
        files: a.report.files,
        counts: a.report.counts,
        endpoints: a.report.endpoints,
        findings: a.report.findings.map(findingJson),
      })),
    });
  } else {
    ctx.stdout.write(audited.map((a) => renderText(ctx, a, options.verbose)).join("\n"));
  }
  if (options.failOn === "none") return 0;
  const limit = SEVERITIES.indexOf(options.failOn);
  const failing = audited.some((a) =>
    a.report.findings.some((f) => SEVERITIES.indexOf(f.severity) <= limit)
  );
  return failing ? 1 : 0;
}

function renderText(ctx: Context, a: Audited, verbose: boolean): string {
  const lines = [`${a.name ?? "(unnamed)"} (${a.label}): ${countsLine(a.report)}`];
  const shown = a.report.findings.filter((f) => verbose || f.severity !== "info");
  for (const f of shown) lines.push(...findingLines(ctx, f, "  ", true));
  if (a.report.endpoints.length > 0 && !verbose) {
    lines.push(`  Endpoints: ${endpointsText(a.report.endpoints)}`);
  }
  if (a.report.findings.length === 0) lines.push("  No findings.");
  return lines.join("\n") + "\n";
}
