/** `skills lint <dir>...`: the author's style checks, with the scripts run for real. */

import { resolve } from "../../runtime/os/paths.ts";
import type { Context } from "../../core/io.ts";
import { UsageError } from "../../core/errors.ts";
import type { LintFinding } from "../../core/lint.ts";
import { skillDirsAt } from "../../runtime/catalog/discover.ts";
import { type LintReport, lintSkillDir } from "../../runtime/audit/lint.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { resolveSandbox } from "../../runtime/sandbox/mode.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { lintSpec } from "../specs/lint.ts";
import { style, writeJson } from "../render.ts";

export const help = renderHelp(lintSpec);

interface LintOptions extends ParsedCommon {
  dirs: string[];
  runScripts: boolean;
  yes: boolean;
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
  return {
    ...flags,
    dirs: positionals,
    // A directory handed to lint is nobody's trusted skill: its scripts run only on request.
    runScripts: values["run-scripts"] === true && values["no-scripts"] !== true,
    yes: values.yes === true,
    timeoutSeconds,
  };
}

/** The tokenizer (gpt-tokenizer) loads only for a body long enough to need it. */
async function countTokens(text: string): Promise<number> {
  const { countTokens } = await import("../../agent/tokens.ts");
  return countTokens(text);
}

export async function run(options: LintOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  if (options.runScripts) await confirmPolicyMode(options, ctx, home);
  const reports: LintReport[] = [];
  for (const dir of options.dirs) {
    for (const target of await skillDirsAt(resolve(ctx.cwd, dir))) {
      reports.push(
        await lintSkillDir(target, {
          home,
          env: ctx.env,
          signal: ctx.signal,
          runScripts: options.runScripts,
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
      scripts_run: options.runScripts,
      skills: reports.map((r) => ({ path: r.dir, name: r.name, findings: r.findings })),
    });
    return failed ? 1 : 0;
  }
  const s = style(ctx.color);
  if (!options.runScripts && reports.some((r) => r.scripts > 0)) {
    ctx.stderr.write(
      "Scripts were not run (their --help and --json checks skipped). Review them, then pass --run-scripts.\n",
    );
  }
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
    for (const f of r.findings) ctx.stdout.write(`  ${formatFinding(f)}\n`);
  }
  return failed ? 1 : 0;
}

/**
 * Without the OS sandbox, a script run by lint runs as the user (it can write to ~ and
 * reach the network): say so and ask; refuse when nobody can be asked, unless --yes.
 */
async function confirmPolicyMode(options: LintOptions, ctx: Context, home: string) {
  const status = await resolveSandbox(ctx.env, home);
  if (status.kind === "bwrap" || options.yes) return;
  const reason = "no OS sandbox is available (policy mode): the scripts would run as you";
  if (!ctx.isTty) {
    throw new UsageError(
      `Cannot run the scripts: ${reason}`,
      "Install bubblewrap, or pass --yes to run them anyway, or drop --run-scripts",
    );
  }
  ctx.stderr.write(`The scripts would run without the OS sandbox, as you. Run them? [y/N] `);
  const answer = (await ctx.readLine())?.trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") {
    throw new UsageError(`Cannot run the scripts: ${reason}`, "Lint without --run-scripts");
  }
}

function formatFinding(f: LintFinding): string {
  const at = f.line === undefined ? f.file : `${f.file}:${f.line}`;
  return `${at}: ${f.level}: ${f.message} [${f.rule}]`;
}
