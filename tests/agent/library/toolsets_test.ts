/**
 * A stored skill's toolset through the library, the way a program uses it: one AI SDK
 * `generateText` call (tools built once, before any activation) activates the bundled
 * hello-extended skill and calls one of its toolset tools, against a local server speaking
 * the OpenAI chat-completions wire format. The toolset host is the real one (python3).
 */

import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { openSkills } from "../../../mod.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { tempDir } from "../../helpers/cli.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

Deno.test("one generateText call activates a stored skill with a toolset and calls its tool", async () => {
  await using home = await tempDir("skills-library-toolsets-");
  await using skills = await openSkills({
    installed: ["hello-extended"],
    env: ENV,
    home: home.path,
  });
  const llm = await startLlmServer([
    { toolCalls: [{ name: "activate_skill", arguments: { name: "hello-extended" } }] },
    {
      toolCalls: [{
        name: "call_skill_tool",
        arguments: {
          skill: "hello-extended",
          tool: "greet_in_language",
          input: { name: "Ada", language: "fr" },
        },
      }],
    },
    { text: "It says Bonjour, Ada!" },
  ]);
  let result;
  try {
    const provider = createOpenAICompatible({ name: "gateway", baseURL: llm.baseUrl });
    result = await generateText({
      model: provider.chatModel("test-model"),
      system: skills.systemPrompt,
      tools: skills.tools(),
      stopWhen: stepCountIs(5),
      prompt: "Greet Ada in French.",
    });
  } finally {
    await llm.close();
  }
  // Every call found its tool (no AI_NoSuchToolError) and the model got the greeting.
  assert.equal(result.text, "It says Bonjour, Ada!");
  const outputs = result.steps.flatMap((step) => step.toolResults);
  assert.equal(outputs.length, 2);
  const activation = outputs[0]!.output as { success: boolean; result: string };
  assert.ok(activation.success);
  // The toolset's tools are documented on activation, to be called through the dispatcher.
  assert.match(activation.result, /<skill_tools skill="hello-extended">/);
  assert.match(activation.result, /- greet_in_language: /);
  assert.match(activation.result, /"language"/);
  const greeting = outputs[1]!.output as { success: boolean; result: unknown };
  assert.equal(greeting.success, true, JSON.stringify(greeting));
  assert.match(JSON.stringify(greeting.result), /Bonjour, Ada!/);
  assert.match(JSON.stringify(llm.requests[2]!.body.messages), /Bonjour, Ada!/);
  // The tools the model was offered did not change during the call: call_skill_tool was
  // there from the start.
  const offered = llm.requests.map((r) =>
    r.body.tools.map((t: { function: { name: string } }) => t.function.name).join(",")
  );
  assert.equal(new Set(offered).size, 1);
  assert.ok(offered[0]!.includes("call_skill_tool"), offered[0]);
});

Deno.test("a stored toolset tool through call_skill_tool: refused before activation, then reached by either name", async () => {
  await using home = await tempDir("skills-library-toolsets-");
  await using skills = await openSkills({
    installed: ["hello-extended"],
    env: ENV,
    home: home.path,
  });
  const call = (tool: string, input: unknown) =>
    skills.callTool("call_skill_tool", { skill: "hello-extended", tool, input });
  const early = await call("greet_in_language", { name: "Ada" });
  assert.equal(early.success, false);
  assert.match(
    early.success ? "" : early.message,
    /call activate_skill with name 'hello-extended' first/,
  );
  assert.ok((await skills.callTool("activate_skill", { name: "hello-extended" })).success);
  const byMethod = await call("greet_in_language", { name: "Ada", language: "de" });
  assert.ok(byMethod.success, JSON.stringify(byMethod));
  assert.match(JSON.stringify(byMethod.result), /Hallo, Ada!/);
  const qualified = await call("hello_extended__greet_in_language", { name: "Bo" });
  assert.ok(qualified.success, JSON.stringify(qualified));
  const unknown = await call("nope", {});
  assert.equal(unknown.success ? "" : unknown.error, "not_found");
  assert.match(unknown.success ? "" : unknown.message, /its tools: greet_in_language/);
  // Listed tools stay the same after activation: nothing a running generateText lacks.
  assert.ok(!skills.toolDefinitions().some((t) => t.name.startsWith("hello_extended__")));
});
