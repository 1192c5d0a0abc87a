/**
 * Where `skills eval` finds a skill's eval files, and how it reads the spellings published
 * skills use: layouts reproduced from public repositories (a plugin's own `evals/` folder
 * beside `skills/<name>/`, an `evals.json` at a plugin's root holding trigger queries under
 * `prompt`, a bare list of evals named by `eval_name` with no assertions).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  evalsBase,
  expectedOutputAssertion,
  findOutputEvals,
  findTriggerQueries,
  parseEvalSet,
} from "../../../src/agent/eval/eval_files.ts";
import { tempDir } from "../../helpers/cli.ts";

const MANIFEST = "---\nname: NAME\ndescription: A skill for the eval layouts.\n---\n\nBody.\n";

function write(path: string, text: string): void {
  Deno.mkdirSync(join(path, ".."), { recursive: true });
  Deno.writeTextFileSync(path, text);
}

/** `<root>/plugin/` with a plugin manifest and the skills named, each with a SKILL.md. */
function plugin(root: string, skills: string[]): string {
  const dir = join(root, "plugin");
  write(join(dir, ".claude-plugin", "plugin.json"), '{ "name": "plugin" }\n');
  for (const name of skills) {
    write(join(dir, "skills", name, "SKILL.md"), MANIFEST.replace("NAME", name));
  }
  return dir;
}

const OUTPUT_EVALS = [{
  id: 0,
  eval_name: "npm audit with findings",
  prompt: "Audit the dependencies; the code is in evals/fixtures/api.",
  expected_output: "Names the advisories for the pinned versions.",
  files: ["evals/fixtures/api/package.json"],
}];
const TRIGGERS = [
  { prompt: "I just lost my job, what now", should_trigger: true, notes: "emotional" },
  { prompt: "sort a list in Python", should_trigger: false },
];

Deno.test("eval files: a bare list, eval_name, and expected_output judged when no assertion is listed", () => {
  const set = parseEvalSet(OUTPUT_EVALS, "evals.json");
  assert.equal(set.evals[0]!.name, "npm-audit-with-findings");
  assert.equal(set.evals[0]!.id, 0);
  assert.deepEqual(set.evals[0]!.assertions, [
    expectedOutputAssertion("Names the advisories for the pinned versions."),
  ]);
  // Listed assertions are the whole list: expected_output is then only a description.
  const listed = parseEvalSet({ evals: [{ ...OUTPUT_EVALS[0], assertions: ["a"] }] }, "e.json");
  assert.deepEqual(listed.evals[0]!.assertions, ["a"]);
  assert.throws(() => parseEvalSet(TRIGGERS, "evals.json"), /holds trigger queries/);
});

Deno.test("eval location: the guide's place first; a plugin's evals/ only for its one skill, by path", async () => {
  await using tmp = await tempDir("eval-location-");
  const dir = plugin(tmp.path, ["auditor"]);
  const skill = join(dir, "skills", "auditor");
  write(join(dir, "evals", "evals.json"), JSON.stringify(OUTPUT_EVALS));

  const found = await findOutputEvals(skill, true);
  assert.equal(found.file, join(dir, "evals", "evals.json"));
  assert.equal(found.base, dir, "files are relative to the folder holding evals/");
  assert.equal(found.elsewhere, true);
  // An installed skill is its folder alone: nothing around it is read.
  await assert.rejects(findOutputEvals(skill, false), /Cannot read the skill's evals/);

  // The skill's own file wins.
  write(join(skill, "evals", "evals.json"), JSON.stringify({ evals: [{ prompt: "own" }] }));
  const own = await findOutputEvals(skill, true);
  assert.equal(own.evalSet.evals[0]!.prompt, "own");
  assert.equal(own.base, skill);
  assert.equal(own.elsewhere, false);
  Deno.removeSync(join(skill, "evals"), { recursive: true });

  // A second skill in the plugin: its evals could be either's, so none are taken.
  write(join(dir, "skills", "other", "SKILL.md"), MANIFEST.replace("NAME", "other"));
  await assert.rejects(findOutputEvals(skill, true), (error: Error) => {
    assert.match(
      error.message,
      /none of .*auditor\/evals\/evals\.json, .*auditor\/evals\.json exists/,
    );
    assert.doesNotMatch(error.message, /plugin\/evals/);
    return true;
  });
});

Deno.test("eval location: trigger queries in the plugin's evals.json, under prompt", async () => {
  await using tmp = await tempDir("eval-location-");
  const dir = plugin(tmp.path, ["behave"]);
  const skill = join(dir, "skills", "behave");
  write(join(dir, "evals.json"), JSON.stringify(TRIGGERS));

  const found = await findTriggerQueries(skill, true);
  assert.equal(found.file, join(dir, "evals.json"));
  assert.deepEqual(found.queries, [
    { query: "I just lost my job, what now", should_trigger: true },
    { query: "sort a list in Python", should_trigger: false },
  ]);
  // Output evals are asked of a file of trigger queries: the error names it and --triggers.
  await assert.rejects(findOutputEvals(skill, true), (error: Error & { hint?: string }) => {
    assert.match(error.message, /evals\.json holds trigger queries/);
    assert.match(error.hint ?? "", /--triggers/);
    return true;
  });
  // eval_queries.json in the skill comes first.
  write(
    join(skill, "evals", "eval_queries.json"),
    JSON.stringify([{ query: "own", should_trigger: true }]),
  );
  assert.equal((await findTriggerQueries(skill, true)).queries[0]!.query, "own");
});

Deno.test("eval location: --evals FILE names files from the folder holding its evals/ folder", async () => {
  await using tmp = await tempDir("eval-location-");
  assert.equal(
    evalsBase(join(tmp.path, "plugin", "evals", "evals.json")),
    join(tmp.path, "plugin"),
  );
  assert.equal(evalsBase(join(tmp.path, "cases", "outputs.json")), join(tmp.path, "cases"));
  const file = join(tmp.path, "cases", "outputs.json");
  write(file, JSON.stringify(OUTPUT_EVALS));
  const found = await findOutputEvals(join(tmp.path, "anywhere"), false, file);
  assert.equal(found.base, join(tmp.path, "cases"));
  assert.equal(found.evalSet.evals.length, 1);
});
