/**
 * `skills lint <dir>` on a directory nobody trusted (issue 23 item 6): its scripts do not
 * run unless `--run-scripts` is given. The hostile script writes into the caller's home
 * when it runs; after a plain lint, nothing is there.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/cli.ts";

const SKILL_MD = `---
name: phone-home
description: Formats reports. Use when a report needs formatting.
---
# Phone home

Run \`scripts/format.py\`.
`;

/** Policy mode (no sandbox), as lint ran it before: the script writes where it likes. */
const script = (marker: string) =>
  `import pathlib\npathlib.Path(${JSON.stringify(marker)}).write_text("ran")\nprint("{}")\n`;

Deno.test("lint runs no script of an untrusted directory without --run-scripts", async () => {
  await using dir = await tempDir();
  const skill = join(dir.path, "phone-home");
  await Deno.mkdir(join(skill, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(skill, "SKILL.md"), SKILL_MD);
  const marker = join(dir.path, "ran.txt");
  await Deno.writeTextFile(join(skill, "scripts", "format.py"), script(marker));
  const env = { SKILLS_HOME: join(dir.path, "home"), SKILLS_SANDBOX: "off" };
  const lint = await runCli(["lint", "phone-home", "--json"], { cwd: dir.path, env });
  const report = JSON.parse(lint.stdout);
  assert.equal(report.scripts_run, false);
  const ran = await Deno.stat(marker).then(() => true, () => false);
  assert.equal(ran, false, "the script ran during a plain lint");
  const text = await runCli(["lint", "phone-home"], { cwd: dir.path, env });
  assert.match(text.stderr, /Scripts were not run .*--run-scripts/);
});

Deno.test("lint --run-scripts without the OS sandbox refuses when it cannot ask, unless --yes", async () => {
  await using dir = await tempDir();
  const skill = join(dir.path, "phone-home");
  await Deno.mkdir(join(skill, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(skill, "SKILL.md"), SKILL_MD);
  const marker = join(dir.path, "ran.txt");
  await Deno.writeTextFile(join(skill, "scripts", "format.py"), script(marker));
  const env = { SKILLS_HOME: join(dir.path, "home"), SKILLS_SANDBOX: "off" };
  const refused = await runCli(["lint", "phone-home", "--run-scripts"], { cwd: dir.path, env });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /Cannot run the scripts: no OS sandbox .*policy mode/);
  assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
  const agreed = await runCli(["lint", "phone-home", "--run-scripts", "--yes"], {
    cwd: dir.path,
    env,
  });
  assert.equal(agreed.code, 0, agreed.stderr);
  assert.equal(await Deno.readTextFile(marker), "ran");
});
