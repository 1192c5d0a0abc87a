/**
 * The `skills chat` REPL in a real pseudo-terminal (util-linux `script`): a slash command,
 * Ctrl-C during a long tool call (a script waiting on a slow Kalshi endpoint) cancels the
 * turn without leaving the REPL, the next message still works, and Ctrl-D exits 0.
 */

import assert from "node:assert/strict";
import { startKalshiFixture } from "../../fixtures/kalshi_server.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { cliArgv, REPO_ROOT, tempDir } from "../../helpers/cli.ts";
import { PtySession } from "../../helpers/pty.ts";

Deno.test("skills chat REPL in a terminal: Ctrl-C cancels a long tool call, Ctrl-D exits", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using dir = await tempDir();
  const kalshi = await startKalshiFixture();
  const llm = await startLlmServer([
    {
      toolCalls: [{
        name: "script_run",
        arguments: {
          skill_name: "kalshi-markets",
          script_name: "market",
          args: ["KXSLOW-1"],
          json: true,
        },
      }],
    },
    { text: "Still here after the cancel." },
  ]);
  const pty = new PtySession(cliArgv(["chat"]), {
    SKILLS_HOME: dir.path,
    AGENT_SKILLS: "kalshi-markets",
    SKILLS_MODEL: "openai:gpt-test",
    OPENAI_API_KEY: "sk-test",
    SKILLS_BASE_URL: llm.baseUrl,
    KALSHI_API_BASE: kalshi.baseUrl,
    // The sandbox lets scripts reach the loopback stand-in for the Kalshi API only when granted.
    SKILLS_ALLOW_NET: new URL(kalshi.baseUrl).host,
  }, REPO_ROOT);
  try {
    let at = await pty.waitFor(/skills chat — openai:gpt-test, skills: kalshi-markets\./);
    at = await pty.waitFor(/> /, at);
    await pty.type("/tools\n");
    at = await pty.waitFor(/script_run — Run a script/, at);
    await pty.type("How is the slow market doing?\n");
    at = await pty.waitFor(/→ script_run kalshi-markets market KXSLOW-1 --json/, at);
    // the script is now waiting on the fixture's 10 s endpoint
    const pressed = Date.now();
    await pty.type("\x03");
    at = await pty.waitFor(/✗ cancelled \d+\.\ds\s+\^C turn cancelled/, at);
    assert.ok(Date.now() - pressed < 8_000, "the cancel did not wait for the slow endpoint");
    at = await pty.waitFor(/> /, at);
    await pty.type("Are you still there?\n");
    at = await pty.waitFor(/Still here after the cancel\./, at);
    at = await pty.waitFor(/> /, at);
    await pty.type("\x04");
    const status = await pty.close();
    assert.equal(status.code, 0, pty.output);
    assert.equal(llm.requests.length, 2);
    // the cancelled turn was rolled back: the second request carries only the new message
    const users = (llm.requests[1]!.body.messages as { role: string }[])
      .filter((m) => m.role === "user");
    assert.equal(users.length, 1);
  } finally {
    pty.kill();
    await pty.close().catch(() => {});
    await llm.close();
    await kalshi.close();
  }
});
