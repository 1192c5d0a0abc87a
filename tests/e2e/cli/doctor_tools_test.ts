/**
 * `skills check` probes the runners of every script language in the table (not only python3,
 * uv and git), and says which missing ones are optional: a machine without bash is told that
 * only bash scripts need it, and one without `python` that python3 serves. Named checks run
 * alone: `skills check home` answers for the home without starting any tool.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runnerPrograms } from "../../../src/core/scripts/script_language.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";

/**
 * A PATH folder holding fake `python3` and `git` that print a version, and nothing else; each
 * start is noted in `<dir>/started`.
 */
async function fakeTools(dir: string): Promise<void> {
  for (const [name, version] of [["python3", "3.12.1"], ["git", "2.40.0"]]) {
    const path = join(dir, name!);
    await Deno.writeTextFile(
      path,
      `#!/bin/sh\necho ${name} >> "${dir}/started"\necho "${name} ${version}"\n`,
    );
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

Deno.test("skills check home looks at the home alone: no tool started, the other checks' fields absent", async () => {
  await using home = await tempDir();
  await using bin = await tempDir();
  await fakeTools(bin.path);
  const env = { SKILLS_HOME: home.path, PATH: bin.path, SKILLS_SANDBOX: "off" };
  const started = () => Deno.readTextFile(join(bin.path, "started")).catch(() => "");
  // An orphaned folder: the home is not consistent, and only its repair runs.
  await Deno.mkdir(join(home.path, "stray-skill"), { recursive: true });
  await Deno.writeTextFile(join(home.path, "stray-skill", "SKILL.md"), "---\nname: x\n---\n");
  const result = await runCli(["check", "home", "--json"], { env });
  assert.equal(result.code, 1, result.stderr);
  const json = JSON.parse(result.stdout);
  assert.deepEqual(json.consistency.orphans, [join(home.path, "stray-skill")]);
  for (const field of ["tools", "sandbox", "skills", "warnings"]) {
    assert.ok(!(field in json), `${field} in ${result.stdout}`);
  }
  assert.equal(await started(), "", "check home started a tool");
  const repaired = await runCli(["check", "home", "--repair"], { env });
  assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
  assert.doesNotMatch(repaired.stdout, /python3|Sandbox/);
  assert.match(repaired.stdout, /^skills \S+\nHome: .*\n\nHome:\n/, "one blank line a section");
  assert.equal(await started(), "");
  // The whole doctor starts them.
  await runCli(["check", "--json"], { env });
  assert.match(await started(), /python3/);
  const unknown = await runCli(["check", "homes"], { env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown check 'homes'/);
  // The checks the hint names are the doctor's table; the help names the same, in its words.
  const ids = /Name one of (.*)/.exec(unknown.stderr)![1]!.split(", ");
  assert.deepEqual(ids, ["skills", "tools", "sandbox", "home", "warnings", "project"]);
  const help = (await runCli(["check", "--help"], { env })).stdout.replace(/\s+/g, " ");
  assert.ok(help.includes(`${ids.join(", ")}.`), help);
});
