/**
 * `skills mcp --http` with a token, as an OAuth-aware client meets it: the 401 names the
 * protected-resource metadata (RFC 9728) the MCP authorization spec has clients look for,
 * the document says "bearer token in the Authorization header, no authorization server",
 * the official SDK's own discovery reads it, and the OAuth endpoints a client tries next say
 * how to configure it instead. Without a token there is nothing to describe.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { tempDir } from "../helpers/cli.ts";
import { connectHttp, startHttpMcp, TEST_TOKEN } from "./http_fixture.ts";

Deno.test("skills mcp --http: the 401 points at protected-resource metadata that says to send the bearer token", async () => {
  await using home = await tempDir("skills-mcp-oauth-");
  await using server = await startHttpMcp({
    SKILLS_HOME: home.path,
    AGENT_SKILLS: "hello-extended",
    SKILLS_MCP_TOKEN: TEST_TOKEN,
  });
  const expected = `${server.url.origin}/.well-known/oauth-protected-resource/mcp`;

  const without = await fetch(server.url, { method: "POST", body: "{}" });
  assert.equal(without.status, 401);
  const challenge = without.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /^Bearer /);
  // The SDK client's own parser finds the metadata URL; no token sent: no error code.
  const params = extractWWWAuthenticateParams(without);
  assert.equal(params.resourceMetadataUrl?.href, expected);
  assert.doesNotMatch(challenge, /invalid_token/);
  assert.match((await without.json()).error.message, /Authorization: Bearer <token>/);

  const wrong = await fetch(server.url, {
    method: "POST",
    body: "{}",
    headers: { authorization: `Bearer ${TEST_TOKEN}x` },
  });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  await wrong.body?.cancel();

  // The document is public (no token), at the path-appended and the bare well-known path.
  for (
    const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]
  ) {
    const response = await fetch(new URL(path, server.url));
    assert.equal(response.status, 200, path);
    assert.deepEqual(await response.json(), {
      resource: server.url.href,
      bearer_methods_supported: ["header"],
      resource_name: "skills mcp",
    });
  }
  // As the SDK's OAuth discovery reads it (its schema checks the document).
  const metadata = await discoverOAuthProtectedResourceMetadata(server.url);
  assert.equal(metadata.resource, server.url.href);
  assert.equal(metadata.authorization_servers, undefined);

  // Where an OAuth client goes next: no authorization server, and the answer says the fix.
  for (
    const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]
  ) {
    const response = await fetch(new URL(path, server.url));
    assert.equal(response.status, 404, path);
    assert.match((await response.json()).error_description, /'Authorization: Bearer <token>'/);
  }
  // Configured that way, the client connects.
  await using client = await connectHttp(server.url, TEST_TOKEN);
  assert.ok((await client.client.listTools()).tools.length > 0);
});

Deno.test("skills mcp --http without a token serves no protected-resource metadata", async () => {
  await using home = await tempDir("skills-mcp-oauth-");
  await using server = await startHttpMcp({
    SKILLS_HOME: home.path,
    AGENT_SKILLS: "hello-extended",
  });
  const response = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", server.url));
  assert.equal(response.status, 404);
  await response.body?.cancel();
});
