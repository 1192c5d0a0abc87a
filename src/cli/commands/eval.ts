/**
 * `skills eval`: output evals (with and without the skill) or trigger evals (--triggers),
 * a CI gate over what they measured, record and replay. The workflow is
 * agent/eval/workflow.ts; this file parses, asks before anything is spent, and renders.
 */

import {
  EXIT_INTERRUPTED,
  EXIT_USAGE,
  isSkillError,
  SkillError,
  UsageError,
} from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { DEFAULT_MAX_STEPS } from "../../agent/chat/chat_loop.ts";
import { routeSdkWarnings } from "../../agent/chat/providers.ts";
import { EXIT_GATE_FAILED, EXIT_NOT_RUN } from "../../agent/eval/ci_gate.ts";
import { type EvalOptions, planEval, runEval } from "../../agent/eval/workflow.ts";
import { evalSpec } from "../specs/eval.ts";
import { resolveSandbox } from "../../runtime/sandbox/mode.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { confirmAction } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import {
  progressLine,
  renderBenchmark,
  renderGate,
  renderImprovement,
  renderTriggers,
} from "../ui/eval_ui.ts";

export const handlesInterrupt = false;

const HINT = "Run `skills eval --help` for usage";

export const { help, parse } = defineCommand(evalSpec, ({ values, positionals, common }) => {
  if (positionals.length > 1) {
    throw new UsageError(`Expected one skill or folder, got ${positionals.length}`, HINT);
  }
  if (values.record !== undefined && values.replay !== undefined) {
    throw new UsageError("--record and --replay cannot be combined", "Record once, then replay");
  }
  const triggersOnly = ["queries", "with", "min-recall", "min-precision", "split"] as const;
  for (const flag of triggersOnly) {
    if (!values.triggers && values[flag] !== undefined) {
      throw new UsageError(`--${flag} needs --triggers`, HINT);
    }
  }
  for (const flag of ["min-pass-rate", "min-delta"] as const) {
    if (values.triggers && values[flag] !== undefined) {
      throw new UsageError(`--${flag} applies to output evals, not --triggers`, HINT);
    }
  }
  if (values.evals !== undefined && values.triggers) {
    throw new UsageError("--evals names output evals; trigger queries are --queries FILE", HINT);
  }
  if (values.baseline !== undefined && values.triggers) {
    throw new UsageError("--baseline applies to output evals, not --triggers", HINT);
  }
  if (values.improve && !values.triggers) throw new UsageError("--improve needs --triggers", HINT);
  const gateFlags = ["min-recall", "min-precision", "against", "junit", "record"] as const;
  for (const flag of gateFlags) {
    if (values.improve && values[flag] !== undefined) {
      throw new UsageError(`--${flag} does not apply to --improve`, HINT);
    }
  }
  if (values["max-drop"] !== undefined && values.against === undefined) {
    throw new UsageError("--max-drop needs --against FILE", HINT);
  }
  const evalOptions: EvalOptions = {
    target: positionals[0],
    triggers: values.triggers === true,
    improve: values.improve === true,
    queries: values.queries,
    evals: values.evals,
    with: values.with?.split(",").map((n) => n.trim()).filter((n) => n !== ""),
    runs: values.runs,
    jobs: values.jobs ?? 1,
    maxSteps: values["max-steps"] ?? DEFAULT_MAX_STEPS,
    workspace: values.workspace,
    baseline: values.baseline,
    record: values.record,
    replay: values.replay,
    gate: {
      minPassRate: values["min-pass-rate"],
      minDelta: values["min-delta"],
      minRecall: values["min-recall"],
      minPrecision: values["min-precision"],
      split: values.split,
      againstFile: values.against,
      maxDrop: values["max-drop"],
    },
    junit: values.junit,
  };
  return { ...common, eval: evalOptions, yes: values.yes === true };
});

type EvalCommandOptions = OptionsOf<typeof parse>;

/**
 * "Could not run" has its own exit status, apart from "the gate failed" (1): usage errors
 * keep 2 and an interruption 130.
 */
async function orNotRun<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isSkillError(error)) {
      throw new SkillError("execution_failed", `The eval could not run: ${String(error)}`, {
        exitCode: EXIT_NOT_RUN,
        cause: error,
      });
    }
    if (error.exitCode === EXIT_USAGE || error.exitCode === EXIT_INTERRUPTED) throw error;
    throw new SkillError(error.code, error.message, {
      exitCode: EXIT_NOT_RUN,
      ...(error.hint ? { hint: error.hint } : {}),
      cause: error,
    });
  }
}

export async function run(options: EvalCommandOptions, ctx: Context): Promise<number> {
  routeSdkWarnings(undefined);
  const plan = await orNotRun(() => planEval(options.eval, ctx));
  if (plan.byPath) {
    warn(
      ctx,
      `Evaluating the folder ${plan.skill.dir} as its author: its scripts run in the sandbox ` +
        "without a trust step",
    );
  }
  if (plan.evalsFrom !== undefined) {
    ctx.stderr.write(
      `Evals from ${plan.evalsFrom} (the skill has no ${
        plan.queries ? "evals/eval_queries.json" : "evals/evals.json"
      }).\n`,
    );
  }
  // Whether scripts will run in the OS sandbox, said before anything runs (as chat does).
  await resolveSandbox(ctx.env, plan.home, (message) => warn(ctx, message));
  const { runs, maxRequests } = plan.count;
  if (options.eval.replay === undefined) {
    const what = plan.queries
      ? `${runs} model requests (${plan.queries.length} queries × ${plan.runs} runs)`
      : `${runs} runs (${plan.evalSet!.evals.length} evals × 2 configurations × ${plan.runs}), ` +
        `at most ${maxRequests} model requests`;
    ctx.stderr.write(`This eval sends ${what} to ${plan.model}.\n`);
    const go = await orNotRun(() =>
      confirmAction(ctx, "Continue?", { yes: options.yes, action: "Cannot start the eval" })
    );
    if (!go) {
      ctx.stderr.write("Nothing was sent.\n");
      return EXIT_NOT_RUN;
    }
  }
  const progress = progressLine(ctx, plan.queries ? "trigger runs" : "eval runs");
  const outcome = await orNotRun(() =>
    runEval(plan, {
      onProgress: (p) => progress.update(p),
      onRetry: (status, wait) =>
        ctx.verbose && ctx.stderr.write(`debug: HTTP ${status}, retrying in ${wait} ms\n`),
    }, ctx.signal)
  ).finally(() => progress.done());
  if (outcome.improvement) {
    if (options.json) writeJson(ctx, outcome.improvement);
    else ctx.stdout.write(renderImprovement(outcome.improvement, ctx.color));
    return 0;
  }
  if (options.json) {
    const document = outcome.triggers ?? outcome.benchmark;
    writeJson(ctx, { ...document, results_path: outcome.written, gate: outcome.gate });
  } else if (outcome.triggers) {
    ctx.stdout.write(renderTriggers(outcome.triggers, outcome.written, ctx.color));
  } else {
    ctx.stdout.write(renderBenchmark(outcome.benchmark!, outcome.written, ctx.color));
  }
  ctx.stderr.write(renderGate(outcome.gate, ctx.color));
  return outcome.gate.passed ? 0 : EXIT_GATE_FAILED;
}
