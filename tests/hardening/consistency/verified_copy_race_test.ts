/**
 * Concurrent runs of one skill build its verified private copy (trust/snapshot.ts) at the
 * same time: six `script_run` calls through the real MCP client in one server, and CLI
 * processes started together, all succeed — each run uses a complete copy verified against
 * the trusted digest, and no run deletes a copy another is using.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { connectStdio, envelopeOf } from "../../helpers/mcp_client.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";

const RUNS = 6;

/**
 * A trusted skill with one script and 300 reference files, so that building its copy takes
 * long enough for the runs to overlap.
 */
async function installWide(home: string, tmp: string): Promise<void> {
  const files: Record<string, string> = {
    "SKILL.md": "---\nname: wide\ndescription: Echoes its arguments. Use it in race tests.\n" +
      "---\n\n# Wide\n\nRun `scripts/echo.py`.\n",
    "scripts/echo.py": "# /// script\n# dependencies = []\n# ///\nimport json, sys\n" +
      'print(json.dumps({"args": sys.argv[1:]}))\n',
  };
  for (let i = 0; i < 300; i++) files[`references/part-${i}.md`] = `Part ${i}.\n`.repeat(50);
  await writeTree(join(tmp, "wide"), files);
  await installFixtureSkill(home, join(tmp, "wide"));
}

/** The verified copies now (removing them makes the next runs race again). */
async function copiesIn(home: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(home, ".cache", "run"))) {
    if (entry.isDirectory) names.push(entry.name);
  }
  return names.sort();
}

async function dropCopies(home: string): Promise<void> {
  const { removeIfExists } = await import("../../../src/runtime/os/fs.ts");
  await removeIfExists(join(home, ".cache", "run"));
}

Deno.test("six concurrent MCP script_run calls of a skill with no verified copy yet all succeed", async () => {
  await using tmp = await tempDir("skills-race-");
  const home = { path: join(tmp.path, "home") };
  await installWide(home.path, tmp.path);
  await using session = await connectStdio(
    { SKILLS_HOME: home.path, AGENT_SKILLS: "wide" },
    tmp.path,
  );
  for (let round = 0; round < 3; round++) {
    await dropCopies(home.path);
    const results = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        session.client.callTool({
          name: "script_run",
          arguments: { skill_name: "wide", script_name: "echo", args: [`run-${i}`] },
        })),
    );
    for (const [i, result] of results.entries()) {
      const envelope = envelopeOf(result);
      assert.equal(envelope.success, true, `round ${round}, run ${i}: ${JSON.stringify(envelope)}`);
      assert.deepEqual((envelope.result as { args: string[] }).args, [`run-${i}`, "--json"]);
    }
    assert.equal((await copiesIn(home.path)).length, 1, "one copy, no leftovers");
  }
});

Deno.test("CLI runs started together, each building the verified copy, all succeed", async () => {
  await using tmp = await tempDir("skills-race-");
  const home = { path: join(tmp.path, "home") };
  await installWide(home.path, tmp.path);
  const env = { SKILLS_HOME: home.path };
  for (let round = 0; round < 3; round++) {
    await dropCopies(home.path);
    const results = await Promise.all(
      Array.from(
        { length: 3 },
        (_, i) => runCli(["run", "wide", "echo", "--json", `cli-${i}`], { env, cwd: tmp.path }),
      ),
    );
    for (const [i, result] of results.entries()) {
      assert.equal(result.code, 0, `round ${round}, run ${i}: ${result.stderr}`);
      assert.deepEqual(JSON.parse(result.stdout).args, ["--json", `cli-${i}`]);
    }
    assert.equal((await copiesIn(home.path)).length, 1, "one copy, no leftovers");
  }
});
