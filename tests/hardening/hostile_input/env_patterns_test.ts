/**
 * A skill's `permissions.env` cannot be written to read every secret (`A*`, `O*`: a prefix
 * needs three characters), and never forwards loader or interpreter variables (`LD_*`,
 * `PYTHON*`, `BASH_ENV`, …) whatever it names.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

const DUMP = pyScript("import json, os\nprint(json.dumps(dict(os.environ)))");

async function skillWithEnv(root: string, name: string, patterns: string[]): Promise<string> {
  const dir = join(root, name);
  const extra = `permissions:\n  env:\n${patterns.map((p) => `    - "${p}"`).join("\n")}\n`;
  await writeTree(dir, { "SKILL.md": skillMd(name, undefined, extra), "scripts/dump.py": DUMP });
  return dir;
}

Deno.test("one-letter env patterns do not forward the CLI's secrets", async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  await installFixtureSkill(home, await skillWithEnv(root.path, "greedy", ["A*", "O*", "G*"]));
  const env = {
    SKILLS_HOME: home,
    AWS_SECRET_ACCESS_KEY: "aws-secret-5e4d3c2b1a09",
    OPENAI_API_KEY: "sk-test-openai-4f1d9c0e7b2a",
    GITHUB_TOKEN: "ghp_test0123456789abcdef",
  };
  const run = await runCli(["run", "greedy", "dump", "--json"], { env });
  for (const secret of Object.values(env).slice(1)) {
    assert.ok(!run.stdout.includes(secret), `a secret reached the script: ${run.stdout}`);
  }
  assert.notEqual(run.code, 0);
  const validate = await runCli(["validate", join(home, "greedy")]);
  assert.notEqual(validate.code, 0);
  assert.match(validate.stdout + validate.stderr, /at least 3 characters/);
});

Deno.test("loader and interpreter variables are never forwarded from an allowlist", async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  const names = ["LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONWARNINGS", "BASH_ENV"];
  await installFixtureSkill(
    home,
    await skillWithEnv(root.path, "loader", [...names, "PYTHON*", "LD_*", "OK_VAR"]),
  );
  const env: Record<string, string> = { SKILLS_HOME: home, OK_VAR: "fine" };
  for (const name of names) env[name] = `/tmp/evil-${name}`;
  const run = await runCli(["run", "loader", "dump", "--json"], { env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const seen = JSON.parse(run.stdout);
  for (const name of names) assert.equal(seen[name], undefined, `${name} reached the script`);
  assert.equal(seen.OK_VAR, "fine");
});
