/**
 * Issue 23, item 9: `skills mcp --http` without a token. One local process opening every
 * session slot (128) no longer locks others out: a new client gets a session, the flood's
 * longest-idle one giving way; and the server says at start-up that any local user can use it.
 */

import assert from "node:assert/strict";
import { tempDir } from "../../helpers/cli.ts";
import { connectHttp, startHttpMcp } from "../../mcp/http_fixture.ts";
import { initializeRequest } from "../../helpers/mcp_stdio.ts";
import { waitFor } from "../../helpers/wait.ts";

const INITIALIZE = JSON.stringify(initializeRequest("flood"));

Deno.test("a flood of idle sessions cannot lock another client out; no token is said at start", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir("skills-mcp-flood-");
  await using server = await startHttpMcp({ SKILLS_HOME: home.path, AGENT_SKILLS: "none" });
  // Said right after the address the fixture waits for: it may come in the next chunk.
  await waitFor(
    () => /no token: any user or process on this machine can use this server/.test(server.stderr()),
    { what: "the no-token warning", detail: server.stderr },
  );

  const flood: string[] = [];
  for (let i = 0; i < 128; i++) {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZE,
    });
    assert.equal(response.status, 200, `session ${i}`);
    flood.push(response.headers.get("mcp-session-id")!);
    await response.body?.cancel();
  }
  // The table is full of idle sessions: a real client still gets in.
  await using client = await connectHttp(server.url);
  const { tools } = await client.client.listTools();
  assert.ok(Array.isArray(tools));
  // ...and the session idle longest (the flood's first) is the one that gave way.
  const first = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": flood[0]!,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  assert.equal(first.status, 404);
  await first.body?.cancel();
});
