/**
 * `skills eval --triggers --improve`: the description-optimisation loop of the agentskills.io
 * guide. Each iteration evaluates a description on every query; the model then revises it
 * from the failures of the train split only (the validation queries never reach it); at most
 * {@link MAX_ITERATIONS} descriptions are tried, none over {@link MAX_DESCRIPTION} characters,
 * and the best is the one with the highest validation pass rate (then train, then the
 * earliest). Nothing is written: the command prints the proposal with its scores.
 */

import { runModelStep } from "../chat/model_step.ts";
import type { TriggerMetrics } from "./stats.ts";
import { runTriggerEvals, type TriggerReport } from "./trigger_eval.ts";

export const MAX_ITERATIONS = 5;
export const MAX_DESCRIPTION = 1024;

interface Iteration {
  iteration: number;
  description: string;
  train: TriggerMetrics;
  validation: TriggerMetrics;
}

export interface Improvement {
  skill_name: string;
  original: string;
  best: Iteration;
  iterations: Iteration[];
}

const REVISE_INSTRUCTIONS =
  "You revise the description of an Agent Skill, the only text an agent reads when it decides " +
  "whether to load the skill. Make it say what the skill does and when to use it, in the " +
  "imperative ('Use this skill when…'). Generalise from the failures you are shown: name the " +
  "kind of request, not the words of one query; say what the skill is not for where it was " +
  `used wrongly. At most ${MAX_DESCRIPTION} characters. Reply with the new description only.`;

/** The reply as a description: unquoted, on its whole sentences within the limit. */
export function descriptionOf(reply: string): string {
  let text = reply.trim().replace(/^description:\s*/i, "").replace(/^["'`]+|["'`]+$/g, "").trim();
  if (text.length <= MAX_DESCRIPTION) return text;
  text = text.slice(0, MAX_DESCRIPTION);
  const end = Math.max(text.lastIndexOf(". "), text.lastIndexOf(".\n"));
  return end > MAX_DESCRIPTION / 2 ? text.slice(0, end + 1) : text;
}

/** The revision request: the current description and the train split's failures only. */
function revisionPrompt(skill: string, description: string, report: TriggerReport): string {
  const failures = report.results.filter((r) => r.split === "train" && !r.pass);
  const lines = failures.map((r) =>
    `- ${r.should_trigger ? "should have used the skill, did not" : "used the skill wrongly"}` +
    ` (${r.triggers}/${r.runs}): ${r.query}`
  );
  return [
    `Skill: ${skill}`,
    `Current description: ${description}`,
    "Requests it failed:",
    ...lines,
  ].join("\n");
}

type TriggerRequest = Parameters<typeof runTriggerEvals>[0];

function better(a: Iteration, b: Iteration): boolean {
  if (a.validation.pass_rate !== b.validation.pass_rate) {
    return a.validation.pass_rate > b.validation.pass_rate;
  }
  return a.train.pass_rate > b.train.pass_rate;
}

export async function improveDescription(request: TriggerRequest): Promise<Improvement> {
  const original = request.skill.manifest.description;
  const iterations: Iteration[] = [];
  let description = original;
  for (let i = 1; i <= MAX_ITERATIONS; i++) {
    const report = await runTriggerEvals({
      ...request,
      description,
      scope: `improve/iteration-${i}`,
    });
    iterations.push({
      iteration: i,
      description,
      train: report.metrics.train,
      validation: report.metrics.validation,
    });
    const trainFailures = report.results.some((r) => r.split === "train" && !r.pass);
    if (!trainFailures || i === MAX_ITERATIONS) break;
    const { model, tape } = await request.models.open(`improve/revision-${i}`);
    const step = await runModelStep({
      model,
      instructions: REVISE_INSTRUCTIONS,
      messages: [{
        role: "user",
        content: revisionPrompt(request.skill.canonical, description, report),
      }],
      tools: [],
      stream: false,
      signal: request.signal,
      maxRetries: 0,
    });
    await tape.save();
    const next = descriptionOf(step.text);
    if (next === "" || next === description) break;
    description = next;
  }
  const best = iterations.reduce((a, b) => (better(b, a) ? b : a));
  return { skill_name: request.skill.canonical, original, best, iterations };
}
