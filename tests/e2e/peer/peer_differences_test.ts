/**
 * The deliberate differences from vercel-labs' CLI and the reference tools that
 * docs/compatibility.md lists, where they are behaviour: `prompt` with nothing active, the
 * prompt's inline and one-line fields, names containing `claude`, `<`/`>` in a description
 * (escaped for the model), and a SKILL.md without `name` refused rather than named for its
 * folder.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("compatibility differences: prompt, names, angle brackets, a missing name", async () => {
  await using tmp = await tempDir("skills-differences-");
  const home = join(tmp.path, "home");
  await writeTree(join(tmp.path, "claude-helper"), {
    "SKILL.md": "---\nname: claude-helper\ndescription: >\n  Compares a < b and c > d,\n  " +
      "over two lines.\n---\n\n# claude-helper\n",
  });
  await writeTree(join(tmp.path, "unnamed"), {
    "SKILL.md": "---\ndescription: A skill that does not name itself.\n---\n\n# unnamed\n",
  });
  const env = { SKILLS_HOME: home };

  const none = await runCli(["prompt"], { env: { ...env, AGENT_SKILLS: "none" } });
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, "", "nothing active: nothing on stdout");
  assert.match(none.stderr, /No active skills: set AGENT_SKILLS/);

  const valid = await runCli(["validate", "--strict", join(tmp.path, "claude-helper")], { env });
  assert.equal(valid.code, 0, valid.stdout + valid.stderr);
  await installFixtureSkill(home, join(tmp.path, "claude-helper"));
  const prompt = await runCli(["prompt"], { env: { ...env, AGENT_SKILLS: "claude-helper" } });
  assert.equal(prompt.code, 0, prompt.stderr);
  assert.match(prompt.stdout, /^<name>claude-helper<\/name>$/m, "element text inline");
  assert.match(
    prompt.stdout,
    /^<description>Compares a &lt; b and c &gt; d, over two lines\.<\/description>$/m,
    "escaped, on one line",
  );

  const unnamed = await runCli(["validate", join(tmp.path, "unnamed")], { env });
  assert.notEqual(unnamed.code, 0);
  assert.match(unnamed.stdout + unnamed.stderr, /missing required field\(s\): name/);
  const added = await runCli(["add", join(tmp.path, "unnamed"), "-y"], { env });
  assert.notEqual(added.code, 0, "not installed under its folder's name");
  await assert.rejects(Deno.stat(join(home, "unnamed")));
});
