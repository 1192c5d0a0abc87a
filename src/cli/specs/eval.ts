/** `skills eval` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";
import { number, oneOf } from "../args.ts";

const HINT = "Run `skills eval --help` for usage";

const fraction = (flag: string) => ({
  type: "string" as const,
  value: "X",
  parse: number({
    min: -1,
    max: 1,
    invalid: (text) =>
      new UsageError(`Invalid --${flag} '${text}': expected a fraction such as 0.8`, HINT),
  }),
});

const whole = (flag: string, max: number) =>
  number({
    integer: true,
    min: 1,
    max,
    invalid: (text) =>
      new UsageError(`Invalid --${flag} '${text}': expected a whole number from 1 to ${max}`, HINT),
  });

export const evalSpec = {
  name: "eval",
  order: 205,
  summary: "Measure a skill: outputs with and without it, and triggering",
  guide: "writing-skills.md",
  usage: [
    "eval [skill | path] [--evals FILE] [--runs N] [--jobs N] [gate options]",
    "eval [skill | path] --triggers [--queries FILE] [--with a,b] [gate options]",
  ],
  description: `Measure whether a skill helps, as the agentskills.io guides describe.

Output evals (default): each eval of the skill's evals/evals.json runs through the same
agent loop as \`skills chat -p\`, with the skill and without it (the baseline), --runs
times, each run in a fresh workspace holding the eval's files, its scripts in the
sandbox. Results go to the next iteration-N/ of <skill>-workspace/ beside the skill
folder (an installed skill's: in this folder; or --workspace DIR):
eval-<id>-<name>/{with_skill,without_skill}/run-<k>/ with outputs/, transcript.md,
timing.json and grading.json, and iteration-N/benchmark.json. Each assertion is graded by
a mechanical check when it is one (file \`x\` exists, \`x\` is valid JSON, the output
contains "x", the output matches /re/), else by the skill's evals/check_*.py|ts verifiers
(run in the sandbox), else by the model as a judge that must quote its evidence; an eval
with no assertions is judged against its expected_output.

Trigger evals (--triggers): each query of eval_queries.json goes to the model --runs
times (default 3) with the skill among the other skills (--with, default the active
ones); a run triggered when the model activates the skill or reads its SKILL.md.
Precision, recall and F1 for all queries and a fixed 60/40 train/validation split.
--improve runs the guide's description loop and prints the proposal with its scores.

PATH evaluates that folder as the skill under test: its scripts run in the sandbox without
a trust step (you are its author), and its evals are also found where published skills
keep them: evals.json beside SKILL.md, or the evals/ folder or root of the plugin it is
the one skill of (<plugin>/skills/<name>/). SKILL names an installed skill, which must be
trusted.`,
  flags: {
    runs: {
      type: "string",
      value: "N",
      parse: whole("runs", 100),
      description: "Runs per eval and configuration (default 1), or per query (default 3)",
    },
    jobs: {
      type: "string",
      value: "N",
      parse: whole("jobs", 32),
      description: "Runs at a time (default 1); 429 answers are retried after Retry-After",
    },
    triggers: { type: "boolean", description: "Trigger evals instead of output evals" },
    improve: {
      type: "boolean",
      description: `With --triggers: revise the description from the train split's failures (at
most 5 iterations, 1,024 characters), print the best by validation; writes nothing`,
    },
    evals: {
      type: "string",
      value: "FILE",
      description: `The output evals (default: the skill's evals/evals.json); an eval's files are
relative to the folder holding the file's evals/ folder, or to the file's folder`,
    },
    queries: {
      type: "string",
      value: "FILE",
      description: "The trigger queries (default: the skill's evals/eval_queries.json)",
    },
    with: {
      type: "string",
      value: "a,b",
      complete: "skill-list",
      description: "The other skills the model sees in trigger evals (default: the active ones)",
    },
    workspace: {
      type: "string",
      value: "DIR",
      description: "Where results go (default: <skill>-workspace)",
    },
    baseline: {
      type: "string",
      value: "PATH|installed",
      description: `Compare with the previous version (a folder, or the installed skill of the
same name) instead of no skill; its runs go to old_skill/`,
    },
    "max-steps": {
      type: "string",
      value: "N",
      parse: whole("max-steps", 1000),
      description: "Model requests per output run before giving up (default 12)",
    },
    "min-pass-rate": {
      ...fraction("min-pass-rate"),
      description: "Gate: pass rate with the skill",
    },
    "min-delta": { ...fraction("min-delta"), description: "Gate: pass rate with minus without" },
    "min-recall": { ...fraction("min-recall"), description: "Gate: trigger recall" },
    "min-precision": { ...fraction("min-precision"), description: "Gate: trigger precision" },
    split: {
      type: "string",
      value: "all|train|validation",
      parse: oneOf(
        ["all", "train", "validation"],
        (text) => new UsageError(`Invalid --split '${text}'`, "Use all, train or validation"),
      ),
      description: "Which queries the recall and precision gates read (default all)",
    },
    against: {
      type: "string",
      value: "FILE",
      description: "Gate: compare with an earlier benchmark.json (or trigger report)",
    },
    "max-drop": {
      ...fraction("max-drop"),
      description: "Gate: how far the pass rate may fall (default 0)",
    },
    junit: {
      type: "string",
      value: "FILE",
      description: "Write JUnit XML (one testcase per eval or query)",
    },
    record: { type: "string", value: "DIR", description: "Keep every model response in DIR" },
    replay: {
      type: "string",
      value: "DIR",
      description: "Answer from a recording instead of a provider (no key, no network)",
    },
    yes: {
      type: "boolean",
      short: "y",
      description: "Do not ask before sending requests (required when stdin is not a terminal)",
    },
    json: jsonFlag("One JSON document on stdout: the benchmark, or the per-query trigger results"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "skill", complete: "path" }],
  sections: [
    {
      title: "Environment",
      text: `
  SKILLS_MODEL, OPENAI_API_KEY, ANTHROPIC_API_KEY, SKILLS_API_KEY, SKILLS_BASE_URL
                        the model, as for \`skills chat\` (not needed with --replay)`,
    },
    {
      title: "Exit codes",
      text: `0 evaluated (and the gate, if any, passed), 1 the gate failed, 2 usage error,
3 could not run (no evals, a provider error, a recording without the response asked for),
130 interrupted.`,
    },
  ],
} as const satisfies CommandSpec;
