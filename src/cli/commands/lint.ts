/** `skills lint <dir>...`: the author's style checks, with the scripts run for real. */

import { resolve } from "../../runtime/os/paths.ts";
import type { Context } from "../../core/io.ts";
import { UsageError } from "../../core/errors.ts";
import type { LintFinding } from "../../core/audit/lint.ts";
import { lintGuideFor } from "../../core/audit/lint_guide.ts";
import { skillDirsAt } from "../../runtime/catalog/discover.ts";
import { type LintReport, lintSkillDir } from "../../runtime/audit/lint.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { lintSpec } from "../specs/lint.ts";
import { style, writeJson } from "../ui/render.ts";

export const help = renderHelp(lintSpec);

interface LintOptions extends ParsedCommon {
  dirs: string[];
  /** `yes` (--run-scripts), `no` (--no-scripts), or `trusted`: only for skills you trusted. */
  scripts: "yes" | "no" | "trusted";
  timeoutSeconds: number;
}

const DEFAULT_TIMEOUT_SECONDS = 10;

export function parse(argv: readonly string[]): LintOptions {
  const { values, positionals } = parseSpec(lintSpec, argv);
  const flags = commonFlags(values);
  if (!flags.help && positionals.length === 0) {
    throw new UsageError(
      "Missing skill directory",
      "Run `skills lint <dir>`, e.g. `skills lint .`",
    );
  }
  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > 600) {
      throw new UsageError(`Invalid --timeout '${values.timeout}' (seconds, 0 < S ≤ 600)`);
    }
  }
  if (values["no-scripts"] === true && values["run-scripts"] === true) {
    throw new UsageError("Give --run-scripts or --no-scripts, not both");
  }
  return {
    ...flags,
    dirs: positionals,
    scripts: values["no-scripts"] === true
      ? "no"
      : values["run-scripts"] === true
      ? "yes"
      : "trusted",
    timeoutSeconds,
  };
}

/**
 * Without an OS sandbox here, scripts under review would run as the user: asked on a
 * terminal, refused (false) otherwise. True when there is a sandbox (nothing to agree to).
 */
async function agreeToPolicyMode(home: string, ctx: Context): Promise<boolean> {
  const { sandboxStatus } = await import("../../runtime/exec/sandbox.ts");
  const status = await sandboxStatus(ctx.env, home);
  if (status.kind === "bwrap") return true;
  if (!ctx.isTty) return false;
  const { confirm } = await import("../ui/tty.ts");
  return await confirm(
    ctx,
    `There is no OS sandbox here (${status.reason}): run the skills' scripts as you, unconfined?`,
  );
}

/** The tokenizer (gpt-tokenizer) loads only for a body long enough to need it. */
async function countTokens(text: string): Promise<number> {
  const { countTokens } = await import("../../agent/chat/tokens.ts");
  return countTokens(text);
}

/** The real folders of the skills this user trusted (installed and project ones). */
async function trustedDirs(home: string, ctx: Context): Promise<Set<string>> {
  const { loadCatalog } = await import("../../runtime/catalog/catalog.ts");
  const catalog = await loadCatalog(home, { cwd: ctx.cwd, env: ctx.env });
  return new Set(
    catalog.skills.filter((s) => s.trusted && s.origin !== "core").map((s) => s.dir),
  );
}

function realDir(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

export async function run(options: LintOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const reports: LintReport[] = [];
  const trusted = options.scripts === "trusted" ? await trustedDirs(home, ctx) : new Set();
  let policyModeAgreed: boolean | undefined;
  for (const dir of options.dirs) {
    for (const target of await skillDirsAt(resolve(ctx.cwd, dir))) {
      const runScripts = options.scripts === "yes" ||
        (options.scripts === "trusted" && trusted.has(realDir(target)));
      if (runScripts && policyModeAgreed === undefined) {
        policyModeAgreed = await agreeToPolicyMode(home, ctx);
      }
      reports.push(
        await lintSkillDir(target, {
          home,
          env: ctx.env,
          signal: ctx.signal,
          runScripts,
          policyModeAgreed,
          timeoutSeconds: options.timeoutSeconds,
          countTokens,
        }),
      );
    }
  }
  const hasErrors = (r: LintReport) => r.findings.some((f) => f.level === "error");
  const failed = reports.some(hasErrors);
  if (options.json) {
    writeJson(ctx, {
      clean: reports.every((r) => r.findings.length === 0),
      scripts_run: reports.some((r) => r.scriptsRun),
      skills: reports.map((r) => ({
        path: r.dir,
        name: r.name,
        findings: r.findings.map((f) => ({ ...f, guide: lintGuideFor(f.rule) })),
      })),
    });
    return failed ? 1 : 0;
  }
  const s = style(ctx.color);
  for (const r of reports) {
    const errors = r.findings.filter((f) => f.level === "error").length;
    const warnings = r.findings.length - errors;
    const mark = errors > 0 ? s.red("✗") : warnings > 0 ? s.yellow("!") : s.green("✓");
    const detail = r.findings.length === 0
      ? "clean"
      : `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
        warnings === 1 ? "" : "s"
      }`;
    ctx.stdout.write(`${mark} ${r.name ?? r.dir} (${r.dir}) - ${detail}\n`);
    for (const f of r.findings) {
      ctx.stdout.write(`  ${formatFinding(f)}\n    see ${lintGuideFor(f.rule)}\n`);
    }
  }
  return failed ? 1 : 0;
}

function formatFinding(f: LintFinding): string {
  const at = f.line === undefined ? f.file : `${f.file}:${f.line}`;
  return `${at}: ${f.level}: ${f.message} [${f.rule}]`;
}
