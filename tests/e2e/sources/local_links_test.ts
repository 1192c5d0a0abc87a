/**
 * A skill folder the user names through a symbolic link, as repositories keep them
 * (`skills/docx -> docx-official`, a plugin's `skills/x -> ../../../.claude/skills/x`):
 * `add`, `validate` and `lint` read the folder it points to, as the user's shell would,
 * and the checks of where it may come from look at that folder, not at the link. `lint`'s
 * name-folder rule and `validate --strict` compare the name with the link's, the folder agents
 * see.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("a skill folder named through a symlink is added, validated and linted as the folder it points to", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home };
  const real = join(tmp.path, "repo", "skills", "docx-official");
  await writeTree(real, { "SKILL.md": skillMd("docx"), "notes.md": "Notes.\n" });
  await Deno.symlink("docx-official", join(tmp.path, "repo", "skills", "docx"));
  const opts = { env, cwd: tmp.path };

  const validate = await runCli(["validate", "./repo/skills/docx"], opts);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  assert.match(validate.stdout, /✓ docx \(.*skills\/docx-official\)/);
  // --strict holds the name to the folder agents see: the link's.
  const strict = await runCli(["validate", "--strict", "./repo/skills/docx"], opts);
  assert.equal(strict.code, 0, strict.stdout + strict.stderr);
  const strictReal = await runCli(["validate", "--strict", "./repo/skills/docx-official"], opts);
  assert.match(
    strictReal.stdout,
    /'name' \(docx\) must equal the directory name \(docx-official\)/,
  );
  const lint = await runCli(["lint", "./repo/skills/docx", "--no-scripts", "--json"], opts);
  const linted = JSON.parse(lint.stdout).skills[0];
  assert.equal(linted.path, real);
  // Its folder, to every agent that loads it, is the link's name: `docx`, as the skill says.
  const rules = linted.findings.map((f: { rule: string }) => f.rule);
  assert.ok(!rules.includes("name-folder"), JSON.stringify(linted.findings));
  // The real folder named directly: its own name is the folder's.
  const direct = await runCli(
    ["lint", "./repo/skills/docx-official", "--no-scripts", "--json"],
    opts,
  );
  assert.match(JSON.stringify(JSON.parse(direct.stdout).skills[0].findings), /"name-folder"/);

  const add = await runCli(["add", "./repo/skills/docx", "--yes"], opts);
  assert.equal(add.code, 0, add.stderr);
  assert.equal(await Deno.readTextFile(join(home, "docx", "notes.md")), "Notes.\n");

  // A link that leads nowhere says so.
  await Deno.symlink("gone-official", join(tmp.path, "repo", "skills", "gone"));
  const dangling = await runCli(["validate", "./repo/skills/gone"], opts);
  assert.equal(dangling.code, 1);
  assert.match(dangling.stdout, /error: a symbolic link to gone-official, which does not exist/);

  // A link into $SKILLS_HOME is refused for where it leads, not as a missing folder.
  await Deno.symlink(join(home, "docx"), join(tmp.path, "installed"));
  const inside = await runCli(["add", "./installed", "--yes"], opts);
  assert.equal(inside.code, 1);
  assert.match(inside.stderr, /Cannot install from .*home\/docx: it is inside \$SKILLS_HOME/);
});
