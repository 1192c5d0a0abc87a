/**
 * The tool surface is the one owner of which skills are active. A turn cancelled right
 * after `activate_skill` rolls back its messages AND its activations, with the real
 * surface (toolset host and all) and the real chat loop against the scripted LLM server.
 */

import assert from "node:assert/strict";
import { ChatLoop } from "../../../src/agent/chat/chat_loop.ts";
import { createLanguageModel, resolveProviderConfig } from "../../../src/agent/chat/providers.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { tempDir } from "../../helpers/cli.ts";
import { waitFor } from "../../helpers/wait.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };
const GREET = "hello_extended__greet_in_language";
const BODY_LINE = "A small example skill that shows both ways a skill can offer";

Deno.test("a turn cancelled after activate_skill rolls back the activation with the conversation", async () => {
  await using dir = await tempDir();
  const catalog = await loadCatalog(dir.path);
  const surface = await createToolSurface({
    home: dir.path,
    catalog,
    active: new Set(["hello-extended"]),
    env: ENV,
  });
  const activate = { name: "activate_skill", arguments: { name: "hello-extended" } };
  const server = await startLlmServer([
    { toolCalls: [activate] }, // turn 1: activate …
    { hang: true }, //            … then the next request hangs until Ctrl-C
    { toolCalls: [activate] }, // turn 2: activate again
    { text: "done" },
  ]);
  try {
    const config = resolveProviderConfig({
      SKILLS_MODEL: "openai:test-model",
      OPENAI_API_KEY: "sk-test",
      SKILLS_BASE_URL: server.baseUrl,
    });
    const loop = new ChatLoop({
      model: createLanguageModel(config, fetch),
      provider: config,
      surface,
      maxRetries: 0,
    });
    const controller = new AbortController();
    const turn = loop.runTurn("greet me", { signal: controller.signal });
    await waitFor(() => server.requests.length >= 2, {
      what: "the second model request",
      timeoutMs: 20_000,
    });
    assert.deepEqual([...loop.activated], ["hello-extended"], "activated during the turn");
    assert.ok(surface.listTools().some((t) => t.name === GREET), "toolset mounted");
    controller.abort();
    await assert.rejects(turn, (error) => isSkillError(error) && error.code === "cancelled");

    assert.deepEqual(loop.messages, [], "the conversation is rolled back");
    assert.deepEqual([...loop.activated], [], "so is the activation");
    assert.deepEqual([...surface.activated()], []);
    assert.ok(!surface.listTools().some((t) => t.name === GREET), "toolset tools unmounted");

    const result = await loop.runTurn("greet me");
    assert.equal(result.answer, "done");
    const envelope = result.toolCalls[0]!.result;
    assert.equal(envelope.success, true);
    const content = (envelope as { result: unknown }).result;
    assert.equal(typeof content, "string");
    assert.ok((content as string).includes(BODY_LINE), "the instructions are sent again");
    assert.doesNotMatch(content as string, /already active/);
    assert.ok(surface.listTools().some((t) => t.name === GREET), "toolset mounted again");
  } finally {
    await server.close();
    await surface.close();
  }
});
