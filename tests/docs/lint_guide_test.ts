/**
 * `skills lint` points each finding to the section of docs/writing-skills.md that explains
 * it (src/core/audit/lint_guide.ts): every anchor it links exists, every rule lint can report has
 * its own row, and the CLI shows the link in text and JSON.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { LINT_GUIDE, LINT_GUIDE_ANCHORS, lintGuideFor } from "../../src/core/audit/lint_guide.ts";
import { REPO_ROOT, runCli, tempDir } from "../helpers/cli.ts";
import { anchors } from "./markdown.ts";
import { writeTree } from "../helpers/tree.ts";

/** Every rule id the lint sources can report (`rule: "x"`, or the description's `at("x", …)`). */
function rulesInSource(): Set<string> {
  const rules = new Set<string>();
  for (const file of ["src/core/audit/lint_checks.ts", "src/runtime/audit/lint.ts"]) {
    const text = Deno.readTextFileSync(join(REPO_ROOT, file));
    for (const m of text.matchAll(/\brule:\s*"([a-z0-9-]+)"|\bat\(\s*"([a-z0-9-]+)"/g)) {
      rules.add(m[1] ?? m[2]!);
    }
  }
  return rules;
}

Deno.test("every lint rule links to a section of the guide that exists", () => {
  const offered = anchors(Deno.readTextFileSync(join(REPO_ROOT, LINT_GUIDE)));
  const rules = rulesInSource();
  assert.ok(rules.size >= 10, `found the rules: ${[...rules].join(", ")}`);
  for (const rule of [...rules, "a-rule-not-yet-in-the-table"]) {
    const anchor = lintGuideFor(rule).split("#")[1]!;
    assert.ok(offered.has(anchor), `${rule} → #${anchor} is not a heading of ${LINT_GUIDE}`);
  }
  for (const rule of rules) assert.ok(rule in LINT_GUIDE_ANCHORS, `${rule} has no row of its own`);
});

Deno.test("skills lint says where the guide explains each finding, in text and JSON", async () => {
  await using dir = await tempDir();
  const env = { SKILLS_HOME: join(dir.path, "home") };
  await writeTree(dir.path, {
    "weather/SKILL.md":
      "---\nname: weather\ndescription: Helps with weather stuff.\n---\n\n# Weather\n\nAsk away.\n",
  });
  const json = await runCli(["lint", "weather", "--no-scripts", "--json"], { cwd: dir.path, env });
  assert.equal(json.code, 0, json.stderr);
  const findings = JSON.parse(json.stdout).skills[0].findings as { rule: string; guide: string }[];
  assert.deepEqual(
    findings.map((f) => [f.rule, f.guide]),
    ["description-short", "description-when", "description-vague"].map((rule) => [
      rule,
      "docs/writing-skills.md#the-description-says-what-and-when",
    ]),
  );
  const text = await runCli(["lint", "weather", "--no-scripts"], { cwd: dir.path, env });
  assert.match(
    text.stdout,
    /\[description-vague\]\n {4}see docs\/writing-skills\.md#the-description-says-what-and-when\n/,
  );
});
