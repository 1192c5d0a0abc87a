/**
 * Python's launch (runtime/exec/languages/python.ts): a script without a PEP 723 block gets
 * the skill's requirements.txt installed by uv, and only a regular file counts as one; without
 * uv, the packages it lists run with python3 when they import there, and are named when not.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { planPython } from "../../../../src/runtime/exec/languages/python.ts";
import { tempDir } from "../../../helpers/cli.ts";
import { realPython } from "../../../helpers/python.ts";
import { SkillError } from "../../../../src/core/errors.ts";

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

Deno.test("planPython() without uv runs python3 when every package requirements.txt lists imports, and names the ones that do not", async () => {
  await using skill = await tempDir();
  await Deno.mkdir(join(skill.path, "scripts"));
  const script = join(skill.path, "scripts", "make.py");
  await Deno.writeTextFile(script, "import gifkit\n");
  // The skill root is on the script's sys.path: a module it ships there imports.
  await Deno.writeTextFile(join(skill.path, "gifkit.py"), "VERSION = 1\n");
  const requirements = join(skill.path, "requirements.txt");
  await Deno.writeTextFile(requirements, "# what make.py needs\ngifkit>=1.0\n");
  const python = await realPython();
  const env = { PATH: "/nonexistent", SKILLS_PYTHON: python };
  assert.deepEqual(await planPython(script, ["--json"], env, "linux", skill.path), {
    command: python,
    args: [script, "--json"],
    launcher: "python3",
  });

  await Deno.writeTextFile(requirements, "gifkit>=1.0\nno-such-package-xq==1.0\n");
  await assert.rejects(
    () => planPython(script, [], env, "linux", skill.path),
    (error: unknown) => {
      assert.ok(error instanceof SkillError);
      assert.equal(error.code, "dependency_unavailable");
      assert.ok(
        error.message.includes(
          `needs the Python package no-such-package-xq (listed in requirements.txt), not installed for ${python}, and uv is not installed`,
        ),
        error.message,
      );
      assert.match(error.hint ?? "", /-m pip install no-such-package-xq$/);
      return true;
    },
  );

  // A file with an option may install what no line names: uv is needed to tell.
  await Deno.writeTextFile(requirements, "-r base.txt\ngifkit\n");
  await assert.rejects(
    () => planPython(script, [], env, "linux", skill.path),
    (error: unknown) =>
      error instanceof SkillError &&
      error.message.includes(`needs the packages listed in requirements.txt and uv`),
  );
});
