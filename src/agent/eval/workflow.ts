/**
 * `skills eval`'s one workflow, in two steps so the command can ask before anything is
 * spent: `planEval` finds the skill (an installed name, or a folder the author names: its
 * scripts then run in the sandbox without a trust step), reads its eval files and counts
 * the model requests; `runEval` runs the plan, writes its results, the JUnit file and
 * decides the gate.
 */

import { basename, dirname, join, resolve } from "node:path";
import type { Context } from "../../core/io.ts";
import { SkillError, UsageError } from "../../core/errors.ts";
import { type Catalog, findSkill, type LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";
import { loadStoredSkills } from "../library/stored_skills.ts";
import {
  type EvalSet,
  findOutputEvals,
  findTriggerQueries,
  readJsonFile,
  type TriggerQuery,
} from "./eval_files.ts";
import {
  evaluateGate,
  type GateOptions,
  type GateResult,
  junitXml,
  passRateOf,
} from "./ci_gate.ts";
import { resolveProviderConfig } from "../chat/providers.ts";
import { evalModels } from "./model_tape.ts";
import type { TapeHooks, TapeMode } from "./model_tape.ts";
import { type Benchmark, configurations, runOutputEvals } from "./output_eval.ts";
import { checkInputFiles } from "./output_run.ts";
import type { Progress } from "./pool.ts";
import { runTriggerEvals, type TriggerReport } from "./trigger_eval.ts";
import { improveDescription, type Improvement, MAX_ITERATIONS } from "./improve.ts";

export interface EvalOptions {
  /** An installed skill's name or a skill folder (default: the current folder). */
  target: string | undefined;
  triggers: boolean;
  /** `--improve` (with --triggers): the description loop; nothing is written. */
  improve: boolean;
  /** `--queries FILE` (default the skill's evals/eval_queries.json). */
  queries: string | undefined;
  /** `--evals FILE` (default the skill's evals/evals.json). */
  evals: string | undefined;
  /** `--with a,b`: the other skills in the catalog for trigger evals (default the active ones). */
  with: string[] | undefined;
  runs: number | undefined;
  jobs: number;
  maxSteps: number;
  workspace: string | undefined;
  /** `--baseline PATH | installed`: the previous version, run as `old_skill`. */
  baseline: string | undefined;
  record: string | undefined;
  replay: string | undefined;
  gate: Omit<GateOptions, "against"> & { againstFile?: string | undefined };
  junit: string | undefined;
}

interface EvalPlan {
  options: EvalOptions;
  skill: LoadedSkill;
  /** The author's folder: its scripts run without a trust step. */
  byPath: boolean;
  home: string;
  env: Readonly<Record<string, string>>;
  evalSet?: EvalSet;
  /** The folder the evals' input files are relative to (the skill's, or its plugin's). */
  evalsBase?: string;
  /** The eval file read, when it is not in the guide's place (said before anything is sent). */
  evalsFrom?: string | undefined;
  baseline?: { skill: LoadedSkill; byPath: boolean } | undefined;
  queries?: TriggerQuery[];
  others: LoadedSkill[];
  runs: number;
  workspaceRoot: string;
  /** The model the requests go to (`provider:model`), said before anything is sent. */
  model: string;
  /** Runs to make, and the most model requests they may take (judge included). */
  count: { runs: number; maxRequests: number };
}

function looksLikePath(target: string): boolean {
  return target === "." || target === ".." || target.includes("/") || target.includes("\\");
}

async function isSkillFolder(dir: string): Promise<boolean> {
  try {
    return (await Deno.stat(join(dir, "SKILL.md"))).isFile;
  } catch {
    return false;
  }
}

async function skillUnderTest(
  target: string | undefined,
  cwd: string,
  catalog: Catalog,
): Promise<{ skill: LoadedSkill; byPath: boolean }> {
  const path = target === undefined ? cwd : resolve(cwd, target);
  if (target === undefined || looksLikePath(target) || await isSkillFolder(path)) {
    if (!await isSkillFolder(path)) {
      throw new UsageError(
        `No skill to evaluate: ${path} has no SKILL.md`,
        "Name an installed skill or a skill folder: skills eval my-skill | skills eval ./my-skill",
      );
    }
    const [skill] = await loadStoredSkills(path);
    return { skill: skill!, byPath: true };
  }
  return { skill: findSkill(catalog, target), byPath: false };
}

/** `--baseline`: a folder (the author's, run without a trust step), or the installed version. */
async function baselineSkill(
  given: string | undefined,
  cwd: string,
  catalog: Catalog,
  skill: LoadedSkill,
  byPath: boolean,
): Promise<{ skill: LoadedSkill; byPath: boolean } | undefined> {
  if (given === undefined) return undefined;
  if (given === "installed") {
    if (!byPath) {
      throw new UsageError(
        "--baseline installed compares a folder with the installed skill of its name",
        "Evaluate the new version's folder: skills eval ./my-skill --baseline installed",
      );
    }
    return { skill: findSkill(catalog, skill.canonical), byPath: false };
  }
  const path = resolve(cwd, given);
  if (!await isSkillFolder(path)) {
    throw new UsageError(
      `Invalid --baseline '${given}': ${path} has no SKILL.md`,
      "Name the old version's folder, or installed",
    );
  }
  const [old] = await loadStoredSkills(path);
  return { skill: old!, byPath: true };
}

function otherSkills(
  names: string[] | undefined,
  catalog: Catalog,
  active: ReadonlySet<string>,
  skill: LoadedSkill,
): LoadedSkill[] {
  const chosen = names === undefined
    ? catalog.skills.filter((s) => active.has(s.canonical))
    : names.map((name) => findSkill(catalog, name));
  return chosen.filter((s) => s.canonical !== skill.canonical);
}

/** The options with every path the user gave made absolute from where the command runs. */
function absolutePaths(options: EvalOptions, cwd: string): EvalOptions {
  const at = (path: string | undefined) => path === undefined ? undefined : resolve(cwd, path);
  return {
    ...options,
    junit: at(options.junit),
    record: at(options.record),
    replay: at(options.replay),
    queries: at(options.queries),
    evals: at(options.evals),
    gate: { ...options.gate, againstFile: at(options.gate.againstFile) },
  };
}

export async function planEval(given: EvalOptions, ctx: Context): Promise<EvalPlan> {
  const options = absolutePaths(given, ctx.cwd);
  const session = await openSession(ctx);
  const { skill, byPath } = await skillUnderTest(options.target, ctx.cwd, session.catalog);
  const workspaceRoot = options.workspace !== undefined
    ? resolve(ctx.cwd, options.workspace)
    : byPath
    ? join(dirname(skill.dir), `${basename(skill.dir)}-workspace`)
    : join(ctx.cwd, `${skill.canonical}-workspace`);
  const base = {
    options,
    skill,
    byPath,
    home: session.home,
    env: ctx.env,
    workspaceRoot,
    model: options.replay === undefined ? resolveProviderConfig(ctx.env).label : "the recording",
    others: options.triggers
      ? otherSkills(options.with, session.catalog, session.active, skill)
      : [],
  };
  if (options.triggers) {
    const found = await findTriggerQueries(skill.dir, byPath, options.queries);
    const queries = found.queries;
    const runs = options.runs ?? 3;
    const count = queries.length * runs;
    const maxRequests = options.improve ? count * MAX_ITERATIONS + MAX_ITERATIONS - 1 : count;
    return {
      ...base,
      queries,
      evalsFrom: found.elsewhere && options.queries === undefined ? found.file : undefined,
      runs,
      count: { runs: count, maxRequests },
    };
  }
  const found = await findOutputEvals(skill.dir, byPath, options.evals);
  const evalSet = found.evalSet;
  await checkInputFiles(evalSet.evals, found.base);
  const runs = options.runs ?? 1;
  const baseline = await baselineSkill(options.baseline, ctx.cwd, session.catalog, skill, byPath);
  const count = evalSet.evals.length * configurations({ baseline }).length * runs;
  return {
    ...base,
    evalSet,
    evalsBase: found.base,
    evalsFrom: found.elsewhere && options.evals === undefined ? found.file : undefined,
    baseline,
    runs,
    count: { runs: count, maxRequests: count * (options.maxSteps + 1) },
  };
}

interface EvalHooks {
  onProgress?: (progress: Progress) => void;
  onRetry?: TapeHooks["onRetry"];
  log?: (message: string) => void;
}

interface EvalOutcome {
  kind: "outputs" | "triggers" | "improve";
  skill: string;
  /** Where the results were written. */
  written: string;
  benchmark?: Benchmark;
  triggers?: TriggerReport;
  improvement?: Improvement;
  gate: GateResult;
  /** Model requests sent (0 on replay). */
  requests: number;
}

function tapeMode(options: EvalOptions): TapeMode {
  if (options.replay !== undefined) return { kind: "replay", dir: options.replay };
  if (options.record !== undefined) return { kind: "record", dir: options.record };
  return { kind: "live" };
}

async function nextTriggerFile(root: string): Promise<string> {
  const dir = join(root, "triggers");
  await Deno.mkdir(dir, { recursive: true });
  let highest = 0;
  for await (const entry of Deno.readDir(dir)) {
    const match = /^triggers-(\d+)\.json$/.exec(entry.name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return join(dir, `triggers-${highest + 1}.json`);
}

async function againstRate(plan: EvalPlan): Promise<GateOptions["against"]> {
  const file = plan.options.gate.againstFile;
  if (file === undefined) return undefined;
  const document = await readJsonFile(file, "the --against result");
  const passRate = passRateOf(document, plan.options.gate.split ?? "all");
  if (passRate === undefined) {
    throw new SkillError("parse_error", `Cannot compare with ${file}: it reports no pass rate`, {
      hint:
        "Pass a benchmark.json of an earlier iteration, or a trigger report written by --triggers",
    });
  }
  return { passRate, file };
}

/** Runs the plan; a run that could not be made throws (exit {@link EXIT_NOT_RUN}). */
export async function runEval(plan: EvalPlan, hooks: EvalHooks, signal?: AbortSignal) {
  const { options } = plan;
  const against = await againstRate(plan);
  let requests = 0;
  const tapeHooks: TapeHooks = {
    onRequest: () => requests++,
    ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}),
  };
  const kind = plan.queries ? "triggers" : "outputs";
  const models = await evalModels(plan.env, tapeMode(options), kind, tapeHooks);

  const common = {
    runs: plan.runs,
    jobs: options.jobs,
    home: plan.home,
    env: plan.env,
    models,
    ...(signal ? { signal } : {}),
    ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
  };
  let outcome: Omit<EvalOutcome, "gate" | "requests">;
  if (plan.queries && options.improve) {
    const improvement = await improveDescription({
      ...common,
      skill: plan.skill,
      others: plan.others,
      queries: plan.queries,
    });
    // --improve proposes; it writes nothing (the author applies the description)
    outcome = { kind: "improve", skill: plan.skill.canonical, written: "", improvement };
  } else if (plan.queries) {
    const report = await runTriggerEvals({
      ...common,
      skill: plan.skill,
      others: plan.others,
      queries: plan.queries,
    });
    const written = await nextTriggerFile(plan.workspaceRoot);
    await Deno.writeTextFile(written, JSON.stringify(report, null, 2) + "\n");
    outcome = { kind, skill: plan.skill.canonical, written, triggers: report };
  } else {
    const result = await runOutputEvals({
      ...common,
      skill: plan.skill,
      workspaceRoot: plan.workspaceRoot,
      evalSet: plan.evalSet!,
      evalsBase: plan.evalsBase!,
      maxSteps: options.maxSteps,
      allowUntrusted: plan.byPath,
      baseline: plan.baseline,
      ...(hooks.log ? { log: hooks.log } : {}),
    });
    outcome = {
      kind,
      skill: plan.skill.canonical,
      written: result.iterationDir,
      benchmark: result.benchmark,
    };
  }
  const gate = evaluateGate({ ...options.gate, against }, outcome.benchmark, outcome.triggers);
  if (options.junit !== undefined && outcome.kind !== "improve") {
    await Deno.writeTextFile(
      options.junit,
      junitXml(plan.skill.canonical, outcome.benchmark, outcome.triggers, gate),
    );
  }
  return { ...outcome, gate, requests } satisfies EvalOutcome;
}
