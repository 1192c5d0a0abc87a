/**
 * What the user activated is accounted for: a skill that failed to load is named on stderr
 * by every command that serves skills, a `--skills` value is blamed as `--skills`, and
 * `AGENT_SKILLS=all-untrusted` really runs untrusted code — and says so.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { installFixtureSkill, installRunnerSkill } from "../../helpers/install_fixture.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

const BROKEN = /Skill 'broken' is active but failed to load: .*description/;

async function homeWithBrokenSkill() {
  const home = await tempDir();
  await using source = await tempDir();
  const dir = join(source.path, "broken");
  await writeTree(dir, { "SKILL.md": "---\nname: broken\n---\n\nNo description.\n" });
  await installFixtureSkill(home.path, dir);
  return home;
}

Deno.test("prompt, context, mcp and chat warn about an active skill that failed to load", async () => {
  await using home = await homeWithBrokenSkill();
  const env = { SKILLS_HOME: home.path, AGENT_SKILLS: "kalshi-markets,broken" };

  const prompt = await runCli(["prompt"], { env });
  assert.equal(prompt.code, 0);
  assert.match(prompt.stderr, BROKEN);
  assert.match(prompt.stdout, /<name>kalshi-markets<\/name>/);
  const onlyBroken = await runCli(["prompt"], { env: { ...env, AGENT_SKILLS: "broken" } });
  assert.match(onlyBroken.stderr, BROKEN);
  assert.match(onlyBroken.stderr, /No active skill loaded/);
  assert.doesNotMatch(onlyBroken.stderr, /set AGENT_SKILLS/);

  const context = await runCli(["context"], { env });
  assert.match(context.stderr, BROKEN);
  const contextJson = JSON.parse((await runCli(["context", "--json"], { env })).stdout);
  assert.ok(contextJson.warnings.some((w: string) => BROKEN.test(w)), contextJson.warnings);

  const mcp = await runCli(["mcp"], { env });
  assert.equal(mcp.code, 0);
  assert.match(mcp.stderr, BROKEN);

  const llm = await startLlmServer([{ text: "Hello." }]);
  try {
    const chat = await runCli(["chat", "-p", "hi"], {
      env: {
        ...env,
        SKILLS_MODEL: "openai:gpt-test",
        OPENAI_API_KEY: "sk-test",
        SKILLS_BASE_URL: llm.baseUrl,
      },
    });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stderr, BROKEN);
  } finally {
    await llm.close();
  }
});

Deno.test("a name passed with --skills is reported as coming from --skills", async () => {
  await using home = await tempDir();
  const context = await runCli(["context", "--skills", "nosuch"], {
    env: { SKILLS_HOME: home.path, AGENT_SKILLS: "kalshi-markets" },
  });
  assert.match(context.stderr, /Unknown skill\(s\) in --skills: nosuch/);
  assert.doesNotMatch(context.stderr, /in AGENT_SKILLS/);
});

Deno.test("AGENT_SKILLS=all-untrusted runs untrusted skills' scripts and says so", async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab", { trusted: false });
  const call = {
    name: "script_run",
    arguments: { skill_name: "runner-lab", script_name: "echo_args", args: ["x"] },
  };
  const llm = await startLlmServer([{ toolCalls: [call] }, { text: "Done." }]);
  try {
    const env = {
      SKILLS_HOME: home.path,
      SKILLS_MODEL: "openai:gpt-test",
      OPENAI_API_KEY: "sk-test",
      SKILLS_BASE_URL: llm.baseUrl,
      AGENT_SKILLS: "all-untrusted",
    };
    const chat = await runCli(["chat", "-p", "run it", "--json"], { env });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(
      chat.stderr,
      /AGENT_SKILLS=all-untrusted: untrusted code is enabled; the scripts and toolsets of runner-lab run without review/,
    );
    const doc = JSON.parse(chat.stdout);
    const result = doc.tool_calls[0].result;
    assert.equal(result.success, true, JSON.stringify(result));
    assert.deepEqual(result.result.args, ["x", "--json"]);

    const check = await runCli(["check"], { env });
    assert.match(check.stdout + check.stderr, /untrusted code is enabled/);
  } finally {
    await llm.close();
  }
});

Deno.test("skills list shows canonical names and a broken skill's reason", async () => {
  await using home = await homeWithBrokenSkill();
  await using source = await tempDir();
  const odd = join(source.path, "My_Skill_123");
  await Deno.mkdir(odd);
  await Deno.writeTextFile(
    join(odd, "SKILL.md"),
    "---\nname: My_Skill_123\ndescription: Installed under its written name.\n---\n\nBody.\n",
  );
  await installFixtureSkill(home.path, odd);
  const list = await runCli(["list"], { env: { SKILLS_HOME: home.path } });
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^my-skill-123\s/m, "the name every other command uses");
  assert.doesNotMatch(list.stdout, /My_Skill_123/);
  assert.match(list.stdout, /^broken \(broken\)\s/m);
  assert.match(list.stdout, /^Broken \(not loaded\):\n {2}broken: .*description/m);
});
