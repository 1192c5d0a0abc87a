/**
 * `skills eval` of outputs: every eval of `evals/evals.json`, with the skill and without it,
 * `--runs` times, `--jobs` at a time, into the next `iteration-N/` of the workspace, laid
 * out as the agentskills.io guide and Anthropic's skill-creator read it:
 *
 *   iteration-N/eval-<id>-<name>/eval_metadata.json
 *   iteration-N/eval-<id>-<name>/{with_skill,without_skill|old_skill}/run-<k>/
 *       outputs/  transcript.md  timing.json  grading.json
 *   iteration-N/benchmark.json
 *
 * A run that cannot be made (the provider fails, a recording lacks a response) stops the
 * iteration, and its folder is removed: a half iteration would read as a result.
 */

import { join } from "node:path";
import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { type EvalCase, evalDirName, type EvalSet } from "./eval_files.ts";
import {
  type AssertionResult,
  type GradingMaterial,
  judge,
  listVerifiers,
  mechanicalCheck,
  runVerifier,
  type VerifierSetting,
} from "./grading.ts";
import type { EvalModels } from "./model_tape.ts";
import {
  type Configuration,
  type RunOutcome,
  runOutputCase,
  transcriptMarkdown,
} from "./output_run.ts";
import { type Progress, runPool } from "./pool.ts";
import { type ConfigSummary, configSummary, deltaOf } from "./stats.ts";

interface OutputEvalRequest {
  skill: LoadedSkill;
  /** `--baseline`: the previous version, run as `old_skill` instead of `without_skill`. */
  baseline?: { skill: LoadedSkill; byPath: boolean } | undefined;
  /** The folder holding `iteration-N/` (`<skill>-workspace` unless `--workspace`). */
  workspaceRoot: string;
  evalSet: EvalSet;
  /** The folder the evals' input files are relative to (eval_files.ts). */
  evalsBase: string;
  runs: number;
  jobs: number;
  maxSteps: number;
  home: string;
  env: Readonly<Record<string, string>>;
  allowUntrusted: boolean;
  models: EvalModels;
  signal?: AbortSignal;
  log?: (message: string) => void;
  onProgress?: (progress: Progress) => void;
}

/** One graded run, in benchmark.json's `runs[]` shape. */
interface RunRecord {
  eval_id: number | string;
  eval_name: string;
  configuration: Configuration;
  run_number: number;
  result: {
    pass_rate: number;
    passed: number;
    failed: number;
    total: number;
    time_seconds: number;
    tokens: number;
    tool_calls: number;
    errors: number;
  };
  expectations: AssertionResult[];
  notes: string[];
}

export interface Benchmark {
  metadata: Record<string, unknown>;
  runs: RunRecord[];
  /** `with_skill`, the baseline's (`without_skill` or `old_skill`), and `delta`. */
  run_summary: {
    with_skill: ConfigSummary;
    without_skill?: ConfigSummary;
    old_skill?: ConfigSummary;
    delta: ReturnType<typeof deltaOf>;
  };
  notes: string[];
}

interface OutputEvalResult {
  iterationDir: string;
  benchmark: Benchmark;
}

/** The configurations compared: the skill, and no skill or (`--baseline`) its old version. */
export function configurations(request: Pick<OutputEvalRequest, "baseline">): Configuration[] {
  return ["with_skill", request.baseline ? "old_skill" : "without_skill"];
}

interface Job {
  evalCase: EvalCase;
  configuration: Configuration;
  run: number;
}

/** The number of the next iteration: one past the highest `iteration-N` there. */
async function nextIteration(root: string): Promise<number> {
  let highest = 0;
  try {
    for await (const entry of Deno.readDir(root)) {
      const match = /^iteration-(\d+)$/.exec(entry.name);
      if (entry.isDirectory && match) highest = Math.max(highest, Number(match[1]));
    }
  } catch { /* a workspace not made yet */ }
  return highest + 1;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2) + "\n");
}

/** Mechanical checks, then the skill's verifiers, then the judge for what is left. */
async function gradeRun(
  evalCase: EvalCase,
  material: GradingMaterial,
  verifiers: readonly string[],
  setting: VerifierSetting,
  openJudge: () => ReturnType<EvalModels["open"]>,
): Promise<AssertionResult[]> {
  const decided = new Map<string, AssertionResult>();
  for (const text of evalCase.assertions) {
    const result = await mechanicalCheck(text, material);
    if (result) decided.set(text, result);
  }
  for (const verifier of verifiers) {
    const pending = evalCase.assertions.filter((a) => !decided.has(a));
    if (pending.length === 0) break;
    for (const [text, result] of await runVerifier(verifier, pending, material, setting)) {
      decided.set(text, result);
    }
  }
  const left = evalCase.assertions.filter((a) => !decided.has(a));
  if (left.length > 0) {
    const { model, tape } = await openJudge();
    for (const result of await judge(left, material, model, setting.signal)) {
      decided.set(result.text, result);
    }
    await tape.save();
  }
  return evalCase.assertions.map((a) => decided.get(a)!);
}

function gradingDocument(results: AssertionResult[], outcome: RunOutcome, transcript: string) {
  const passed = results.filter((r) => r.passed).length;
  const calls = outcome.turn.toolCalls;
  const byTool: Record<string, number> = {};
  for (const call of calls) byTool[call.name] = (byTool[call.name] ?? 0) + 1;
  return {
    assertion_results: results,
    // skill-creator's viewer and aggregate_benchmark.py read the same list by this name
    expectations: results,
    summary: {
      passed,
      failed: results.length - passed,
      total: results.length,
      pass_rate: results.length === 0 ? 0 : Math.round((passed / results.length) * 10_000) / 10_000,
    },
    execution_metrics: {
      tool_calls: byTool,
      total_tool_calls: calls.length,
      total_steps: outcome.turn.steps,
      errors_encountered: calls.filter((c) => !c.result.success).length,
      output_chars: outcome.answer.length,
      transcript_chars: transcript.length,
    },
  };
}

export async function runOutputEvals(request: OutputEvalRequest): Promise<OutputEvalResult> {
  const { evalSet, skill } = request;
  await Deno.mkdir(request.workspaceRoot, { recursive: true });
  const iteration = await nextIteration(request.workspaceRoot);
  const iterationDir = join(request.workspaceRoot, `iteration-${iteration}`);
  await Deno.mkdir(iterationDir);
  try {
    for (const evalCase of evalSet.evals) {
      const dir = join(iterationDir, evalDirName(evalCase));
      await Deno.mkdir(dir);
      await writeJson(join(dir, "eval_metadata.json"), {
        eval_id: evalCase.id,
        eval_name: evalCase.name,
        prompt: evalCase.prompt,
        expected_output: evalCase.expected_output,
        files: evalCase.files,
        assertions: evalCase.assertions,
      });
    }
    const jobs: Job[] = evalSet.evals.flatMap((evalCase) =>
      configurations(request).flatMap((configuration) =>
        Array.from({ length: request.runs }, (_, k) => ({ evalCase, configuration, run: k + 1 }))
      )
    );
    const verifiers = await listVerifiers(skill.dir);
    const runs = await runPool(
      jobs,
      request.jobs,
      (job, _i, signal) => runJob(job, iterationDir, verifiers, request, signal),
      {
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      },
    );
    const benchmark = benchmarkOf(request, runs);
    await writeJson(join(iterationDir, "benchmark.json"), benchmark);
    return { iterationDir, benchmark };
  } catch (error) {
    await Deno.remove(iterationDir, { recursive: true }).catch(() => {});
    throw error;
  }
}

async function runJob(
  job: Job,
  iterationDir: string,
  verifiers: readonly string[],
  request: OutputEvalRequest,
  signal: AbortSignal,
): Promise<RunRecord> {
  const { evalCase, configuration, run } = job;
  const where = `${evalDirName(evalCase)}/${configuration}/run-${run}`;
  const runDir = join(iterationDir, where);
  await Deno.mkdir(runDir, { recursive: true });
  const { model, tape } = await request.models.open(`outputs/${where}`);
  const skills = configuration === "with_skill"
    ? [request.skill]
    : configuration === "old_skill"
    ? [request.baseline!.skill]
    : [];
  // The author's folders run without a trust step; an installed version must be trusted.
  const allowUntrusted = configuration === "old_skill"
    ? request.baseline!.byPath
    : request.allowUntrusted;
  const outcome = await runOutputCase(evalCase, request.evalsBase, skills, runDir, {
    home: request.home,
    env: request.env,
    model,
    provider: request.models.provider,
    maxSteps: request.maxSteps,
    allowUntrusted,
    signal,
    ...(request.log ? { log: request.log } : {}),
  });
  // A replay reports the times it recorded, so its files are the recording's.
  const timing = tape.recordedTiming ?? outcome.timing;
  await tape.save(outcome.timing);
  const transcript = transcriptMarkdown(evalCase, outcome);
  await Deno.writeTextFile(join(runDir, "transcript.md"), transcript);
  await writeJson(join(runDir, "timing.json"), timing);
  const material = {
    answer: outcome.answer,
    outputsDir: join(runDir, "outputs"),
    outputs: outcome.outputs,
  };
  const results = await gradeRun(evalCase, material, verifiers, {
    skill: request.skill,
    home: request.home,
    env: request.env,
    allowUntrusted: request.allowUntrusted,
    signal,
  }, () => request.models.open(`grading/${where}`));
  const grading = gradingDocument(results, outcome, transcript);
  await writeJson(join(runDir, "grading.json"), grading);
  return {
    eval_id: evalCase.id,
    eval_name: evalCase.name,
    configuration,
    run_number: run,
    result: {
      pass_rate: grading.summary.pass_rate,
      passed: grading.summary.passed,
      failed: grading.summary.failed,
      total: grading.summary.total,
      time_seconds: Number(timing.total_duration_seconds ?? 0),
      tokens: Number(timing.total_tokens ?? 0),
      tool_calls: grading.execution_metrics.total_tool_calls,
      errors: grading.execution_metrics.errors_encountered,
    },
    expectations: results,
    notes: [],
  };
}

function benchmarkOf(request: OutputEvalRequest, runs: RunRecord[]): Benchmark {
  const summaryOf = (configuration: Configuration) =>
    configSummary(
      runs.filter((r) => r.configuration === configuration).map((r) => ({
        pass_rate: r.result.pass_rate,
        time_seconds: r.result.time_seconds,
        tokens: r.result.tokens,
      })),
    );
  const [, baseline] = configurations(request) as [Configuration, Configuration];
  const withSkill = summaryOf("with_skill");
  const withoutSkill = summaryOf(baseline);
  return {
    metadata: {
      skill_name: request.skill.canonical,
      skill_path: request.skill.dir,
      ...(request.baseline ? { baseline_path: request.baseline.skill.dir } : {}),
      executor_model: request.models.provider.label,
      analyzer_model: request.models.provider.label,
      timestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      evals_run: request.evalSet.evals.map((e) => e.id),
      runs_per_configuration: request.runs,
    },
    runs,
    run_summary: {
      with_skill: withSkill,
      ...(baseline === "old_skill" ? { old_skill: withoutSkill } : { without_skill: withoutSkill }),
      delta: deltaOf(withSkill, withoutSkill),
    },
    notes: [],
  };
}
