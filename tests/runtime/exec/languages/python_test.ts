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

Deno.test("planPython() of a help run starts python3 though a declared package is missing, keeping the refusal for a failed run", async () => {
  await using skill = await tempDir();
  await Deno.mkdir(join(skill.path, "scripts"));
  const script = join(skill.path, "scripts", "make.py");
  await Deno.writeTextFile(
    script,
    "# /// script\n# dependencies = ['no-such-package-xq']\n# ///\n",
  );
  const python = await realPython();
  const env = { PATH: "/nonexistent", SKILLS_PYTHON: python };
  const refused = await planPython(script, ["--help"], env, "linux", skill.path).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof SkillError && refused.code === "dependency_unavailable");
  const help = await planPython(script, ["--help"], env, "linux", skill.path, true);
  assert.deepEqual([help.command, help.args, help.launcher], [
    python,
    [script, "--help"],
    "python3",
  ]);
  // The same refusal, message and hint, for the run to raise if the help fails.
  assert.deepEqual([help.unmet?.code, help.unmet?.message, help.unmet?.hint], [
    refused.code,
    refused.message,
    refused.hint,
  ]);
});
