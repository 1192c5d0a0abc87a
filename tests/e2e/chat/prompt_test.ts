/**
 * `skills prompt` end to end. Its output without locations is byte-identical to the block
 * the chat loop sends — checked on the request body a scripted local LLM server records —
 * while the chat loop never sends a host path (the provider sees no folder of this machine).
 */

import assert from "node:assert/strict";
import { renderAvailableSkills } from "../../../src/agent/surface/system_prompt.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { withLlmServer } from "../../fixtures/llm_server.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";

const BOTH = "kalshi-markets,hello-extended";

Deno.test("skills prompt prints the <available_skills> block with SKILL.md locations", async () => {
  await using home = await tempDir();
  const result = await runCli(["prompt", "--skills", BOTH], { env: { SKILLS_HOME: home.path } });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  const catalog = await loadCatalog(home.path);
  const expected = renderAvailableSkills(
    catalog.skills.map((s) => ({
      name: s.canonical,
      description: s.manifest.description,
      location: s.skillMdPath,
    })),
  );
  assert.equal(result.stdout, `${expected}\n`);
  assert.match(result.stdout, /<location>\/.+\/hello-extended\/SKILL\.md<\/location>/);

  // The tool surface renders the identical block when asked for locations.
  const surface = await createToolSurface({
    home: home.path,
    catalog,
    active: new Set(BOTH.split(",")),
    env: {},
    includeLocation: true,
  });
  try {
    assert.ok(surface.systemPrompt.endsWith(`\n\n${result.stdout.slice(0, -1)}`));
  } finally {
    await surface.close();
  }
});

Deno.test("skills prompt --no-location is byte-identical to the block skills chat sends, which names no host path", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path, AGENT_SKILLS: BOTH };
  const prompt = await runCli(["prompt", "--no-location"], { env });
  assert.equal(prompt.code, 0, prompt.stderr);
  const block = prompt.stdout.slice(0, -1);
  assert.ok(block.startsWith("<available_skills>\n") && block.endsWith("</available_skills>"));

  await withLlmServer([{ text: "done" }], async (server) => {
    const chat = await runCli(["chat", "-p", "hi"], {
      env: { ...env, SKILLS_MODEL: "openai-compatible:scripted", SKILLS_BASE_URL: server.baseUrl },
    });
    assert.equal(chat.code, 0, chat.stderr);
    const messages = server.requests[0]!.body.messages as { role: string; content: string }[];
    const system = messages.find((m) => m.role === "system")!.content;
    const start = system.indexOf("<available_skills>");
    assert.equal(system.slice(start), block);
    // The provider is told no folder of this machine (issue 40: 46 of kalshi's 145 tokens).
    assert.doesNotMatch(system, /<location>|\/SKILL\.md/);
    assert.ok(!system.includes(home.path), "no host path reaches the provider");
  });
});

Deno.test("skills prompt --format markdown and --json", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const markdown = await runCli(["prompt", "--skills", "hello-extended", "--format", "markdown"], {
    env,
  });
  assert.equal(markdown.code, 0, markdown.stderr);
  assert.match(
    markdown.stdout,
    /^## Available skills\n\n- \*\*hello-extended\*\*: Greets people in six languages .*\(`\/.+\/hello-extended\/SKILL\.md`\)\n$/,
  );

  const json = await runCli(["prompt", "--skills", "hello-extended", "--json", "--no-location"], {
    env,
  });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.format, "xml");
  assert.deepEqual(doc.skills.map((s: { name: string }) => s.name), ["hello-extended"]);
  assert.equal(doc.skills[0].location, null);
  assert.match(doc.text, /^<available_skills>\n<skill>\n<name>hello-extended<\/name>/);
});

Deno.test("skills prompt with no active skill prints nothing and says how to activate", async () => {
  await using home = await tempDir();
  const result = await runCli(["prompt"], { env: { SKILLS_HOME: home.path } });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /No active skills: set AGENT_SKILLS/);

  const unknown = await runCli(["prompt", "--skills", "nope"], { env: { SKILLS_HOME: home.path } });
  assert.equal(unknown.code, 0);
  assert.match(unknown.stderr, /nope/);

  const bad = await runCli(["prompt", "--format", "yaml"], { env: { SKILLS_HOME: home.path } });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Unknown format 'yaml'/);
});
