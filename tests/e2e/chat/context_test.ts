/**
 * Fixed context overhead, measured two ways that must agree: on the first request body
 * `skills chat` really sent to the scripted LLM server, and by `skills context --json`.
 */

import assert from "node:assert/strict";
import { fixedOverheadTokens } from "../../../src/agent/chat/tokens.ts";
import { withLlmServer } from "../../fixtures/llm_server.ts";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";
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

Deno.test("skills context --json prints the same bytes from its kept report, and counts a changed skill again", async () => {
  await using dir = await tempDir();
  const notes = (body: string) => ({ "SKILL.md": skillMd("notes", [], body) });
  await installSkill(dir.path, "notes", notes("# Notes\n\nShort."));
  const env = { SKILLS_HOME: dir.path, AGENT_SKILLS: "all", SKILLS_MODEL: "openai:gpt-test" };
  const run = async () => {
    const result = await runCli(["context", "--json"], { env });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const kept = () => [...Deno.readDirSync(join(dir.path, ".cache", "context"))].length;
  const first = await run();
  assert.equal(kept(), 1);
  assert.equal(await run(), first, "the kept report, byte for byte");
  assert.equal(kept(), 1, "the same inputs: the same entry");

  // Updated and trusted again: its activation is counted again, under another key.
  await installSkill(dir.path, "notes", notes(`# Notes\n\n${"Much longer now. ".repeat(40)}`));
  const cost = (doc: Json) => doc.skills.find((s: Json) => s.name === "notes").activation;
  const longer = JSON.parse(await run());
  assert.ok(cost(longer) > cost(JSON.parse(first)) + 100, JSON.stringify(longer.skills));
  assert.equal(kept(), 2);

  // Edited without trust: the activation is refused, and that is what is reported.
  await Deno.writeTextFile(join(dir.path, "notes", "SKILL.md"), skillMd("notes", [], "# Edited"));
  const edited = JSON.parse(await run()).skills.find((s: Json) => s.name === "notes");
  assert.match(edited.activation_error, /modified|changed|integrity|trust/i);
});
