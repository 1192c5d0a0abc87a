/** `skills lint <dir>...`: the author's style checks, with the scripts run for real. */

import type { Context } from "../../core/io.ts";
import { UsageError } from "../../core/errors.ts";
import type { LintFinding } from "../../core/audit/lint_checks.ts";
import { lintGuideFor } from "../../core/audit/lint_guide.ts";
import type { LintReport } from "../../runtime/audit/lint.ts";
import { lintTargets } from "../../runtime/audit/lint_targets.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { lintSpec } from "../specs/lint.ts";
import { style, writeJson } from "../ui/render.ts";
import { inert } from "../../core/terminal_text.ts";

const DEFAULT_TIMEOUT_SECONDS = 10;

export const { help, parse } = defineCommand(
  lintSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const guide = values.guide === true;
    if (!flags.help && !guide && positionals.length === 0) {
      throw new UsageError(
        "Missing skill directory",
        "Run `skills lint <dir>`, e.g. `skills lint .`",
      );
    }
    if (values["no-scripts"] === true && values["run-scripts"] === true) {
      throw new UsageError("Give --run-scripts or --no-scripts, not both");
    }
    return {
      ...flags,
      guide,
      dirs: positionals,
      scripts: values["no-scripts"] === true
        ? "no" as const
        : values["run-scripts"] === true
        ? "yes" as const
        : "trusted" as const,
      timeoutSeconds: values.timeout ?? DEFAULT_TIMEOUT_SECONDS,
    };
  },
);

type LintOptions = OptionsOf<typeof parse>;

/**
 * Without an OS sandbox here, scripts under review would run as the user: asked on a
 * terminal, refused (false) otherwise.
 */
async function agreeUnconfined(ctx: Context, reason: string): Promise<boolean> {
  if (!ctx.isTty) return false;
  const { confirm } = await import("../ui/tty.ts");
  return await confirm(
    ctx,
    `There is no OS sandbox here (${reason}): run the skills' scripts as you, unconfined?`,
  );
}

/** The tokenizer (gpt-tokenizer) loads only for a body long enough to need it. */
async function countTokens(text: string): Promise<number> {
  const { countTokens } = await import("../../agent/chat/tokens.ts");
  return countTokens(text);
}

export async function run(options: LintOptions, ctx: Context): Promise<number> {
  if (options.guide) {
    const { writingGuide } = await import("../../runtime/audit/guide.ts");
    ctx.stdout.write(writingGuide());
    return 0;
  }
  const reports = await lintTargets(options.dirs, {
    home: skillsHome(ctx.env, ctx.cwd),
    env: ctx.env,
    cwd: ctx.cwd,
    signal: ctx.signal,
    scripts: options.scripts,
    timeoutSeconds: options.timeoutSeconds,
    countTokens,
    agreeUnconfined: (reason) => agreeUnconfined(ctx, reason),
  });
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
    ctx.stdout.write(`${mark} ${inert(r.name ?? r.dir)} (${inert(r.dir)}) - ${detail}\n`);
    for (const f of r.findings) {
      ctx.stdout.write(`  ${formatFinding(f)}\n    see ${lintGuideFor(f.rule)}\n`);
    }
  }
  return failed ? 1 : 0;
}

/** A finding's line: its file and message name the skill's own files, shown inert. */
function formatFinding(f: LintFinding): string {
  const at = f.line === undefined ? f.file : `${f.file}:${f.line}`;
  return `${inert(at)}: ${f.level}: ${inert(f.message)} [${f.rule}]`;
}
