/**
 * Fixed context overhead, measured two ways that must agree: on the first request body
 * `skills chat` really sent to the scripted LLM server, and by `skills context --json`.
 */

import assert from "node:assert/strict";
import { fixedOverheadTokens } from "../../../src/agent/chat/tokens.ts";
import { withLlmServer } from "../../fixtures/llm_server.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The first request `skills chat -p` sends with these active skills. */
async function firstChatRequest(
  home: string,
  agentSkills: string,
  model = "openai:gpt-test",
): Promise<Json> {
  return await withLlmServer([{ text: "ok" }], async (llm) => {
    const result = await runCli(["chat", "-p", "Hello"], {
      env: {
        SKILLS_HOME: home,
        AGENT_SKILLS: agentSkills,
        SKILLS_MODEL: model,
        OPENAI_API_KEY: "sk-test",
        ANTHROPIC_API_KEY: "ak-test",
        SKILLS_BASE_URL: llm.baseUrl,
      },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(llm.requests.length, 1);
    return llm.requests[0]!.body;
  });
}

async function contextJson(env: Record<string, string>, args: string[] = []): Promise<Json> {
  const result = await runCli(["context", "--json", ...args], { env });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

const BUDGETS: [string, number][] = [
  ["none", 150],
  ["kalshi-markets", 700],
  ["kalshi-markets,hello-extended", 800],
];

for (const [skills, budget] of BUDGETS) {
  Deno.test(`fixed overhead with AGENT_SKILLS=${skills} is ≤ ${budget} tokens and skills context reports it`, async () => {
    await using dir = await tempDir();
    const body = await firstChatRequest(dir.path, skills);
    const sent = fixedOverheadTokens(body);
    assert.ok(sent <= budget, `${sent} tokens > ${budget}`);
    const doc = await contextJson({
      SKILLS_HOME: dir.path,
      AGENT_SKILLS: skills,
      SKILLS_MODEL: "openai:gpt-test",
    });
    assert.equal(doc.total, sent);
    assert.equal(doc.system + doc.tools, doc.total);
    assert.equal(doc.encoding, "o200k_base");
    assert.equal(doc.model_configured, true);
    const active = skills === "none" ? [] : skills.split(",");
    assert.deepEqual(doc.skills.map((s: Json) => s.name).sort(), [...active].sort());
    if (active.length === 0) {
      assert.equal(doc.tool_count, 0);
      assert.equal(body.tools, undefined, "no skill tools are sent without active skills");
      assert.doesNotMatch(JSON.stringify(body), /available_skills/);
    }
    for (const skill of doc.skills) {
      assert.ok(skill.fixed > 0, JSON.stringify(skill));
      assert.ok(skill.activation > skill.fixed, JSON.stringify(skill));
    }
  });
}

Deno.test("skills context: --skills overrides AGENT_SKILLS, toolset tools show on activation", async () => {
  await using dir = await tempDir();
  const doc = await contextJson(
    { SKILLS_HOME: dir.path, AGENT_SKILLS: "none", SKILLS_MODEL: "openai:gpt-test" },
    ["--skills", "Hello_Extended"],
  );
  assert.deepEqual(doc.active, ["hello-extended"]);
  const [hello] = doc.skills;
  assert.equal(hello.name, "hello-extended");
  assert.ok(hello.tools_added.includes("hello_extended__greet_in_language"), JSON.stringify(hello));
  assert.ok(!doc.tool_names.includes("hello_extended__greet_in_language"));
});

Deno.test("skills context needs no model configuration and prints a readable summary", {
  ignore: SKIP_SLOW,
}, async () => {
  await using dir = await tempDir();
  const env = { SKILLS_HOME: dir.path, AGENT_SKILLS: "kalshi-markets" };
  const doc = await contextJson(env);
  assert.equal(doc.model_configured, false);
  assert.equal(doc.format, "openai-chat");
  const configured = await contextJson({ ...env, SKILLS_MODEL: "openai:gpt-test" });
  assert.equal(doc.total, configured.total);
  const human = await runCli(["context"], { env });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`^Fixed context: ${doc.total} tokens \\(o200k_base,`));
  assert.match(human.stdout, /^kalshi-markets +\+\d+ +\+\d+/m);
});

Deno.test("skills context measures the Anthropic request format the same way chat sends it", async () => {
  await using dir = await tempDir();
  const model = "anthropic:claude-test";
  const body = await firstChatRequest(dir.path, "kalshi-markets", model);
  assert.ok(typeof body.system === "string" || Array.isArray(body.system));
  const doc = await contextJson({
    SKILLS_HOME: dir.path,
    AGENT_SKILLS: "kalshi-markets",
    SKILLS_MODEL: model,
  });
  assert.equal(doc.format, "anthropic-messages");
  assert.equal(doc.total, fixedOverheadTokens(body));
});

Deno.test("skills context rejects an invalid SKILLS_MODEL with exit 2", async () => {
  await using dir = await tempDir();
  const result = await runCli(["context"], {
    env: { SKILLS_HOME: dir.path, SKILLS_MODEL: "nope:x" },
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /error: Unknown provider "nope"/);
});
