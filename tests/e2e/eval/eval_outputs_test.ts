/**
 * `skills eval` of outputs, end to end: the real CLI against the scripted eval model on
 * loopback (tests/fixtures/eval_model.ts), the fixture skill's three evals with and without
 * the skill, the documented files, the sandbox, record and replay.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { okJson } from "../../helpers/cli.ts";
import { filesUnder, readJson, SECRET_KEY, withEvalFixture } from "../../helpers/eval_fixture.ts";
import { pongServer } from "../../helpers/pong_server.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const EVAL_DIRS = ["eval-1-best-month", "eval-2-total-revenue", "eval-3-summary-for-the-team"];

Deno.test("skills eval PATH: three evals give the guide's files and a positive delta", async () => {
  await withEvalFixture(async (f) => {
    const r = await f.eval(["./report-writer", "--yes", "--runs", "2", "--jobs", "2"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /its scripts run in the sandbox without a trust step/);
    assert.match(r.stderr, /12 runs \(3 evals × 2 configurations × 2\)/);
    assert.match(r.stdout, /pass rate \(mean ± sd\)\s+100% ± 0%\s+17% ± 26%\s+\+83%/);
    const iteration = join(f.root, "report-writer-workspace", "iteration-1");
    const files = await filesUnder(iteration);
    for (const dir of EVAL_DIRS) {
      assert.ok(files.has(`${dir}/eval_metadata.json`));
      for (const config of ["with_skill", "without_skill"]) {
        for (const run of ["run-1", "run-2"]) {
          for (const name of ["timing.json", "grading.json", "transcript.md"]) {
            assert.ok(
              files.has(`${dir}/${config}/${run}/${name}`),
              `${dir}/${config}/${run}/${name}`,
            );
          }
        }
      }
    }
    // outputs/ holds exactly what the skill's script wrote (the input CSV is not an output)
    assert.deepEqual(
      [...files.keys()].filter((p) => p.startsWith(`${EVAL_DIRS[0]}/with_skill/run-1/outputs/`))
        .sort(),
      ["report.json", "report.md"].map((n) => `${EVAL_DIRS[0]}/with_skill/run-1/outputs/${n}`),
    );
    assert.ok(
      ![...files.keys()].some((p) => p.includes("without_skill") && p.includes("/outputs/")),
    );
    const timing = await readJson(
      join(iteration, EVAL_DIRS[0]!, "with_skill", "run-1", "timing.json"),
    );
    assert.ok(timing.total_tokens > 0 && Number.isInteger(timing.duration_ms));
    assert.equal(typeof timing.total_duration_seconds, "number");
    // grading.json as the guide shows it: assertion_results of text/passed/evidence, summary
    const grading = await readJson(
      join(iteration, EVAL_DIRS[1]!, "with_skill", "run-1", "grading.json"),
    );
    assert.deepEqual(grading.summary, { passed: 3, failed: 0, total: 3, pass_rate: 1 });
    assert.deepEqual(grading.assertion_results.map((a: Json) => a.method), [
      "mechanical",
      "mechanical",
      "verifier:evals/check_report.py",
    ]);
    for (const a of grading.assertion_results) assert.ok(a.evidence.length > 0);
    const baseline = await readJson(
      join(iteration, EVAL_DIRS[1]!, "without_skill", "run-1", "grading.json"),
    );
    assert.deepEqual(baseline.summary, { passed: 0, failed: 3, total: 3, pass_rate: 0 });
    assert.match(baseline.assertion_results[2].evidence, /no report\.json/);
    const judged = await readJson(
      join(iteration, EVAL_DIRS[2]!, "with_skill", "run-1", "grading.json"),
    );
    assert.equal(judged.assertion_results[0].method, "judge");
    assert.match(judged.assertion_results[0].evidence, /"March"/);
    const benchmark = await readJson(join(iteration, "benchmark.json"));
    assert.equal(benchmark.run_summary.with_skill.pass_rate.mean, 1);
    assert.equal(benchmark.run_summary.without_skill.pass_rate.mean, 0.1667);
    assert.equal(benchmark.run_summary.delta.pass_rate, 0.8333);
    assert.ok(benchmark.run_summary.delta.tokens > 0);
    assert.equal(benchmark.runs.length, 12);
    assert.deepEqual(benchmark.metadata.evals_run, [1, 2, 3]);
    // no API key in anything the eval wrote
    for (const [path, text] of files) assert.ok(!text.includes(SECRET_KEY), path);
  });
});

Deno.test("skills eval: the Anthropic wire format, and the next run is iteration-2", async () => {
  await withEvalFixture(async (f) => {
    for (const n of [1, 2]) {
      const r = await f.eval(["./report-writer", "--yes", "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const doc = JSON.parse(r.stdout);
      assert.equal(doc.results_path, join(f.root, "report-writer-workspace", `iteration-${n}`));
      assert.equal(doc.run_summary.delta.pass_rate, 0.8333);
    }
    assert.equal(f.llm.requests[0]!.format, "anthropic");
  }, "anthropic");
});

Deno.test("skills eval: a run that writes outside its workspace or reaches an undeclared host is refused and recorded", async () => {
  await using pong = pongServer();
  const outside = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "skills-eval-outside-" });
  try {
    await withEvalFixture(async (f) => {
      const escape = join(outside, "escaped.txt");
      await Deno.writeTextFile(
        join(f.skillDir, "evals", "evals.json"),
        JSON.stringify({
          skill_name: "report-writer",
          evals: [{
            id: 1,
            name: "probe",
            prompt: `PROBE ${escape} ${pong.url}`,
            assertions: ['The output contains "refused"'],
          }, {
            // the skill's own folder is in sight of the script, read-only
            id: 2,
            name: "probe skill folder",
            prompt: `PROBE ${join(f.skillDir, "escaped.txt")} ${pong.url}`,
            assertions: ['The output contains "refused"'],
          }],
        }),
      );
      const r = await f.eval(["./report-writer", "--yes"]);
      assert.equal(r.code, 0, r.stderr);
      await assert.rejects(Deno.stat(escape), Deno.errors.NotFound);
      assert.equal(pong.requests, 0);
      const run = join(
        f.root,
        "report-writer-workspace",
        "iteration-1",
        "eval-1-probe",
        "with_skill",
        "run-1",
      );
      const transcript = await Deno.readTextFile(join(run, "transcript.md"));
      assert.match(transcript, /"write":"refused: /);
      assert.match(transcript, /"net":"refused: /);
      const grading = await readJson(join(run, "grading.json"));
      assert.equal(grading.summary.pass_rate, 1);
      await assert.rejects(Deno.stat(join(f.skillDir, "escaped.txt")), Deno.errors.NotFound);
      const second = join(
        f.root,
        "report-writer-workspace",
        "iteration-1",
        "eval-2-probe-skill-folder",
        "with_skill",
        "run-1",
      );
      const secondTranscript = await Deno.readTextFile(join(second, "transcript.md"));
      assert.match(secondTranscript, /"write":"refused: /);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("skills eval --record, then --replay with no server and no key, reproduces the run", async () => {
  await withEvalFixture(async (f) => {
    const recorded = await f.eval(["./report-writer", "--yes", "--record", "tape", "--json"]);
    assert.equal(recorded.code, 0, recorded.stderr);
    const tape = await filesUnder(join(f.root, "tape"));
    assert.ok(tape.has("recording.json"));
    for (const [path, text] of tape) assert.ok(!text.includes(SECRET_KEY), path);
    await f.llm.close();
    const replayed = await f.eval(["./report-writer", "--replay", "tape", "--json"], {
      SKILLS_MODEL: "",
      OPENAI_API_KEY: "",
      SKILLS_BASE_URL: "http://127.0.0.1:9/v1",
    });
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.doesNotMatch(replayed.stderr, /This eval sends/);
    const before = JSON.parse(recorded.stdout);
    const after = JSON.parse(replayed.stdout);
    assert.deepEqual(after.run_summary, before.run_summary);
    const strip = (runs: Json[]) => runs.map((r) => ({ ...r, result: { ...r.result } }));
    assert.deepEqual(strip(after.runs), strip(before.runs));
    const one = await filesUnder(join(f.root, "report-writer-workspace", "iteration-1"));
    const two = await filesUnder(join(f.root, "report-writer-workspace", "iteration-2"));
    // The same outputs, grades, pass rates and (recorded) timings. Transcripts hold the
    // sandbox's receipts, whose file lists come from a walk of the workspace: compared apart.
    for (const [path, text] of one) {
      if (path === "benchmark.json" || path.endsWith("transcript.md")) continue;
      if (path.endsWith("grading.json")) {
        const [a, b] = [JSON.parse(text), JSON.parse(two.get(path)!)];
        assert.deepEqual(b.assertion_results, a.assertion_results, path);
        assert.deepEqual(b.summary, a.summary, path);
        continue;
      }
      assert.equal(two.get(path), text, path);
    }
    // the gate over a replay: free, so a CI can re-grade a recording
    const replay = ["./report-writer", "--replay", "tape"];
    const noKey = { SKILLS_MODEL: "", OPENAI_API_KEY: "" };
    const low = await f.eval([...replay, "--min-delta", "0.9"], noKey);
    assert.equal(low.code, 1);
    assert.match(low.stderr, /gate failed: delta 83\.3% is below --min-delta 90%/);
    const benchmark = join(f.root, "report-writer-workspace", "iteration-1", "benchmark.json");
    const same = await f.eval([...replay, "--against", benchmark, "--max-drop", "0"], noKey);
    assert.equal(same.code, 0, same.stderr);
    for (const [path, text] of one) {
      if (!path.endsWith("transcript.md")) continue;
      const answer = (t: string) => t.split("## Answer")[1];
      assert.equal(answer(two.get(path)!), answer(text), path);
    }
  });
});

Deno.test("skills eval --baseline PATH: the previous version runs as old_skill, the delta is against it", async () => {
  await withEvalFixture(async (f) => {
    // the old version wrote report.json only
    const old = join(f.root, "report-writer-old");
    await Deno.mkdir(join(old, "scripts"), { recursive: true });
    await Deno.copyFile(join(f.skillDir, "SKILL.md"), join(old, "SKILL.md"));
    const script = await Deno.readTextFile(join(f.skillDir, "scripts", "summarize.py"));
    await Deno.writeTextFile(
      join(old, "scripts", "summarize.py"),
      script.replace(/ {4}with open\("report\.md", "w"\) as out:\n.*\n/, ""),
    );
    const r = await f.eval([
      "./report-writer",
      "--baseline",
      "./report-writer-old",
      "--yes",
      "--json",
    ]);
    const doc = okJson(r);
    assert.deepEqual(Object.keys(doc.run_summary), ["with_skill", "old_skill", "delta"]);
    assert.equal(doc.run_summary.old_skill.pass_rate.mean, 0.8889);
    assert.equal(doc.run_summary.delta.pass_rate, 0.1111);
    const dir = join(doc.results_path, EVAL_DIRS[1]!);
    const grading = await readJson(join(dir, "old_skill", "run-1", "grading.json"));
    assert.equal(grading.assertion_results[0].passed, false);
    assert.match(grading.assertion_results[0].evidence, /No file matching report\.md/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "eval_metadata.json",
      "old_skill",
      "with_skill",
    ]);
  });
});
