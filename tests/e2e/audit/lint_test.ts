/** `skills lint` through the real CLI: init output is clean; a missing file fails it. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";

Deno.test("skills init output lints clean; a mentioned file that is missing exits 1", async () => {
  await using dir = await tempDir();
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const init = await runCli(["init", "weather-report", "--with-toolset"], { cwd: dir.path, env });
  assert.equal(init.code, 0, init.stderr);
  // The author's own skill, not trusted: its scripts run when asked to.
  const lint = await runCli(["lint", "weather-report", "--run-scripts", "--json"], {
    cwd: dir.path,
    env,
  });
  assert.equal(lint.code, 0, lint.stderr);
  const report = JSON.parse(lint.stdout);
  assert.equal(report.clean, true);
  assert.equal(report.scripts_run, true);
  assert.deepEqual(report.skills[0].findings, []);
  const text = await runCli(["lint", "weather-report", "--run-scripts"], { cwd: dir.path, env });
  assert.match(text.stdout, /^✓ weather-report \(.*weather-report\) - clean$/m);

  const skillMd = join(dir.path, "weather-report", "SKILL.md");
  await Deno.writeTextFile(
    skillMd,
    (await Deno.readTextFile(skillMd)) + "\nSee references/units.md for the units.\n",
  );
  const broken = await runCli(["lint", "weather-report", "--no-scripts"], { cwd: dir.path, env });
  assert.equal(broken.code, 1);
  assert.match(
    broken.stdout,
    /SKILL\.md:\d+: error: the body mentions references\/units\.md, which is not in the skill \[missing-file\]/,
  );
});
