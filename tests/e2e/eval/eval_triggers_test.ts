/**
 * `skills eval --triggers` and the CI gate, end to end: the fixture skill's 20 queries among
 * the bundled kalshi-markets skill, against the scripted eval model on loopback; the gate's
 * exit statuses (passed 0, failed 1, usage 2, could not run 3), JUnit, the count asked
 * before spending, and 429 answers retried after Retry-After.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { evalModel } from "../../fixtures/eval_model.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { EVAL_SKILL_FIXTURE, withEvalFixture } from "../../helpers/eval_fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const TRIGGERS = ["./report-writer", "--triggers", "--with", "kalshi-markets", "--yes"];

/** Whether the scripted model triggers the skill on each query (its rules, read by hand). */
const TRIGGERED = [true, true, true, true, true, true, true, true, false, false]
  .concat([false, false, false, false, false, false, false, false, false, true]);

function expectedMetrics(queries: { should_trigger: boolean }[], picked: number[]) {
  let tp = 0, fp = 0, fn = 0;
  for (const i of picked) {
    const should = queries[i]!.should_trigger;
    if (should && TRIGGERED[i]) tp++;
    else if (should) fn++;
    else if (TRIGGERED[i]) fp++;
  }
  const round = (n: number) => Math.round(n * 10_000) / 10_000;
  return {
    precision: round(tp + fp === 0 ? 1 : tp / (tp + fp)),
    recall: round(tp + fn === 0 ? 1 : tp / (tp + fn)),
  };
}

Deno.test("skills eval --triggers: 20 queries × 3 runs give the expected precision and recall on both splits", async () => {
  const queries = JSON.parse(
    await Deno.readTextFile(join(EVAL_SKILL_FIXTURE, "evals", "eval_queries.json")),
  );
  assert.equal(queries.length, 20);
  await withEvalFixture(async (f) => {
    const r = await f.eval([...TRIGGERS, "--jobs", "4", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /60 model requests \(20 queries × 3 runs\)/);
    // one model request per run: the first response decides
    assert.equal(f.llm.requests.length, 60);
    const doc: Json = JSON.parse(r.stdout);
    for (const result of doc.results) {
      assert.deepEqual(
        Object.keys(result).sort(),
        ["pass", "query", "runs", "should_trigger", "split", "trigger_rate", "triggers"],
      );
    }
    const triggered = doc.results.map((q: Json) => q.trigger_rate >= 0.5);
    assert.deepEqual(triggered, TRIGGERED);
    assert.deepEqual(doc.metrics.all.precision, 0.8889);
    assert.deepEqual(doc.metrics.all.recall, 0.8);
    assert.deepEqual(doc.metrics.all.f1, 0.8421);
    for (const split of ["train", "validation"]) {
      const picked = doc.results.flatMap((q: Json, i: number) => q.split === split ? [i] : []);
      assert.equal(picked.length, split === "train" ? 12 : 8);
      const expected = expectedMetrics(queries, picked);
      assert.equal(doc.metrics[split].precision, expected.precision, split);
      assert.equal(doc.metrics[split].recall, expected.recall, split);
    }
    // the text report lists each failing query
    const text = await f.eval([...TRIGGERS, "--replay", "nowhere"]);
    assert.equal(text.code, 3);
    const table = await f.eval(TRIGGERS);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /failing queries \(3\):/);
    assert.match(
      table.stdout,
      /✗ proofread my expense report for grammar\s+\(should not trigger; 3\/3/,
    );
    assert.match(table.stdout, /^all\s+20\s+17\/20\s+0\.89\s+0\.80\s+0\.84$/m);
  });
});

Deno.test("skills eval gate: 0 when it passes, 1 when it fails, 2 for usage, 3 when it could not run", async () => {
  await withEvalFixture(async (f) => {
    const junit = join(f.root, "junit.xml");
    const passed = await f.eval([
      ...TRIGGERS,
      "--runs",
      "1",
      "--min-recall",
      "0.8",
      "--junit",
      junit,
    ]);
    assert.equal(passed.code, 0, passed.stderr);
    assert.match(passed.stderr, /gate passed: recall \(all\) ≥ 0\.8/);
    const xml = await Deno.readTextFile(junit);
    assert.equal(xml.match(/<testcase /g)?.length, 21);
    assert.match(xml, /<testsuite name="report-writer triggers" tests="20" failures="3">/);
    const failed = await f.eval([
      ...TRIGGERS,
      "--runs",
      "1",
      "--min-precision",
      "0.95",
      "--json",
      "--junit",
      junit,
    ]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(
      failed.stderr,
      /gate failed: precision on all queries 0\.8889 is below --min-precision 0\.95/,
    );
    assert.equal(JSON.parse(failed.stdout).gate.passed, false);
    assert.match(
      await Deno.readTextFile(junit),
      /<testsuite name="report-writer gate" tests="1" failures="1">/,
    );
    // --against an earlier result: the pass rate may not fall more than --max-drop
    const earlier = join(f.root, "earlier.json");
    await Deno.writeTextFile(earlier, JSON.stringify({ metrics: { all: { pass_rate: 1 } } }));
    const dropped = await f.eval([
      ...TRIGGERS,
      "--runs",
      "1",
      "--against",
      earlier,
      "--max-drop",
      "0.1",
    ]);
    assert.equal(dropped.code, 1);
    assert.match(dropped.stderr, /pass rate fell 15% from 100%/);
    const usage = await f.eval([...TRIGGERS, "--min-pass-rate", "0.5"]);
    assert.equal(usage.code, 2);
    const missing = await f.eval([
      "./report-writer",
      "--triggers",
      "--queries",
      "none.json",
      "--yes",
    ]);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /none\.json does not exist/);
  });
});

Deno.test("skills eval: a provider that fails is 'could not run' (3); without --yes off a terminal nothing is sent", async () => {
  await withEvalFixture(async (f) => {
    const before = f.llm.requests.length;
    const refused = await f.eval(TRIGGERS.filter((a) => a !== "--yes"));
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /This eval sends 60 model requests/);
    assert.match(refused.stderr, /confirmation required[\s\S]*--yes/);
    assert.equal(f.llm.requests.length, before);
    await using broken = await brokenServer();
    const failed = await f.eval([...TRIGGERS, "--runs", "1"], { SKILLS_BASE_URL: broken.baseUrl });
    assert.equal(failed.code, 3, failed.stderr);
    // the output eval removes the iteration it could not finish
    const outputs = await f.eval(["./report-writer", "--yes"], { SKILLS_BASE_URL: broken.baseUrl });
    assert.equal(outputs.code, 3);
    const workspace = [...Deno.readDirSync(join(f.root, "report-writer-workspace"))].map((e) =>
      e.name
    );
    assert.ok(!workspace.includes("iteration-1"), workspace.join(","));
  });
});

Deno.test("skills eval --jobs: HTTP 429 is retried after Retry-After, and every run still counts", async () => {
  let limited = 0;
  const llm = await startLlmServer([], {
    respond: (request) => {
      if (limited < 3) {
        limited++;
        return { status: 429, message: "slow down", headers: { "retry-after": "0" } };
      }
      return evalModel(request);
    },
  });
  try {
    await withEvalFixture(async (f) => {
      const r = await f.eval([...TRIGGERS, "--runs", "1", "--jobs", "4", "--json"], {
        SKILLS_BASE_URL: llm.baseUrl,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(llm.requests.length, 23);
      assert.equal(JSON.parse(r.stdout).metrics.all.recall, 0.8);
    });
  } finally {
    await llm.close();
  }
});

async function brokenServer() {
  const llm = await startLlmServer([], {
    respond: () => ({ status: 500, message: "the model is down" }),
  });
  return { baseUrl: llm.baseUrl, [Symbol.asyncDispose]: () => llm.close() };
}

Deno.test("skills eval --triggers --improve: revises from train failures only, picks by validation, writes nothing", async () => {
  await withEvalFixture(async (f) => {
    const skillMd = await Deno.readTextFile(join(f.skillDir, "SKILL.md"));
    const r = await f.eval([...TRIGGERS, "--improve", "--runs", "1", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const doc: Json = JSON.parse(r.stdout);
    assert.equal(doc.iterations[0].description, doc.original);
    assert.ok(doc.iterations.length >= 2 && doc.iterations.length <= 5);
    assert.match(doc.best.description, /earnings/);
    assert.ok(doc.best.description.length <= 1024);
    const all = (it: Json) => it.train.passed + it.validation.passed;
    assert.ok(all(doc.best) > all(doc.iterations[0]), JSON.stringify(doc.iterations));
    // the reviser saw the train split's failures and never a validation query
    const queries: Json[] = JSON.parse(
      await Deno.readTextFile(join(f.skillDir, "evals", "eval_queries.json")),
    );
    const report = await f.eval([...TRIGGERS, "--runs", "1", "--json"]);
    const validation = JSON.parse(report.stdout).results.filter((q: Json) =>
      q.split === "validation"
    );
    const revisions = f.llm.requests.filter((q) => q.text.includes("You revise"));
    assert.ok(revisions.length >= 1);
    for (const request of revisions) {
      for (const q of validation) assert.ok(!request.text.includes(q.query), q.query);
    }
    assert.equal(queries.length, 20);
    // nothing written: SKILL.md as it was, no trigger report from the --improve run
    assert.equal(await Deno.readTextFile(join(f.skillDir, "SKILL.md")), skillMd);
    const reports = [...Deno.readDirSync(join(f.root, "report-writer-workspace", "triggers"))];
    assert.equal(reports.length, 1);
  });
});
