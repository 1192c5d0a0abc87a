/**
 * `skills check` probes the runners of every script language in the table (not only python3,
 * uv and git), and says which missing ones are optional: a machine without bash is told that
 * only bash scripts need it, and one without `python` that python3 serves.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runnerPrograms } from "../../../src/core/scripts/script_language.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";

/** A PATH folder holding fake `python3` and `git` that print a version, and nothing else. */
async function fakeTools(dir: string): Promise<void> {
  for (const [name, version] of [["python3", "3.12.1"], ["git", "2.40.0"]]) {
    const path = join(dir, name!);
    await Deno.writeTextFile(path, `#!/bin/sh\necho "${name} ${version}"\n`);
    await Deno.chmod(path, 0o755);
  }
}

Deno.test("skills check probes every script language's runners and marks the optional ones", async () => {
  await using home = await tempDir();
  await using bin = await tempDir();
  await fakeTools(bin.path);
  const env = { SKILLS_HOME: home.path, PATH: bin.path, SKILLS_SANDBOX: "off" };
  const json = await runCli(["check", "--json"], { env });
  const tools: { name: string; found: boolean }[] = JSON.parse(json.stdout).tools;
  assert.deepEqual(
    tools.map((t) => t.name).sort(),
    [...new Set(["python3", "uv", "git", ...runnerPrograms()])].sort(),
  );
  const found = new Set(tools.filter((t) => t.found).map((t) => t.name));
  assert.ok(found.has("python3") && found.has("git"), JSON.stringify(tools));
  assert.ok(!found.has("bash") && !found.has("uv") && !found.has("python"), JSON.stringify(tools));
  const text = await runCli(["check"], { env });
  assert.match(text.stdout, /✓ python3 3\.12\.1/);
  assert.match(
    text.stdout,
    /○ bash - not found on PATH \(optional: needed only for bash scripts\)/,
  );
  assert.match(text.stdout, /○ python - not found on PATH \(optional: another runner is found\)/);
  assert.doesNotMatch(text.stdout, /✗/);
});
