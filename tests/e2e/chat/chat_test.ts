/**
 * `skills chat` end to end: the real CLI against the scripted LLM server (OpenAI chat
 * completions, streaming and not; Anthropic Messages) and the Kalshi fixture.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fixedOverheadTokens } from "../../../src/agent/chat/tokens.ts";
import { type KalshiFixture, startKalshiFixture } from "../../fixtures/kalshi_server.ts";
import {
  type LlmServer,
  type RecordedLlmRequest,
  type ScriptStep,
  startLlmServer,
} from "../../fixtures/llm_server.ts";
import { REPO_ROOT, runCli, tempDir } from "../../helpers/cli.ts";
import { withoutSandboxNotice } from "../../helpers/sandbox.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const KALSHI_DIR = join(REPO_ROOT, "skills", "core", "kalshi-markets");

interface Fixtures {
  llm: LlmServer;
  kalshi: KalshiFixture;
  home: string;
  env(extra?: Record<string, string>): Record<string, string>;
}

async function withFixtures(
  script: ScriptStep[],
  fn: (f: Fixtures) => Promise<void>,
): Promise<void> {
  await using dir = await tempDir();
  const llm = await startLlmServer(script);
  const kalshi = await startKalshiFixture();
  try {
    await fn({
      llm,
      kalshi,
      home: dir.path,
      env: (extra = {}) => ({
        SKILLS_HOME: dir.path,
        SKILLS_MODEL: "openai:gpt-test",
        OPENAI_API_KEY: "sk-test",
        SKILLS_BASE_URL: llm.baseUrl,
        KALSHI_API_BASE: kalshi.baseUrl,
        // The sandbox lets scripts reach the loopback stand-in for the Kalshi API only when granted.
        SKILLS_ALLOW_NET: new URL(kalshi.baseUrl).host,
        ...extra,
      }),
    });
  } finally {
    await llm.close();
    await kalshi.close();
  }
}

/** The envelope of the last tool message in an OpenAI request. */
function lastToolEnvelope(request: RecordedLlmRequest): Json {
  const tool = (request.body.messages as Json[]).filter((m) => m.role === "tool").at(-1);
  return JSON.parse(tool.content);
}

/** The Kalshi flow: activate → script_help(status) → script_run(status) → answer. */
function kalshiScript(): ScriptStep[] {
  return [
    { toolCalls: [{ name: "activate_skill", arguments: { name: "kalshi-markets" } }] },
    {
      toolCalls: [{
        name: "script_help",
        arguments: { skill_name: "kalshi-markets", script_name: "status" },
      }],
    },
    {
      toolCalls: [{
        name: "script_run",
        arguments: { skill_name: "kalshi-markets", script_name: "status", args: [], json: true },
      }],
    },
    (request) => {
      const envelope = lastToolEnvelope(request);
      return {
        text: `Status envelope success=${envelope.success}: ${JSON.stringify(envelope.result)}`,
      };
    },
  ];
}

/** Code lines of a script (no quotes, so they would appear verbatim inside JSON). */
async function codeLines(path: string): Promise<string[]> {
  const source = await Deno.readTextFile(path);
  return source.split("\n").filter((line) =>
    /^(def|class|import|from) /.test(line) && !/["\\]/.test(line)
  );
}

async function assertKalshiFlowRequests(llm: LlmServer): Promise<void> {
  assert.equal(llm.requests.length, 4);
  // no script source code went to the model
  const code = await codeLines(join(KALSHI_DIR, "scripts", "status.py"));
  assert.ok(code.length > 5);
  for (const request of llm.requests) {
    for (const line of code) assert.ok(!request.text.includes(line), `sent source: ${line}`);
  }
  // the SKILL.md body appears only after activation
  const bodyLine = "Tickers nest: series";
  assert.ok(!llm.requests[0]!.text.includes(bodyLine));
  assert.ok(llm.requests[1]!.text.includes(bodyLine));
  assert.match(
    String(lastToolEnvelope(llm.requests[1]!).result),
    /^<skill_content name="kalshi-markets">/,
  );
  // script_help went out before script_run, and script_run's result came back
  const help = lastToolEnvelope(llm.requests[2]!);
  assert.equal(help.success, true);
  assert.match(JSON.stringify(help.result), /usage: status/);
  const run = lastToolEnvelope(llm.requests[3]!);
  assert.equal(run.success, true, JSON.stringify(run));
}

Deno.test("skills chat -p completes activate → script_help → script_run → answer (streaming)", async () => {
  await withFixtures(kalshiScript(), async ({ llm, kalshi, env }) => {
    const result = await runCli(["chat", "-p", "Is Kalshi trading open?"], {
      env: env({ AGENT_SKILLS: "kalshi-markets" }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(llm.requests.every((r) => r.stream), "the REPL/one-shot path streams");
    await assertKalshiFlowRequests(llm);
    assert.match(result.stdout, /^Status envelope success=true: \{.*\}\n$/);
    // Where bubblewrap cannot work, the policy-mode notice comes first, on a line of its own.
    const lines = withoutSandboxNotice(result.stderr).trim().split("\n");
    assert.match(lines[0]!, /^→ activate_skill kalshi-markets ✓ \d+\.\ds$/);
    assert.match(lines[1]!, /^→ script_help kalshi-markets status ✓ \d+\.\ds$/);
    assert.match(lines[2]!, /^→ script_run kalshi-markets status --json ✓ \d+\.\ds$/);
    assert.equal(lines.length, 3, result.stderr);
    assert.ok(kalshi.requests.some((r) => r.startsWith("/trade-api/v2/exchange/status")));
    assert.ok(fixedOverheadTokens(llm.requests[0]!.body) <= 700);
  });
});

Deno.test("skills chat -p --json prints one document with the answer, tool calls and usage", async () => {
  await withFixtures(kalshiScript(), async ({ llm, env }) => {
    const result = await runCli(["chat", "-p", "Is Kalshi trading open?", "--json"], {
      env: env({ AGENT_SKILLS: "kalshi-markets" }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(llm.requests.every((r) => !r.stream), "--json asks for whole responses");
    await assertKalshiFlowRequests(llm);
    const doc = JSON.parse(result.stdout);
    assert.equal(doc.success, true);
    assert.equal(doc.model, "openai:gpt-test");
    assert.match(doc.answer, /^Status envelope success=true/);
    assert.deepEqual(doc.tool_calls.map((c: Json) => c.name), [
      "activate_skill",
      "script_help",
      "script_run",
    ]);
    assert.deepEqual(doc.tool_calls[2].arguments, {
      skill_name: "kalshi-markets",
      script_name: "status",
      args: [],
      json: true,
    });
    for (const call of doc.tool_calls) {
      assert.equal(call.result.success, true);
      assert.equal(typeof call.duration_ms, "number");
    }
    assert.deepEqual(doc.usage, {
      input_tokens: 400,
      output_tokens: doc.usage.output_tokens,
      total_tokens: 400 + doc.usage.output_tokens,
      requests: 4,
    });
    assert.equal(doc.finish, "answer");
  });
});

Deno.test("skills chat speaks the Anthropic Messages format", async () => {
  await withFixtures([
    { toolCalls: [{ name: "activate_skill", arguments: { name: "kalshi-markets" } }] },
    { text: "Activated and ready." },
  ], async ({ llm, env }) => {
    const result = await runCli(["chat", "-p", "Get ready"], {
      env: env({
        AGENT_SKILLS: "kalshi-markets",
        SKILLS_MODEL: "anthropic:claude-test",
        ANTHROPIC_API_KEY: "ak-test",
      }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Activated and ready.\n");
    const [first, second] = llm.requests;
    assert.equal(first!.format, "anthropic");
    assert.equal(first!.headers["x-api-key"], "ak-test");
    assert.match(JSON.stringify(first!.body.system), /kalshi-markets/);
    assert.ok((first!.body.tools as Json[]).some((t) => t.name === "activate_skill"));
    assert.match(second!.text, /tool_result/);
    assert.match(second!.text, /Tickers nest: series/);
  });
});

Deno.test("skills chat mounts hello_extended__greet_in_language only after activate_skill", async () => {
  const greet = (language: string) => ({
    toolCalls: [{
      name: "hello_extended__greet_in_language",
      arguments: { name: "Ada", language },
    }],
  });
  await withFixtures([
    { toolCalls: [{ name: "activate_skill", arguments: { name: "hello-extended" } }] },
    greet("fr"),
    greet("tlh"),
    (request) => ({ text: `error=${lastToolEnvelope(request).error}` }),
  ], async ({ llm, env }) => {
    const result = await runCli(["chat", "-p", "Greet Ada in French", "--json"], {
      env: env({ AGENT_SKILLS: "hello-extended" }),
    });
    assert.equal(result.code, 0, result.stderr);
    const toolNames = (request: RecordedLlmRequest) =>
      (request.body.tools as Json[]).map((t) => t.function.name);
    assert.ok(!toolNames(llm.requests[0]!).includes("hello_extended__greet_in_language"));
    assert.ok(toolNames(llm.requests[1]!).includes("hello_extended__greet_in_language"));
    const doc = JSON.parse(result.stdout);
    const [, french, klingon] = doc.tool_calls;
    assert.equal(french.result.success, true, JSON.stringify(french));
    assert.match(JSON.stringify(french.result.result), /Ada/);
    assert.equal(klingon.result.success, false);
    assert.equal(klingon.result.error, "unsupported_language");
    assert.equal(doc.answer, "error=unsupported_language");
  });
});

Deno.test("skills chat without SKILLS_MODEL says exactly what to set", async () => {
  await using dir = await tempDir();
  const result = await runCli(["chat", "-p", "hi"], { env: { SKILLS_HOME: dir.path } });
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^error: Cannot start a model session: SKILLS_MODEL is not set\n/);
  assert.match(result.stderr, /hint: Set SKILLS_MODEL=provider:model .*OPENAI_API_KEY/);
});

Deno.test("skills chat reports a provider authentication failure (and as JSON with --json)", async () => {
  const denied: ScriptStep = { status: 401, message: "Invalid API key" };
  await withFixtures([denied, denied], async ({ env }) => {
    const plain = await runCli(["chat", "-p", "hi"], { env: env() });
    assert.equal(plain.code, 1);
    assert.match(
      plain.stderr,
      /error: Cannot get an answer from openai:gpt-test: authentication failed \(HTTP 401: Invalid API key\)\nhint: Check OPENAI_API_KEY/,
    );
    const json = await runCli(["chat", "-p", "hi", "--json"], { env: env() });
    assert.equal(json.code, 1);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.success, false);
    assert.equal(doc.error, "permission_denied");
  });
});

Deno.test("skills chat -p fails with exit 1 when --max-steps is reached without an answer", async () => {
  const again: ScriptStep = { toolCalls: [{ name: "script_list", arguments: {} }] };
  await withFixtures([again, again, again], async ({ llm, env }) => {
    const result = await runCli(["chat", "-p", "loop", "--max-steps", "2", "--json"], {
      env: env({ AGENT_SKILLS: "kalshi-markets" }),
    });
    assert.equal(result.code, 1);
    assert.equal(llm.requests.length, 2);
    const doc = JSON.parse(result.stdout);
    assert.equal(doc.finish, "max_steps");
    assert.equal(doc.success, false);
    assert.equal(doc.tool_calls.length, 2);
    assert.match(result.stderr, /error: No final answer after 2 model requests/);
  });
});

Deno.test("skills chat reads REPL input from a pipe: slash commands, a turn, end of input", async () => {
  await withFixtures([{ text: "Hello from the model." }], async ({ env }) => {
    const result = await runCli(["chat"], {
      env: env({ AGENT_SKILLS: "kalshi-markets" }),
      stdin: "/help\n/tools\n/skills\nhello\n/context\n/bogus\n",
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\/context {3}Tokens of the fixed overhead/);
    assert.match(result.stdout, /^activate_skill — /m);
    assert.match(result.stdout, /^kalshi-markets — Read-only Kalshi/m);
    assert.match(result.stdout, /^Hello from the model\.$/m);
    assert.match(result.stdout, /conversation [1-9]\d*, total/);
    assert.match(
      withoutSandboxNotice(result.stderr),
      /^skills chat — openai:gpt-test, skills: kalshi-markets\./,
    );
    assert.match(result.stderr, /Unknown command '\/bogus'\. Type \/help/);
  });
});

Deno.test("skills chat --review asks before a script's changes reach the workspace", async () => {
  const buildScript = (): ScriptStep[] => [
    { toolCalls: [{ name: "activate_skill", arguments: { name: "workspace-lab" } }] },
    {
      toolCalls: [{
        name: "script_run",
        arguments: { skill_name: "workspace-lab", script_name: "build_log" },
      }],
    },
    (request) => ({ text: `receipt: ${JSON.stringify(lastToolEnvelope(request).receipt)}` }),
  ];
  for (const [answer, applied] of [["n", false], ["y", true]] as const) {
    await withFixtures(buildScript(), async ({ home, env }) => {
      const { installRunnerSkill } = await import("../../helpers/install_fixture.ts");
      await installRunnerSkill(home, "workspace-lab");
      await using project = await tempDir("skills-chat-review-");
      await Deno.chmod(project.path, 0o755);
      const result = await runCli(["chat", "-p", "Build it", "--review"], {
        env: env({ AGENT_SKILLS: "workspace-lab" }),
        cwd: project.path,
        stdin: `${answer}\n`,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /created +build\.log/);
      assert.match(result.stderr, /Apply these changes to the workspace\? \[y\/N\]/);
      const made = await Deno.lstat(join(project.path, "build.log")).then(() => true, () => false);
      assert.equal(made, applied, result.stderr);
      // The model is told what became of the changes.
      assert.match(result.stdout, applied ? /"created":\["build\.log"\]/ : /declined at review/);
    });
  }
});
