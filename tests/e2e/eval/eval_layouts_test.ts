/**
 * `skills eval` of skills laid out as published repositories keep their evals, end to end with
 * the scripted eval model: a plugin whose one skill sits in `skills/<name>/` and whose evals
 * live in the plugin's own `evals/` folder (a bare list, `eval_name`, input files under
 * `evals/fixtures/` that the prompt names by path, an eval without assertions), and trigger
 * queries kept as `prompt`s in an `evals.json` at the plugin's root.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readJson, withEvalFixture } from "../../helpers/eval_fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Moves the fixture skill into `<root>/plugin/skills/`, its own eval files left out. */
async function asPlugin(
  root: string,
  skillDir: string,
): Promise<{ plugin: string; skill: string }> {
  const plugin = join(root, "plugin");
  const skill = join(plugin, "skills", "report-writer");
  await Deno.mkdir(join(plugin, "skills"), { recursive: true });
  await Deno.rename(skillDir, skill);
  await Deno.mkdir(join(plugin, ".claude-plugin"));
  await Deno.writeTextFile(join(plugin, ".claude-plugin", "plugin.json"), '{"name":"reports"}\n');
  await Deno.mkdir(join(plugin, "evals", "fixtures", "q1"), { recursive: true });
  await Deno.rename(
    join(skill, "evals", "files", "sales.csv"),
    join(plugin, "evals", "fixtures", "q1", "sales.csv"),
  );
  await Deno.remove(join(skill, "evals", "evals.json"));
  await Deno.remove(join(skill, "evals", "eval_queries.json"));
  return { plugin, skill };
}

Deno.test("skills eval PATH of a plugin's one skill reads the plugin's evals, files at the path the prompt names", async () => {
  await withEvalFixture(async (f) => {
    const { plugin } = await asPlugin(f.root, f.skillDir);
    await Deno.writeTextFile(
      join(plugin, "evals", "evals.json"),
      JSON.stringify([
        {
          id: 0,
          eval_name: "quarter in its folder",
          prompt: "The numbers are in evals/fixtures/q1. READ evals/fixtures/q1/sales.csv please.",
          expected_output: "A report naming the best month.",
          files: ["evals/fixtures/q1/sales.csv"],
        },
        {
          id: 1,
          prompt: "Here is sales.csv. Which month sold best?",
          files: ["evals/fixtures/q1/sales.csv"],
          expectations: ['The output contains "March"'],
        },
      ]),
    );
    const r = await f.eval(["./plugin/skills/report-writer", "--yes", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /Evals from .*plugin\/evals\/evals\.json \(the skill has no evals\/evals\.json\)/,
    );
    const iteration = join(plugin, "skills", "report-writer-workspace", "iteration-1");
    const benchmark = await readJson(join(iteration, "benchmark.json"));
    assert.equal(benchmark.run_summary.with_skill.pass_rate.mean, 1);
    assert.equal(benchmark.run_summary.without_skill.pass_rate.mean, 0);
    // The eval without assertions is judged against what it expects.
    const judged = await readJson(
      join(iteration, "eval-0-quarter-in-its-folder", "with_skill", "run-1", "grading.json"),
    );
    assert.deepEqual(judged.assertion_results.map((a: Json) => [a.text, a.method]), [
      ["The response does what the eval expected: A report naming the best month.", "judge"],
    ]);
    // The second eval's prompt names no folder: its file is at the workspace's top, where
    // `summarize sales.csv` finds it.
    const top = await readJson(
      join(iteration, "eval-1-here-is-sales-csv-which", "with_skill", "run-1", "grading.json"),
    );
    assert.deepEqual(top.summary, { passed: 1, failed: 0, total: 1, pass_rate: 1 });
  });
});

Deno.test("skills eval PATH --triggers reads a plugin's evals.json of prompts; output evals of it say --triggers", async () => {
  await withEvalFixture(async (f) => {
    const { plugin } = await asPlugin(f.root, f.skillDir);
    await Deno.writeTextFile(
      join(plugin, "evals.json"),
      JSON.stringify([
        { prompt: "total the sales in this report", should_trigger: true, notes: "the core use" },
        { prompt: "what is the capital of France", should_trigger: false },
      ]),
    );
    const triggers = await f.eval([
      "./plugin/skills/report-writer",
      "--triggers",
      "--with",
      "kalshi-markets",
      "--runs",
      "1",
      "--yes",
      "--json",
    ]);
    assert.equal(triggers.code, 0, triggers.stderr);
    assert.match(triggers.stderr, /Evals from .*plugin\/evals\.json/);
    const report = JSON.parse(triggers.stdout);
    assert.deepEqual(
      report.results.map((q: Json) => [q.query, q.should_trigger, q.pass]),
      [
        ["total the sales in this report", true, true],
        ["what is the capital of France", false, true],
      ],
    );

    const outputs = await f.eval(["./plugin/skills/report-writer", "--yes"]);
    assert.equal(outputs.code, 3, outputs.stderr);
    assert.match(outputs.stderr, /plugin\/evals\.json holds trigger queries/);
    assert.match(outputs.stderr, /with --triggers reads that file/);
  });
});

Deno.test("skills eval: an input file that is a link out of the skill's folders is refused, and never reaches the model", async () => {
  await withEvalFixture(async (f) => {
    const { plugin } = await asPlugin(f.root, f.skillDir);
    // A cloned repository's link to a file of yours, named as an eval's input.
    const secret = join(f.root, "private.txt");
    await Deno.writeTextFile(secret, "month,revenue\nSECRET-7f3a,1\n");
    await Deno.symlink(secret, join(plugin, "evals", "fixtures", "q1", "more.csv"));
    await Deno.writeTextFile(
      join(plugin, "evals", "evals.json"),
      JSON.stringify([{
        prompt: "Here is more.csv. READ more.csv and tell me the best month.",
        files: ["evals/fixtures/q1/more.csv"],
        expectations: ['The output contains "March"'],
      }]),
    );
    const r = await f.eval(["./plugin/skills/report-writer", "--yes"]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /Eval input file 'evals\/fixtures\/q1\/more\.csv' leads to .*private\.txt/,
    );
    // Refused while planning: nothing was asked or sent.
    assert.doesNotMatch(r.stderr, /This eval sends/);
    assert.equal(f.llm.requests.length, 0);
  });
});
