/**
 * `skills init` starts an author on the guide's walk: its next steps are the guide's checks
 * (validate, lint, audit) and name the guide, and what it writes already does what the guide
 * asks of a new skill (tests/e2e/audit/lint_test.ts: it lints clean, scripts run).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runCli, tempDir } from "../helpers/cli.ts";

Deno.test("skills init's next steps are the guide's checks, and name the guide", async () => {
  await using dir = await tempDir();
  const init = await runCli(["init", "weather-report"], {
    cwd: dir.path,
    env: { SKILLS_HOME: join(dir.path, "home") },
  });
  assert.equal(init.code, 0, init.stderr);
  const path = join(dir.path, "weather-report");
  for (const step of ["validate --strict", "lint --run-scripts", "audit", "add"]) {
    assert.ok(init.stderr.includes(`skills ${step} ${path}`), `${step} in:\n${init.stderr}`);
  }
  // Named where every user has it: the binary prints the guide, no clone needed.
  assert.match(init.stderr, /The guide for skill authors: skills lint --guide/);
  assert.doesNotMatch(init.stderr, /docs\/writing-skills\.md/);
  const printed = await runCli(["lint", "--guide"], { cwd: dir.path });
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(
    printed.stdout,
    await Deno.readTextFile(join(REPO_ROOT, "docs", "writing-skills.md")),
    "the guide as built in, word for word",
  );

  const skillMd = await Deno.readTextFile(join(path, "SKILL.md"));
  assert.match(skillMd, /^description: .*Use when /m, "the description says when");
  const script = await Deno.readTextFile(join(path, "scripts", "weather_report.py"));
  assert.match(script, /^# \/\/\/ script\n# requires-python = "[^"]+"\n# dependencies = \[\]/m);
});
