/**
 * `skills eval`. Two rows: the harness's own cost per trigger run — the catalog, the prompt,
 * the request built and sent, the first response decided, the tape — with a model that
 * answers at once (a `fetch` that returns a canned chat completion), against the model step
 * alone through the same AI SDK client; and the fixture skill's 20 queries × 3 runs through
 * the CLI with `--jobs 4` against the scripted eval model on loopback (answering after 100 ms,
 * as a model would take), against `--jobs 1`.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import type { BenchRow, Measured } from "../lib.ts";
import { measurePair, median, round } from "../lib.ts";
import { createLanguageModel, resolveProviderConfig } from "../../src/agent/chat/providers.ts";
import { runModelStep } from "../../src/agent/chat/model_step.ts";
import { ModelTape } from "../../src/agent/eval/model_tape.ts";
import type { EvalModels } from "../../src/agent/eval/model_tape.ts";
import { runTriggerEvals } from "../../src/agent/eval/trigger_eval.ts";
import { loadStoredSkills } from "../../src/agent/library/stored_skills.ts";
import { startLlmServer } from "../../tests/fixtures/llm_server.ts";
import { evalModel } from "../../tests/fixtures/eval_model.ts";
import { EVAL_SKILL_FIXTURE } from "../../tests/helpers/eval_fixture.ts";

const QUERIES = 20;
const RUNS = 3;
/** The scripted model's latency in the --jobs row: parallel runs wait on the model together. */
const LATENCY_MS = 100;

/** A chat completion that activates the skill, returned at once: a model of zero latency. */
const instantFetch: typeof globalThis.fetch = () =>
  Promise.resolve(Response.json({
    id: "c",
    object: "chat.completion",
    created: 0,
    model: "instant",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "t",
          type: "function",
          function: { name: "activate_skill", arguments: '{"name":"report-writer"}' },
        }],
      },
      finish_reason: "tool_calls",
    }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }));

function measured(values: number[]): Measured {
  return {
    medianMs: round(median(values)),
    minMs: round(Math.min(...values)),
    maxMs: round(Math.max(...values)),
    peakRssMiB: null,
    runs: values.length,
  };
}

async function perRunRow(ctx: BenchContext): Promise<BenchRow> {
  const provider = resolveProviderConfig({ SKILLS_MODEL: "openai:instant", OPENAI_API_KEY: "x" });
  const models: EvalModels = {
    provider,
    mode: { kind: "live" },
    open: async (scope) => {
      const tape = await ModelTape.open(scope, { kind: "live" }, {}, instantFetch);
      return { model: createLanguageModel(provider, tape.fetch), tape };
    },
  };
  const [skill] = await loadStoredSkills(EVAL_SKILL_FIXTURE);
  const queries = Array.from({ length: QUERIES }, (_, i) => ({
    query: `query ${i} about sales`,
    should_trigger: i % 2 === 0,
  }));
  const request = {
    skill: skill!,
    others: [],
    queries,
    runs: RUNS,
    jobs: 1,
    home: join(ctx.tmp, "eval-home"),
    env: {},
    models,
  };
  const model = createLanguageModel(provider, instantFetch);
  const harness: number[] = [];
  const bare: number[] = [];
  for (let round = -1; round < Math.min(ctx.runs, 7); round++) {
    let started = performance.now();
    await runTriggerEvals(request);
    const perRun = (performance.now() - started) / (QUERIES * RUNS);
    started = performance.now();
    for (let i = 0; i < QUERIES * RUNS; i++) {
      await runModelStep({
        model,
        instructions: "x",
        messages: [{ role: "user", content: "q" }],
        tools: [],
        stream: false,
      });
    }
    const perStep = (performance.now() - started) / (QUERIES * RUNS);
    if (round >= 0) {
      harness.push(perRun);
      bare.push(perStep);
    }
  }
  const value = measured(harness);
  const baseline = measured(bare);
  return {
    name: "skills eval --triggers: one trigger run, zero-latency model (in process)",
    value,
    baselineName: "the model step alone through the same AI SDK client",
    baseline,
    target: "≤ 50 ms per run beyond the model",
    pass: value.medianMs - baseline.medianMs <= 50,
    note: `mean of ${QUERIES} queries × ${RUNS} runs per sample`,
  };
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

async function jobsRow(ctx: BenchContext): Promise<BenchRow> {
  const root = join(ctx.tmp, "eval-cli");
  await copyDir(EVAL_SKILL_FIXTURE, join(root, "report-writer"));
  await Deno.mkdir(join(root, "home"), { recursive: true });
  const llm = await startLlmServer([], { respond: evalModel, latencyMs: LATENCY_MS });
  try {
    const spec = (jobs: number) => ({
      cmd: ctx.cli.cmd,
      args: [
        ...ctx.cli.args,
        "eval",
        "./report-writer",
        "--triggers",
        "--with",
        "kalshi-markets",
        "--yes",
        "--jobs",
        String(jobs),
      ],
      cwd: root,
      env: {
        HOME: ctx.tmp,
        DENO_DIR: ctx.denoDir,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        SKILLS_HOME: join(root, "home"),
        SKILLS_MODEL: "openai:scripted",
        OPENAI_API_KEY: "sk-bench",
        SKILLS_BASE_URL: llm.baseUrl,
      },
    });
    const { baseline, value } = await measurePair(spec(1), spec(4), Math.min(ctx.runs, 5));
    return {
      name:
        `skills eval --triggers: ${QUERIES} queries × ${RUNS} runs, --jobs 4 (scripted model, ${LATENCY_MS} ms)`,
      value,
      baselineName: "the same with --jobs 1",
      baseline,
      target: "≤ 0.7× --jobs 1",
      pass: value.medianMs <= baseline.medianMs * 0.7,
      note: `the whole command: start-up, catalog, ${QUERIES * RUNS} requests to a loopback ` +
        `server answering after ${LATENCY_MS} ms, the report`,
    };
  } finally {
    await llm.close();
  }
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  return [await perRunRow(ctx), await jobsRow(ctx)];
}
