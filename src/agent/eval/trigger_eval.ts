/**
 * `skills eval --triggers`: does the model pick the skill for the requests it is meant for,
 * among the other skills a user has? Each query goes out `--runs` times with the system
 * prompt and tools our agent sends (the catalog: the skill and the `--with` skills). The
 * first response decides, and the run stops there, before any tool runs: triggered when one
 * of its tool calls activates the skill or reads its SKILL.md; not triggered when the model
 * answers in text or calls anything else. Rates, the 0.5 threshold, the fixed split and
 * precision/recall/F1 follow the agentskills.io guide; the per-query keys skill-creator's.
 */

import { canonicalSkillName } from "../../core/names.ts";
import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { runModelStep, type StepToolCall } from "../chat/model_step.ts";
import { createToolSurface } from "../surface/tools.ts";
import type { ToolSurface } from "../surface/tool_surface.ts";
import type { TriggerQuery } from "./eval_files.ts";
import type { EvalModels } from "./model_tape.ts";
import { evalCatalog } from "./output_run.ts";
import { type Progress, runPool } from "./pool.ts";
import {
  queryPasses,
  type Split,
  splitQueries,
  type TriggerMetrics,
  triggerMetrics,
} from "./stats.ts";

interface TriggerRequest {
  skill: LoadedSkill;
  /** The other skills in the catalog (the competition). */
  others: LoadedSkill[];
  queries: TriggerQuery[];
  runs: number;
  jobs: number;
  home: string;
  env: Readonly<Record<string, string>>;
  models: EvalModels;
  /** A description to try instead of the skill's own (`--improve`). */
  description?: string;
  /** Which queries to run (default all), by index. */
  only?: ReadonlySet<number>;
  /** Tape scope prefix, so each description tried has its own recording. */
  scope?: string;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
}

/** One query's result, with skill-creator's keys (and its split). */
interface QueryResult {
  query: string;
  should_trigger: boolean;
  trigger_rate: number;
  triggers: number;
  runs: number;
  pass: boolean;
  split: Split;
}

export interface TriggerReport {
  skill_name: string;
  description: string;
  results: QueryResult[];
  summary: { total: number; passed: number; failed: number };
  metrics: { all: TriggerMetrics; train: TriggerMetrics; validation: TriggerMetrics };
  /** Model requests made (0 on replay). */
  model_requests: number;
}

/** Whether one tool call reaches `skill`: activating it, or reading its SKILL.md. */
export function callTriggers(call: StepToolCall, skill: string): boolean {
  const args = (call.input ?? {}) as Record<string, unknown>;
  const named = [args.name, args.skill, args.skill_name].find((v) => typeof v === "string");
  if (typeof named !== "string" || canonicalSkillName(named) !== skill) return false;
  if (call.name === "activate_skill") return true;
  if (call.name !== "read_skill_file") return false;
  const path = [args.path, args.file].find((v) => typeof v === "string");
  return typeof path === "string" && path.replace(/^\.?\//, "").toLowerCase() === "skill.md";
}

async function oneRun(
  surface: ToolSurface,
  request: TriggerRequest,
  query: string,
  scope: string,
  signal: AbortSignal,
): Promise<boolean> {
  const { model, tape } = await request.models.open(scope);
  const step = await runModelStep({
    model,
    instructions: surface.systemPrompt,
    messages: [{ role: "user", content: query }],
    tools: surface.listTools(),
    stream: false,
    signal,
    maxRetries: 0,
  });
  await tape.save();
  return step.toolCalls.some((call) => callTriggers(call, request.skill.canonical));
}

/** The skill as the catalog shows it, with the description under test. */
function withDescription(skill: LoadedSkill, description: string | undefined): LoadedSkill {
  if (description === undefined) return skill;
  return { ...skill, manifest: { ...skill.manifest, description } };
}

export async function runTriggerEvals(request: TriggerRequest): Promise<TriggerReport> {
  const skill = withDescription(request.skill, request.description);
  const skills = [skill, ...request.others.filter((s) => s.canonical !== skill.canonical)];
  const surface = await createToolSurface({
    home: request.home,
    catalog: evalCatalog(request.home, skills),
    active: new Set(skills.map((s) => s.canonical)),
    env: request.env,
    includeLocation: true,
  });
  const splits = splitQueries(request.queries.map((q) => q.should_trigger));
  const chosen = request.queries.flatMap((_q, i) =>
    request.only === undefined || request.only.has(i) ? [i] : []
  );
  const runs = chosen.flatMap((index) =>
    Array.from({ length: request.runs }, (_, k) => ({ index, run: k + 1 }))
  );
  let requests = 0;
  const prefix = request.scope ?? "triggers";
  try {
    const outcomes = await runPool(
      runs,
      request.jobs,
      (job, _i, signal) => {
        const scope = `${prefix}/q${String(job.index + 1).padStart(3, "0")}/run-${job.run}`;
        requests++;
        return oneRun(surface, request, request.queries[job.index]!.query, scope, signal);
      },
      {
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      },
    );
    const results = chosen.map((index) => {
      const q = request.queries[index]!;
      const triggers = runs.filter((r, i) => r.index === index && outcomes[i]).length;
      const rate = triggers / request.runs;
      return {
        query: q.query,
        should_trigger: q.should_trigger,
        trigger_rate: Math.round(rate * 10_000) / 10_000,
        triggers,
        runs: request.runs,
        pass: queryPasses(q.should_trigger, rate),
        split: splits[index]!,
      };
    });
    const passed = results.filter((r) => r.pass).length;
    return {
      skill_name: skill.canonical,
      description: skill.manifest.description,
      results,
      summary: { total: results.length, passed, failed: results.length - passed },
      metrics: {
        all: triggerMetrics(results),
        train: triggerMetrics(results.filter((r) => r.split === "train")),
        validation: triggerMetrics(results.filter((r) => r.split === "validation")),
      },
      model_requests: request.models.mode.kind === "replay" ? 0 : requests,
    };
  } finally {
    await surface.close();
  }
}
