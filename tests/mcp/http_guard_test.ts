/** The guards of `skills mcp --http`, as tables: addresses, the token policy, bearer checks, rebinding. */

import assert from "node:assert/strict";
import {
  checkTokenPolicy,
  hasBearerToken,
  isLoopbackHost,
  parseListenAddress,
  rebindingProblem,
} from "../../src/mcp/http_guard.ts";
import { isSkillError } from "../../src/core/errors.ts";

Deno.test("parseListenAddress() reads host:port and [v6]:port, and refuses the rest", () => {
  assert.deepEqual(parseListenAddress("127.0.0.1:8080"), { hostname: "127.0.0.1", port: 8080 });
  assert.deepEqual(parseListenAddress("localhost:0"), { hostname: "localhost", port: 0 });
  assert.deepEqual(parseListenAddress("[::1]:443"), { hostname: "::1", port: 443 });
  assert.deepEqual(parseListenAddress("0.0.0.0:9000"), { hostname: "0.0.0.0", port: 9000 });
  for (const bad of ["8080", ":8080", "host", "host:70000", "[::1]", "a b:80", "host:-1"]) {
    assert.throws(() => parseListenAddress(bad), (e) => isSkillError(e) && e.code === "usage", bad);
  }
});

Deno.test("isLoopbackHost() knows 127/8, ::1 and localhost only", () => {
  for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"]) {
    assert.ok(isLoopbackHost(host), host);
  }
  for (const host of ["0.0.0.0", "10.0.0.1", "::", "localhost.evil.example", "128.0.0.1", ""]) {
    assert.ok(!isLoopbackHost(host), host);
  }
});

Deno.test("checkTokenPolicy(): no token only on loopback; a token must be long", () => {
  const loopback = { hostname: "127.0.0.1", port: 0 };
  const open = { hostname: "0.0.0.0", port: 0 };
  assert.equal(checkTokenPolicy(loopback, undefined), undefined);
  assert.equal(checkTokenPolicy(loopback, ""), undefined);
  const token = "0123456789abcdef";
  assert.equal(checkTokenPolicy(open, token), token);
  const denied = (e: unknown) => isSkillError(e) && e.code === "permission_denied";
  assert.throws(() => checkTokenPolicy(open, undefined), denied);
  assert.throws(() => checkTokenPolicy(open, ""), denied);
  assert.throws(() => checkTokenPolicy(loopback, "short"), denied);
});

Deno.test("hasBearerToken() accepts exactly the token", () => {
  const token = "0123456789abcdef";
  assert.ok(hasBearerToken(`Bearer ${token}`, token));
  assert.ok(hasBearerToken(`bearer  ${token}`, token));
  for (
    const header of [
      null,
      "",
      token,
      `Basic ${token}`,
      `Bearer ${token}x`,
      "Bearer 0123",
      `Bearer ${token} x`,
    ]
  ) {
    assert.ok(!hasBearerToken(header, token), String(header));
  }
});

Deno.test("rebindingProblem() refuses foreign origins, and foreign hosts on loopback", () => {
  const loopback = { hostname: "127.0.0.1", port: 8080 };
  const open = { hostname: "0.0.0.0", port: 8080 };
  const headers = (init: Record<string, string>) => new Headers(init);
  assert.equal(rebindingProblem(headers({ host: "127.0.0.1:8080" }), loopback), undefined);
  assert.equal(rebindingProblem(headers({ host: "localhost:8080" }), loopback), undefined);
  assert.equal(
    rebindingProblem(
      headers({ host: "localhost:8080", origin: "http://localhost:3000" }),
      loopback,
    ),
    undefined,
  );
  assert.match(rebindingProblem(headers({ host: "evil.example:8080" }), loopback)!, /Host/);
  assert.match(
    rebindingProblem(
      headers({ host: "127.0.0.1:8080", origin: "https://evil.example" }),
      loopback,
    )!,
    /Origin/,
  );
  assert.equal(rebindingProblem(headers({ host: "skills.corp.example" }), open), undefined);
  assert.match(rebindingProblem(headers({ origin: "null" }), open)!, /Origin/);
});
