/**
 * Python's launch (runtime/exec/languages/python.ts): a script without a PEP 723 block gets
 * the skill's requirements.txt installed by uv, and only a regular file counts as one.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { planPython } from "../../../../src/runtime/exec/languages/python.ts";
import { tempDir } from "../../../helpers/cli.ts";

Deno.test("planPython() hands uv the skill root's requirements.txt for a script without a PEP 723 block", async () => {
  await using skill = await tempDir();
  await Deno.mkdir(join(skill.path, "scripts"));
  const script = join(skill.path, "scripts", "report.py");
  await Deno.writeTextFile(script, "import requests\n");
  const requirements = join(skill.path, "requirements.txt");
  await Deno.writeTextFile(requirements, "requests==2.32.3\n");
  const env = { PATH: skill.path, SKILLS_UV: "/opt/uv/bin/uv" };
  const plan = await planPython(script, ["--json"], env, "linux", skill.path);
  assert.deepEqual(plan, {
    command: "/opt/uv/bin/uv",
    args: [
      "run",
      "--no-project",
      "--with-requirements",
      requirements,
      "--script",
      script,
      "--json",
    ],
    launcher: "uv",
    fetchesPackages: true,
  });
});

Deno.test("planPython() takes no requirements.txt that is a symlink", async () => {
  await using skill = await tempDir();
  const script = join(skill.path, "report.py");
  await Deno.writeTextFile(script, "print('hi')\n");
  await Deno.writeTextFile(join(skill.path, "elsewhere.txt"), "requests\n");
  await Deno.symlink(join(skill.path, "elsewhere.txt"), join(skill.path, "requirements.txt"));
  const env = { PATH: skill.path, SKILLS_UV: "/opt/uv/bin/uv" };
  const plan = await planPython(script, [], env, "linux", skill.path);
  assert.deepEqual(plan, {
    command: "/opt/uv/bin/uv",
    args: ["run", "--script", script],
    launcher: "uv",
    fetchesPackages: false,
  });
});
