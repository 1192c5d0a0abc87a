import assert from "node:assert/strict";
import { isSkillError, type SkillError } from "../../../src/core/errors.ts";
import { type ScriptStep, withLlmServer } from "../../fixtures/llm_server.ts";
import { scriptedChatLoop } from "../../helpers/chat_loop.ts";
import { waitFor } from "../../helpers/wait.ts";
import { fakeSurface } from "./fake_surface.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function toolMessages(body: Json): Json[] {
  return (body.messages as Json[]).filter((m) => m.role === "tool");
}

async function rejectsWith(promise: Promise<unknown>): Promise<SkillError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isSkillError(error), `expected a SkillError, got ${error}`);
    return error;
  }
  assert.fail("expected the turn to fail");
}

for (const stream of [true, false]) {
  Deno.test(`runTurn() runs tool calls and sends their envelopes back as JSON text (stream: ${stream})`, async () => {
    await withLlmServer([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }], text: "Let me echo." },
      { text: "The echo said hi." },
    ], async (server) => {
      const surface = fakeSurface();
      const loop = scriptedChatLoop(server, surface, { stream });
      const deltas: string[] = [];
      const result = await loop.runTurn("echo hi", {
        observer: { onTextDelta: (t) => deltas.push(t) },
      });
      assert.equal(result.answer, "The echo said hi.");
      assert.equal(result.finish, "answer");
      assert.equal(result.steps, 2);
      assert.equal(result.toolCalls.length, 1);
      assert.equal(result.toolCalls[0]!.name, "echo");
      assert.deepEqual(result.toolCalls[0]!.arguments, { text: "hi" });
      assert.deepEqual(result.toolCalls[0]!.result, {
        success: true,
        result: { text: "hi" },
        message: "echoed",
      });
      assert.equal(deltas.join(""), "Let me echo.The echo said hi.");
      assert.equal(server.requests.length, 2);
      assert.ok(server.requests.every((r) => r.stream === stream));
      const [toolMessage] = toolMessages(server.requests[1]!.body);
      assert.equal(toolMessage.content, JSON.stringify(result.toolCalls[0]!.result));
      assert.equal(result.usage.requests, 2);
      assert.ok(result.usage.input_tokens >= 200);
      assert.equal(loop.messages.length, 4); // user, assistant, tool, assistant
    });
  });
}

Deno.test("runTurn() re-reads the tool list before every request", async () => {
  await withLlmServer([
    { toolCalls: [{ name: "activate_skill", arguments: { name: "demo" } }] },
    { toolCalls: [{ name: "demo__shout", arguments: { word: "hey" } }] },
    { text: "HEY" },
  ], async (server) => {
    const surface = fakeSurface();
    const result = await scriptedChatLoop(server, surface).runTurn("shout hey");
    const names = (i: number) =>
      (server.requests[i]!.body.tools as Json[]).map((t) => t.function.name);
    assert.ok(!names(0).includes("demo__shout"));
    assert.ok(names(1).includes("demo__shout"));
    assert.equal(result.toolCalls[1]!.result.success, true);
    assert.equal(server.requests[0]!.body.messages[0].role, "system");
    assert.match(server.requests[0]!.body.messages[0].content, /<available_skills>/);
  });
});

Deno.test("runTurn() answers malformed tool calls with error envelopes and carries on", async () => {
  await withLlmServer([
    {
      toolCalls: [
        { name: "echo", arguments: '{"text": "unterminated' },
        { name: "no_such_tool", arguments: {} },
      ],
    },
    { text: "Sorry." },
  ], async (server) => {
    const surface = fakeSurface();
    const result = await scriptedChatLoop(server, surface).runTurn("break things");
    assert.equal(result.answer, "Sorry.");
    const [bad, unknown] = result.toolCalls;
    assert.equal(bad!.result.success, false);
    assert.equal(bad!.result.success === false && bad!.result.error, "parse_error");
    assert.equal(bad!.arguments, '{"text": "unterminated');
    // unknown names go to the surface, which owns not_found / TOOL_NOT_ALLOWED
    assert.equal(unknown!.result.success === false && unknown!.result.error, "not_found");
    assert.deepEqual(surface.calls.map((c) => c.name), ["no_such_tool"]);
    const sent = toolMessages(server.requests[1]!.body).map((m) => JSON.parse(m.content));
    assert.equal(sent[0].error, "parse_error");
    assert.equal(sent[1].error, "not_found");
  });
});

Deno.test("runTurn() stops after maxSteps requests when the model keeps calling tools", async () => {
  const again: ScriptStep = { toolCalls: [{ name: "echo", arguments: { text: "again" } }] };
  await withLlmServer([again, again, again, again], async (server) => {
    const result = await scriptedChatLoop(server, fakeSurface(), { maxSteps: 3 }).runTurn("loop");
    assert.equal(result.finish, "max_steps");
    assert.equal(result.steps, 3);
    assert.equal(server.requests.length, 3);
    assert.equal(result.toolCalls.length, 3);
  });
});

Deno.test("runTurn() cancels a pending model request and rolls the conversation back", async () => {
  await withLlmServer([{ text: "first" }, { hang: true }], async (server) => {
    const loop = scriptedChatLoop(server, fakeSurface());
    await loop.runTurn("one");
    const before = loop.messages.length;
    const controller = new AbortController();
    const turn = loop.runTurn("two", { signal: controller.signal });
    await waitFor(() => server.requests.length >= 2, { what: "the second model request" });
    controller.abort();
    const error = await rejectsWith(turn);
    assert.equal(error.code, "cancelled");
    assert.equal(error.exitCode, 130);
    assert.equal(loop.messages.length, before);
  });
});

Deno.test("runTurn() cancels a running tool call through its signal", async () => {
  await withLlmServer([{ toolCalls: [{ name: "slow", arguments: {} }] }], async (server) => {
    const surface = fakeSurface();
    const loop = scriptedChatLoop(server, surface);
    const controller = new AbortController();
    const ended: string[] = [];
    const turn = loop.runTurn("be slow", {
      signal: controller.signal,
      observer: { onToolCallEnd: (r) => ended.push(r.name) },
    });
    await surface.slowStarted;
    controller.abort();
    const error = await rejectsWith(turn);
    assert.equal(error.code, "cancelled");
    assert.equal(surface.calls[0]!.aborted, true);
    assert.deepEqual(ended, ["slow"]);
    assert.equal(loop.messages.length, 0);
  });
});

Deno.test("runTurn() reports authentication failures with the key to check", async () => {
  await withLlmServer([{ status: 401, message: "Incorrect API key provided" }], async (server) => {
    const error = await rejectsWith(scriptedChatLoop(server, fakeSurface()).runTurn("hi"));
    assert.equal(error.code, "permission_denied");
    assert.match(error.message, /authentication failed \(HTTP 401: Incorrect API key provided\)/);
    assert.match(error.hint ?? "", /OPENAI_API_KEY/);
  });
});

Deno.test("runTurn() retries a rate limit and then reports it", async () => {
  const limited: ScriptStep = {
    status: 429,
    message: "Rate limit reached",
    headers: { "retry-after-ms": "5" },
  };
  await withLlmServer([limited, limited, limited], async (server) => {
    const loop = scriptedChatLoop(server, fakeSurface(), { maxRetries: 2 });
    const error = await rejectsWith(loop.runTurn("hi"));
    assert.equal(server.requests.length, 3);
    assert.match(error.message, /rate limited after 3 attempts \(HTTP 429: Rate limit reached\)/);
    assert.match(error.hint ?? "", /try again/);
  });
});

Deno.test("runTurn() does not retry HTTP 501: it names the endpoint and SKILLS_BASE_URL", async () => {
  const unimplemented: ScriptStep = { status: 501, message: "Method not implemented" };
  await withLlmServer([unimplemented, unimplemented, unimplemented], async (server) => {
    const loop = scriptedChatLoop(server, fakeSurface(), { maxRetries: 2 });
    const error = await rejectsWith(loop.runTurn("hi"));
    assert.equal(server.requests.length, 1, "a wrong endpoint is not retried");
    assert.equal(error.code, "execution_failed");
    assert.match(error.message, /chat\/completions is not an endpoint this server implements/);
    assert.match(error.message, /HTTP 501: Method not implemented/);
    assert.match(error.hint ?? "", /Check SKILLS_BASE_URL/);
    assert.doesNotMatch(`${error.message} ${error.hint}`, /try again|temporar/i);
  });
});

Deno.test("runTurn() reports a malformed response as parse_error", async () => {
  await withLlmServer([{ raw: "this is not json" }], async (server) => {
    const loop = scriptedChatLoop(server, fakeSurface(), { stream: false });
    const error = await rejectsWith(loop.runTurn("hi"));
    assert.equal(error.code, "parse_error", error.message);
    assert.match(error.message, /malformed/);
  });
});

Deno.test("runTurn() reports a malformed stream chunk as parse_error", async () => {
  const garbage = 'data: {"choices": "not a list"}\n\ndata: [DONE]\n\n';
  await withLlmServer([{ raw: garbage, contentType: "text/event-stream" }], async (server) => {
    const error = await rejectsWith(scriptedChatLoop(server, fakeSurface()).runTurn("hi"));
    assert.equal(error.code, "parse_error", error.message);
  });
});

Deno.test("runTurn() reports an unreachable endpoint as a network failure", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const error = await rejectsWith(
    scriptedChatLoop({ baseUrl: `http://127.0.0.1:${port}/v1` }, fakeSurface()).runTurn("hi"),
  );
  assert.match(error.message, new RegExp(`Cannot reach http://127\\.0\\.0\\.1:${port}/v1`));
  assert.match(error.hint ?? "", /SKILLS_BASE_URL/);
});

Deno.test("runTurn() speaks the Anthropic Messages format, streaming and not", async () => {
  for (const stream of [true, false]) {
    await withLlmServer([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: "Done." },
    ], async (server) => {
      const loop = scriptedChatLoop(server, fakeSurface(), { provider: "anthropic", stream });
      const result = await loop.runTurn("echo hi");
      assert.equal(result.answer, "Done.");
      const [first, second] = server.requests;
      assert.equal(first!.format, "anthropic");
      assert.equal(first!.stream, stream);
      assert.equal(first!.headers["x-api-key"], "ak-test");
      assert.match(JSON.stringify(first!.body.system), /<available_skills>/);
      assert.ok((first!.body.tools as Json[]).some((t) => t.name === "echo" && t.input_schema));
      const lastUser = (second!.body.messages as Json[]).at(-1);
      assert.equal(lastUser.content[0].type, "tool_result");
      assert.match(JSON.stringify(lastUser.content[0].content), /echoed/);
    });
  }
});
