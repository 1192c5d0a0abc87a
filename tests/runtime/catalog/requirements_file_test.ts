/**
 * Where a Python script's requirements file is found (runtime/catalog/requirements_file.ts):
 * beside the script first, else at the skill root; only a regular file, never a symlink.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { requirementsFile } from "../../../src/runtime/catalog/requirements_file.ts";
import { tempDir } from "../../helpers/cli.ts";

Deno.test("requirementsFile() takes the script's folder first, then the skill root, never a link", async () => {
  await using skill = await tempDir();
  const folder = join(skill.path, "scripts", "gif");
  await Deno.mkdir(folder, { recursive: true });
  const script = join(folder, "make.py");
  assert.equal(requirementsFile(script, skill.path), undefined);
  await Deno.writeTextFile(join(skill.path, "requirements.txt"), "imageio\n");
  assert.equal(requirementsFile(script, skill.path), join(skill.path, "requirements.txt"));
  assert.equal(requirementsFile(script, undefined), undefined, "no skill root: beside it only");
  await Deno.symlink(join(skill.path, "requirements.txt"), join(folder, "requirements.txt"));
  assert.equal(requirementsFile(script, skill.path), join(skill.path, "requirements.txt"));
  await Deno.remove(join(folder, "requirements.txt"));
  await Deno.writeTextFile(join(folder, "requirements.txt"), "pillow\n");
  assert.equal(requirementsFile(script, skill.path), join(folder, "requirements.txt"));
});
