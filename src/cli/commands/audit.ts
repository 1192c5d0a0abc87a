/**
 * `skills audit <dir | name | source>`: the static scan of core/audit/audit_rules.ts over every
 * file of one or more skills, as text, JSON or SARIF. A source is fetched into staging by
 * a read-only preview change and removed with it: nothing is installed.
 */

import { join, relative } from "../../runtime/os/paths.ts";
import { type AuditReport, SEVERITIES, type Severity } from "../../core/audit/engine.ts";
import { isSkillError, SkillError, UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import type { Manifest } from "../../core/manifest/manifest.ts";
import { isValidSkillName } from "../../core/manifest/names.ts";
import { renderSarif } from "../../core/audit/sarif.ts";
import { VERSION } from "../../core/version.ts";
import { auditDir } from "../../runtime/audit/scan.ts";
import { skillDirsAt } from "../../runtime/catalog/discover.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import {
  inspectCandidates,
  selectCandidates,
  sourceLabel,
} from "../../runtime/lifecycle/fetch_source.ts";
import { resolveRequest, typedPath } from "../../runtime/lifecycle/resolve_source.ts";
import { isWithin, lstatOrNull } from "../../runtime/os/fs.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { auditSpec } from "../specs/audit.ts";
import { progress } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { countsLine, findingJson, findingLines } from "../ui/audit_ui.ts";

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

/** One audited skill, with where its files are for the reader and for SARIF. */
interface Audited {
  name: string | null;
  /** How the skill is shown: a path relative to the working directory, a name, a source. */
  label: string;
  /** SARIF: a path prefix relative to the working directory, or a file:// URI. */
  uriPrefix: string;
  report: AuditReport;
}

export async function run(options: AuditOptions, ctx: Context): Promise<number> {
  const audited = await auditTarget(options.target, ctx);
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
    lines.push(`  Endpoints: ${a.report.endpoints.join(", ")}`);
  }
  if (a.report.findings.length === 0) lines.push("  No findings.");
  return lines.join("\n") + "\n";
}

/** A directory (or folder of skills), an installed or bundled skill, or a source. */
async function auditTarget(target: string, ctx: Context): Promise<Audited[]> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const path = typedPath(target, ctx.cwd, ctx.env);
  const info = target.includes("://") ? null : await lstatOrNull(path);
  if (info?.isDirectory) {
    const dirs = await skillDirsAt(path);
    if (dirs.length > 1 || await lstatOrNull(join(dirs[0]!, "SKILL.md"))) {
      return await Promise.all(dirs.map((dir) => auditLocal(dir, ctx.cwd)));
    }
  }
  if (!info && isValidSkillName(target)) {
    const installed = await auditInstalled(target, home, ctx);
    if (installed !== undefined) return [installed];
    throw new SkillError("not_found", `Cannot audit '${target}': no such directory or skill`, {
      hint: "Give a skill directory, an installed skill's name, or a source like owner/repo",
    });
  }
  return await auditSource(target, home, ctx);
}

async function auditLocal(dir: string, cwd: string): Promise<Audited> {
  const report = await auditDir(dir);
  const rel = relative(cwd, dir).replaceAll("\\", "/");
  const name = await manifestName(dir);
  return {
    name,
    label: isWithin(cwd, dir) ? (rel === "" ? "." : rel) : dir,
    uriPrefix: prefixFor(dir, cwd),
    report,
  };
}

/** SARIF names files relative to the working directory when they are under it. */
function prefixFor(dir: string, cwd: string): string {
  if (!isWithin(cwd, dir)) return fileUri(dir);
  const rel = relative(cwd, dir).replaceAll("\\", "/");
  return rel === "" ? "" : `${rel}/`;
}

async function manifestName(dir: string): Promise<string | null> {
  try {
    const { inspectSkillDir } = await import("../../runtime/catalog/loader.ts");
    return (await inspectSkillDir(dir)).manifest?.name ?? null;
  } catch {
    return null;
  }
}

function fileUri(dir: string): string {
  const posix = dir.replaceAll("\\", "/");
  const encoded = posix.split("/").map(encodeURIComponent).join("/");
  return `file://${posix.startsWith("/") ? "" : "/"}${encoded}/`;
}

async function auditInstalled(
  name: string,
  home: string,
  ctx: Context,
): Promise<Audited | undefined> {
  const { loadCatalog, findSkill } = await import("../../runtime/catalog/catalog.ts");
  const catalog = await loadCatalog(home);
  try {
    const skill = findSkill(catalog, name);
    debug(ctx, `auditing ${skill.origin} skill ${skill.canonical} at ${skill.dir}`);
    return {
      name: skill.canonical,
      label: skill.canonical,
      uriPrefix: fileUri(skill.dir),
      report: await auditDir(skill.dir, skill.manifest),
    };
  } catch (error) {
    if (!isSkillError(error) || error.code !== "not_found") throw error;
    const failure = catalog.failures.find((f) => f.canonical === name.toLowerCase());
    if (failure === undefined) return undefined;
    // A skill that fails to load is audited all the same: it may be why it fails.
    return {
      name: failure.canonical,
      label: failure.canonical,
      uriPrefix: fileUri(failure.dir),
      report: await auditDir(failure.dir),
    };
  }
}

async function auditSource(target: string, home: string, ctx: Context): Promise<Audited[]> {
  const where = { cwd: ctx.cwd, env: ctx.env, home };
  const { source, request, selectors } = await resolveRequest(target, {}, [], where);
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
    progress: progress(ctx),
    preview: true,
  });
  const fetched = await change.fetch(source, request);
  const candidates = await inspectCandidates(fetched);
  const chosen = selectors.length === 0
    ? candidates
    : selectCandidates(candidates, selectors, sourceLabel(source));
  if (chosen.length === 0) {
    throw new SkillError("not_found", `No skills found in ${sourceLabel(source)}`);
  }
  const out: Audited[] = [];
  for (const c of chosen) {
    for (const e of c.errors) warn(ctx, `${c.name ?? c.rel}: ${e.message} (audited anyway)`);
    const facts: Pick<Manifest, "name" | "envPatterns"> | undefined = c.manifest;
    // A directory's files are named from the working directory (like a directory target);
    // a repository's from its root.
    const local = source.kind === "local-folder"
      ? join(source.path, ...c.rel.split("/"))
      : undefined;
    out.push({
      name: c.name ?? null,
      label: `${sourceLabel(source)}${c.rel === "" ? "" : ` (${c.rel})`}`,
      uriPrefix: local === undefined
        ? (c.rel === "" ? "" : `${c.rel}/`)
        : prefixFor(local, ctx.cwd),
      report: await auditDir(c.dir, facts),
    });
  }
  return out;
}
