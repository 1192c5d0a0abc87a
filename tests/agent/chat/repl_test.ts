import assert from "node:assert/strict";
import { measureConversation } from "../../../src/agent/chat/accounting.ts";
import type { ChatLoop } from "../../../src/agent/chat/chat_loop.ts";
import { Repl, REPL_HELP } from "../../../src/agent/chat/repl.ts";
import { requestTokens } from "../../../src/agent/chat/tokens.ts";
import { memoryOutput } from "../../../src/core/io.ts";
import { type LlmServer, type ScriptStep, withLlmServer } from "../../fixtures/llm_server.ts";
import { scriptedChatLoop } from "../../helpers/chat_loop.ts";
import { type FakeSurface, fakeSurface } from "./fake_surface.ts";

interface Harness {
  repl: Repl;
  loop: ChatLoop;
  server: LlmServer;
  stdout: ReturnType<typeof memoryOutput>;
  stderr: ReturnType<typeof memoryOutput>;
  surfaces: FakeSurface[];
  /** Lines still to be read by `run()`; null entries mean end of input. */
  input: (string | null)[];
  interrupts: Set<() => void>;
  /** Ctrl-C subscribers seen by each readLine() call. */
  subscribedWhileReading: number[];
}

async function withRepl(
  script: ScriptStep[],
  fn: (h: Harness) => Promise<void>,
  options: { failReset?: boolean } = {},
): Promise<void> {
  await withLlmServer(script, async (server) => {
    const surfaces = [fakeSurface()];
    const loop = scriptedChatLoop(server, surfaces[0]!);
    const stdout = memoryOutput();
    const stderr = memoryOutput();
    const input: (string | null)[] = [];
    const interrupts = new Set<() => void>();
    const subscribedWhileReading: number[] = [];
    const repl = new Repl({
      loop,
      io: {
        stdout,
        stderr,
        color: false,
        readLine: () => {
          subscribedWhileReading.push(interrupts.size);
          return Promise.resolve(input.length > 0 ? input.shift()! : null);
        },
      },
      skills: [{ name: "demo", description: "A demo skill." }],
      openSurface: () => {
        if (options.failReset) return Promise.reject(new Error("surface broke"));
        const surface = fakeSurface();
        surfaces.push(surface);
        return Promise.resolve(surface);
      },
      measure: () => measureConversation(loop.provider, loop.surface, loop.messages),
      onInterrupt: (listener) => {
        interrupts.add(listener);
        return () => interrupts.delete(listener);
      },
    });
    await fn({
      repl,
      loop,
      server,
      stdout,
      stderr,
      surfaces,
      input,
      interrupts,
      subscribedWhileReading,
    });
  });
}

Deno.test("Repl streams the answer to stdout and shows each tool call as one line on stderr", async () => {
  await withRepl([
    { toolCalls: [{ name: "echo", arguments: { text: "hi" } }], text: "Checking." },
    { text: "It said hi." },
  ], async ({ repl, stdout, stderr }) => {
    assert.equal(await repl.handleLine("echo hi"), "continue");
    assert.equal(stdout.text(), "Checking.\nIt said hi.\n");
    assert.match(stderr.text(), /^→ echo \{"text":"hi"\} ✓ \d+\.\ds\n$/);
    assert.equal(repl.state, "idle");
    assert.equal(repl.usage.requests, 2);
  });
});

Deno.test("Repl /help, /tools and /skills describe the session; unknown commands get a hint", async () => {
  await withRepl([
    { toolCalls: [{ name: "activate_skill", arguments: { name: "demo" } }] },
    { text: "Ready." },
  ], async ({ repl, stdout, stderr }) => {
    await repl.handleLine("/help");
    assert.equal(stdout.text(), REPL_HELP);
    await repl.handleLine("/tools");
    assert.doesNotMatch(stdout.text(), /demo__shout/);
    await repl.handleLine("/skills");
    assert.match(stdout.text(), /^demo — A demo skill\.$/m);
    await repl.handleLine("use demo");
    assert.match(stderr.text(), /→ activate_skill demo ✓/);
    await repl.handleLine("/tools");
    assert.match(stdout.text(), /^demo__shout — Shout a word\.$/m);
    await repl.handleLine("/skills");
    assert.match(stdout.text(), /^demo \(activated\) — A demo skill\.$/m);
    await repl.handleLine("/frobnicate now");
    assert.match(stderr.text(), /Unknown command '\/frobnicate'\. Type \/help for the commands\./);
  });
});

Deno.test("Repl /context counts the fixed overhead and the conversation of the next request", async () => {
  await withRepl([{ text: "Hello there, how can I help?" }], async (h) => {
    await h.repl.handleLine("/context");
    const before = h.stdout.text();
    assert.match(before, /conversation 0,/);
    await h.repl.handleLine("hi");
    const fixed = requestTokens(h.server.requests[0]!.body).fixed;
    await h.repl.handleLine("/context");
    const after = h.stdout.text().slice(before.length);
    const match = after.match(/fixed (\d+) .*conversation (\d+), total (\d+)/);
    assert.ok(match, after);
    assert.equal(Number(match[1]), fixed);
    assert.ok(Number(match[2]) > 5);
    assert.equal(Number(match[3]), fixed + Number(match[2]));
    assert.match(after, /this session: 1 requests, 100 input/);
  });
});

Deno.test("Repl /reset forgets the conversation and opens a fresh tool surface", async () => {
  await withRepl([{ text: "One." }], async ({ repl, loop, surfaces, stderr }) => {
    await repl.handleLine("first");
    assert.equal(loop.messages.length, 2);
    await repl.handleLine("/reset");
    assert.equal(loop.messages.length, 0);
    assert.equal(surfaces.length, 2);
    assert.equal(surfaces[0]!.closed, true);
    assert.equal(loop.surface, surfaces[1]);
    assert.match(stderr.text(), /Conversation reset\./);
  });
});

Deno.test("Repl Ctrl-C during a long tool call cancels the turn and keeps the REPL", async () => {
  await withRepl([
    { toolCalls: [{ name: "slow", arguments: {} }] },
    { text: "Still here." },
  ], async ({ repl, loop, surfaces, stdout, stderr }) => {
    const turn = repl.handleLine("take your time");
    await surfaces[0]!.slowStarted;
    assert.equal(repl.state, "turn");
    assert.equal(repl.interrupt(), "cancelled");
    await turn;
    assert.equal(surfaces[0]!.calls[0]!.aborted, true);
    assert.match(stderr.text(), /→ slow ✗ cancelled \d+\.\ds\n\^C turn cancelled\n/);
    assert.equal(repl.state, "idle");
    assert.equal(loop.messages.length, 0);
    await repl.handleLine("are you there?");
    assert.match(stdout.text(), /Still here\.\n$/);
  });
});

Deno.test("Repl /context keeps the provider usage of a cancelled turn's completed requests", async () => {
  await withRepl([
    { toolCalls: [{ name: "echo", arguments: { text: "one" } }] },
    { toolCalls: [{ name: "slow", arguments: {} }] },
    { text: "Still here." },
  ], async ({ repl, surfaces, stdout, stderr }) => {
    const turn = repl.handleLine("echo, then take your time");
    await surfaces[0]!.slowStarted;
    assert.equal(repl.interrupt(), "cancelled");
    await turn;
    assert.match(stderr.text(), /\^C turn cancelled\n/);
    assert.equal(repl.usage.requests, 2, "the two completed requests count");
    assert.ok(repl.usage.input_tokens > 0);
    await repl.handleLine("/context");
    assert.match(stdout.text(), /Reported by the provider this session: 2 requests, /);
  });
});

Deno.test("Repl run() reads lines until Ctrl-D and /exit stops reading", async () => {
  await withRepl([{ text: "Pong." }], async (h) => {
    const { repl, input, stdout, stderr, interrupts } = h;
    input.push("ping", "/exit", "never read");
    assert.equal(await repl.run(), 0);
    // Ctrl-C was subscribed while reading, and released at the end
    assert.deepEqual(h.subscribedWhileReading, [1, 1]);
    assert.equal(stdout.text(), "Pong.\n");
    assert.deepEqual(input, ["never read"]);
    assert.equal(repl.state, "closed");
    assert.equal(interrupts.size, 0);
    assert.match(stderr.text(), /^> > $/);
  });
  await withRepl([], async ({ repl, input, stderr }) => {
    input.push("/help", null);
    assert.equal(await repl.run(), 0);
    assert.equal(repl.state, "closed");
    assert.match(stderr.text(), /> > \n$/);
  });
});

Deno.test("Repl Ctrl-C at the prompt reminds how to leave", async () => {
  await withRepl([], ({ repl, stderr }) => {
    assert.equal(repl.interrupt(), "idle");
    assert.match(stderr.text(), /Type \/exit or press Ctrl-D to leave/);
    return Promise.resolve();
  });
});

Deno.test("Repl reports a provider error and keeps running", async () => {
  await withRepl([
    { status: 401, message: "bad key" },
    { text: "Recovered." },
  ], async ({ repl, stdout, stderr }) => {
    await repl.handleLine("hi");
    assert.match(
      stderr.text(),
      /error: .*authentication failed \(HTTP 401: bad key\)\nhint: Check OPENAI_API_KEY/,
    );
    await repl.handleLine("hi again");
    assert.equal(stdout.text(), "Recovered.\n");
  });
});

Deno.test("Repl reports a failing slash command and keeps the conversation", async () => {
  await withRepl([{ text: "Kept." }], async ({ repl, loop, stderr }) => {
    await repl.handleLine("hi");
    assert.equal(await repl.handleLine("/reset"), "continue");
    assert.match(stderr.text(), /error: surface broke\n/);
    assert.equal(loop.messages.length, 2);
    assert.equal(repl.state, "idle");
  }, { failReset: true });
});
