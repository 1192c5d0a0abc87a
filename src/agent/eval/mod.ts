/**
 * agent/eval — `skills eval`: does a skill help? Output evals (`output_eval`: every eval of
 * `evals/evals.json` with and without the skill, one run at a time in `output_run` through the
 * chat loop, scripts sandboxed in a fresh workspace; graded in `grading`: mechanical checks,
 * the skill's verifiers, an LLM judge that must quote its evidence), trigger evals
 * (`trigger_eval`: the first response to each query decides), the files they read
 * (`eval_files`), the numbers (`stats`), jobs in parallel (`pool`), the model with its
 * recording, replay and backoff (`model_tape`), the description loop of --improve (`improve`),
 * the CI gate and JUnit (`ci_gate`),
 * and the workflow the command calls (`workflow`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
