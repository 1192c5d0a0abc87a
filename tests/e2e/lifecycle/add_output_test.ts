/** What `skills add` tells the user: warnings that name their file, folded when repeated. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("skills add names each warning's file and folds a warning several files share", async () => {
  await using dir = await tempDir();
  const skill = join(dir.path, "pdf");
  const scripts = ["a", "b", "c", "d", "e"].map((name) => [`scripts/${name}.py`, "print('x')\n"]);
  await writeTree(skill, {
    "SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms.\n---\n\nUse the scripts.\n",
    ...Object.fromEntries(scripts),
  });
  const result = await runCli(["add", skill, "--yes"], {
    env: { SKILLS_HOME: join(dir.path, "home") },
  });
  assert.equal(result.code, 0, result.stderr);
  const warnings = result.stderr.split("\n").filter((l) => l.startsWith("warning:"));
  assert.deepEqual(warnings, [
    "warning: pdf: 5 files: no PEP 723 '# /// script' block; it will run with plain python3 " +
    "(scripts/a.py, scripts/b.py, scripts/c.py, and 2 more)",
  ]);
});

Deno.test("skills add --list names an invalid skill by its declared name, not '?'", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "repo");
  for (const [name, extra] of [["good", ""], ["bad-field", "scripts: 42\n"]]) {
    await writeTree(join(repo, "skills", name!), {
      "SKILL.md": `---\nname: ${name}\ndescription: Skill ${name}.\n${extra}---\n\nBody.\n`,
    });
  }
  const result = await runCli(["add", repo, "--list"], {
    env: { SKILLS_HOME: join(dir.path, "home") },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^bad-field\s+skills\/bad-field\s+0\s+INVALID: /m);
  assert.doesNotMatch(result.stdout, /^\?\s/m);
});
