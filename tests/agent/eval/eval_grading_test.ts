/**
 * The pure parts of `skills eval`: the eval files, the numbers (stddev, split, precision and
 * recall), grading's mechanical checks and the judge's verdicts, the backoff, the gate and
 * its JUnit, and the job pool.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { evalDirName, parseEvalSet, parseQueries } from "../../../src/agent/eval/eval_files.ts";
import { splitQueries, statOf, triggerMetrics } from "../../../src/agent/eval/stats.ts";
import { mechanicalCheck, verdicts } from "../../../src/agent/eval/grading.ts";
import { retryDelay } from "../../../src/agent/eval/model_tape.ts";
import { evaluateGate, junitXml } from "../../../src/agent/eval/ci_gate.ts";
import { runPool } from "../../../src/agent/eval/pool.ts";
import { callTriggers } from "../../../src/agent/eval/trigger_eval.ts";
import { descriptionOf, MAX_DESCRIPTION } from "../../../src/agent/eval/improve.ts";
import { tempDir } from "../../helpers/cli.ts";

Deno.test("parseEvalSet() reads both spellings of the assertion list and names each eval's folder", () => {
  const set = parseEvalSet({
    skill_name: "csv",
    evals: [
      { id: 1, prompt: "Find the top 3 months!", assertions: ["a"], expectations: ["b"] },
      { id: 2, name: "Clean Emails", prompt: "x", files: ["evals/files/c.csv"] },
    ],
  }, "evals.json");
  assert.deepEqual(set.evals[0]!.assertions, ["a", "b"]);
  assert.equal(evalDirName(set.evals[0]!), "eval-1-find-the-top-3-months");
  assert.equal(evalDirName(set.evals[1]!), "eval-2-clean-emails");
  assert.throws(() => parseEvalSet({ evals: [{ id: 1 }] }, "e.json"), /evals\[0\]\.prompt/);
  assert.throws(
    () => parseEvalSet({ evals: [{ id: 1, prompt: "a" }, { id: 1, prompt: "b" }] }, "e.json"),
    /the id 1 twice/,
  );
  assert.throws(
    () => parseQueries([{ query: "q", should_trigger: "yes" }], "q.json"),
    /should_trigger/,
  );
});

Deno.test("statOf() gives the sample standard deviation, as skill-creator's aggregator does", () => {
  assert.deepEqual(statOf([0, 0.5, 0]), { mean: 0.1667, stddev: 0.2887, min: 0, max: 0.5 });
  assert.deepEqual(statOf([0.75]), { mean: 0.75, stddev: 0, min: 0.75, max: 0.75 });
});

Deno.test("splitQueries() is fixed, stratified 60/40, and puts each class in both splits", () => {
  const labels = [...Array(10).fill(true), ...Array(10).fill(false)] as boolean[];
  const split = splitQueries(labels);
  assert.deepEqual(splitQueries(labels), split);
  const count = (label: boolean, s: string) =>
    labels.filter((l, i) => l === label && split[i] === s).length;
  assert.deepEqual([count(true, "train"), count(true, "validation")], [6, 4]);
  assert.deepEqual([count(false, "train"), count(false, "validation")], [6, 4]);
  // a different seed gives a different, equally stratified split
  assert.notDeepEqual(splitQueries(labels, 7), split);
});

Deno.test("triggerMetrics() counts a query as triggered at a rate of 0.5 or more", () => {
  const m = triggerMetrics([
    { should_trigger: true, trigger_rate: 1, pass: true },
    { should_trigger: true, trigger_rate: 0.5, pass: true },
    { should_trigger: true, trigger_rate: 0.33, pass: false },
    { should_trigger: false, trigger_rate: 0.67, pass: false },
    { should_trigger: false, trigger_rate: 0, pass: true },
  ]);
  assert.deepEqual([m.true_positives, m.false_negatives, m.false_positives, m.true_negatives], [
    2,
    1,
    1,
    1,
  ]);
  assert.equal(m.precision, 0.6667);
  assert.equal(m.recall, 0.6667);
  assert.equal(m.f1, 0.6667);
});

Deno.test("callTriggers() sees activation and a SKILL.md read of the skill, nothing else", () => {
  const call = (name: string, input: unknown) => ({ id: "1", name, input });
  assert.ok(callTriggers(call("activate_skill", { name: "Report_Writer" }), "report-writer"));
  assert.ok(
    callTriggers(
      call("read_skill_file", { skill: "report-writer", path: "SKILL.md" }),
      "report-writer",
    ),
  );
  assert.ok(
    !callTriggers(
      call("read_skill_file", { skill: "report-writer", path: "x.md" }),
      "report-writer",
    ),
  );
  assert.ok(!callTriggers(call("activate_skill", { name: "other" }), "report-writer"));
  assert.ok(!callTriggers(call("script_list", { skill_name: "report-writer" }), "report-writer"));
});

Deno.test("mechanicalCheck() decides files, JSON and patterns, and leaves the rest", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "out.json"), '{"a": 1}');
  await Deno.writeTextFile(join(dir.path, "bad.json"), "{");
  const material = {
    answer: "Total: 1234",
    outputsDir: dir.path,
    outputs: ["out.json", "bad.json"],
  };
  const check = (text: string) => mechanicalCheck(text, material);
  assert.equal((await check("file `*.json` exists"))?.passed, true);
  assert.equal((await check("The output file `chart.png` exists"))?.passed, false);
  assert.equal((await check("`out.json` is valid JSON"))?.passed, true);
  assert.equal((await check("`bad.json` is valid JSON"))?.passed, false);
  assert.equal((await check('The output contains "total: 1234"'))?.passed, true);
  assert.equal((await check("The output matches /\\d{5}/"))?.passed, false);
  assert.equal(await check("The chart has labelled axes"), undefined);
});

Deno.test("verdicts(): a PASS must quote the outputs, and an unreadable reply fails without aborting", () => {
  const material = "Best month: March (500).";
  const reply = JSON.stringify({
    assertion_results: [
      { text: "names the month", passed: true, evidence: 'It says "Best month: March"' },
      { text: "is polite", passed: true, evidence: "It reads politely" },
      { text: "has a chart", passed: true, evidence: 'Quote: "a lovely chart"' },
    ],
  });
  const [named, polite, chart] = verdicts(
    `Sure! ${reply}`,
    ["names the month", "is polite", "has a chart"],
    material,
  );
  assert.equal(named!.passed, true);
  assert.equal(polite!.passed, false);
  assert.match(polite!.evidence, /PASS without evidence/);
  assert.equal(chart!.passed, false);
  const broken = verdicts("I think it all passes.", ["a", "b"], material);
  assert.deepEqual(broken.map((r) => r.passed), [false, false]);
  assert.match(broken[0]!.evidence, /could not be read.*I think it all passes/);
});

Deno.test("retryDelay() follows retry-after-ms, Retry-After seconds or date, else backs off", () => {
  assert.equal(retryDelay(new Headers({ "retry-after-ms": "250" }), 1), 250);
  assert.equal(retryDelay(new Headers({ "retry-after": "2" }), 1), 2000);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(
    retryDelay(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), 1, now),
    3000,
  );
  assert.equal(retryDelay(new Headers(), 3), 4000);
  assert.equal(retryDelay(new Headers({ "retry-after": "9999" }), 1), 60_000);
});

Deno.test("evaluateGate() and junitXml(): thresholds, a drop against an earlier result", () => {
  const triggers = {
    skill_name: "s",
    description: "d",
    results: [
      {
        query: "a <b>",
        should_trigger: true,
        trigger_rate: 1,
        triggers: 3,
        runs: 3,
        pass: true,
        split: "train" as const,
      },
      {
        query: "c",
        should_trigger: true,
        trigger_rate: 0,
        triggers: 0,
        runs: 3,
        pass: false,
        split: "validation" as const,
      },
    ],
    summary: { total: 2, passed: 1, failed: 1 },
    metrics: {
      all: triggerMetrics([{ should_trigger: true, trigger_rate: 1, pass: true }, {
        should_trigger: true,
        trigger_rate: 0,
        pass: false,
      }]),
      train: triggerMetrics([{ should_trigger: true, trigger_rate: 1, pass: true }]),
      validation: triggerMetrics([{ should_trigger: true, trigger_rate: 0, pass: false }]),
    },
    model_requests: 6,
  };
  assert.equal(evaluateGate({ minRecall: 0.5 }, undefined, triggers).passed, true);
  assert.equal(
    evaluateGate({ minRecall: 0.5, split: "validation" }, undefined, triggers).passed,
    false,
  );
  const drop = evaluateGate(
    { against: { passRate: 0.9, file: "old.json" }, maxDrop: 0.2 },
    undefined,
    triggers,
  );
  assert.equal(drop.passed, false);
  assert.match(drop.failures[0]!, /fell 40% from 90% in old\.json/);
  const xml = junitXml("s", undefined, triggers, drop);
  assert.match(xml, /<testcase classname="s triggers" name="a &#60;b&#62;"\/>/);
  assert.match(xml, /name="c">\s*<failure message="failed">should_trigger=true, triggered 0\/3/);
  assert.match(xml, /<testsuite name="s gate" tests="1" failures="1">/);
});

Deno.test("runPool() runs N at a time in order and stops at the first failure", async () => {
  let running = 0;
  let peak = 0;
  const seen: number[] = [];
  const results = await runPool([1, 2, 3, 4, 5], 2, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    seen.push(n);
    return n * 10;
  });
  assert.deepEqual(results, [10, 20, 30, 40, 50]);
  assert.equal(peak, 2);
  const started: number[] = [];
  await assert.rejects(
    runPool([1, 2, 3, 4], 1, (n) => {
      started.push(n);
      return n === 2 ? Promise.reject(new Error("boom")) : Promise.resolve(n);
    }),
    /boom/,
  );
  assert.deepEqual(started, [1, 2]);
});

Deno.test("descriptionOf(): a revision is unquoted and never over 1,024 characters", () => {
  assert.equal(
    descriptionOf('  "Use this skill for sales reports."\n'),
    "Use this skill for sales reports.",
  );
  const long = "Use it for sales. ".repeat(100);
  const cut = descriptionOf(long);
  assert.ok(cut.length <= MAX_DESCRIPTION);
  assert.ok(cut.endsWith("sales."), cut.slice(-20));
  assert.equal(descriptionOf("x".repeat(2000)).length, MAX_DESCRIPTION);
});
