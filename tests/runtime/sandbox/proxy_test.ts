import assert from "node:assert/strict";
import { askProxy } from "../../helpers/proxy.ts";
import { startNetProxy } from "../../../src/runtime/sandbox/proxy.ts";
import type { NetPolicy } from "../../../src/core/policy/net_grants.ts";

function pong() {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(new URL(request.url).pathname);
    return new Response("pong");
  });
  return { port: (server.addr as Deno.NetAddr).port, seen, close: () => server.shutdown() };
}

Deno.test("the proxy forwards granted plain-HTTP requests in origin form and refuses others", {
  ignore: Deno.build.os === "windows",
}, async () => {
  const server = pong();
  const denied: string[] = [];
  const policy: NetPolicy = { any: false, grants: [{ host: "127.0.0.1", port: server.port }] };
  const proxy = await startNetProxy(policy, { onDenied: (target) => denied.push(target) });
  try {
    const ok = await askProxy(
      proxy.socketPath,
      `GET http://127.0.0.1:${server.port}/ping?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`,
    );
    assert.match(ok, /^HTTP\/1\.1 200/);
    assert.match(ok, /pong/);
    assert.deepEqual(server.seen, ["/ping"]);
    const refused = await askProxy(
      proxy.socketPath,
      `GET http://127.0.0.1:${server.port + 1}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.match(refused, /^HTTP\/1\.1 403 Forbidden/);
    assert.match(
      refused,
      /is not allowed; grant it with `skills run --allow-net 127\.0\.0\.1:\d+`/,
    );
    assert.deepEqual(denied, [`127.0.0.1:${server.port + 1}`]);
    const https = await askProxy(proxy.socketPath, "GET https://x/ HTTP/1.1\r\n\r\n");
    assert.match(https, /^HTTP\/1\.1 400/);
  } finally {
    await proxy.close();
    await server.close();
  }
  await assert.rejects(Deno.lstat(proxy.dir), Deno.errors.NotFound, "its folder is removed");
});

Deno.test("the proxy tunnels a granted CONNECT and keeps DNS names away from local addresses", {
  ignore: Deno.build.os === "windows",
}, async () => {
  const server = pong();
  const reasons: string[] = [];
  const proxy = await startNetProxy({
    any: true,
    grants: [{ host: "127.0.0.1", port: server.port }],
  }, { onDenied: (_, reason) => reasons.push(reason) });
  try {
    const tunnel = await askProxy(
      proxy.socketPath,
      `CONNECT 127.0.0.1:${server.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /t HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.match(tunnel, /^HTTP\/1\.1 200 Connection established\r\n\r\nHTTP\/1\.1 200/);
    assert.deepEqual(server.seen, ["/t"]);
    // `any` host, but a name that resolves to loopback is not the address itself.
    const local = await askProxy(
      proxy.socketPath,
      `CONNECT localhost:${server.port} HTTP/1.1\r\n\r\n`,
    );
    assert.match(local, /^HTTP\/1\.1 403/);
    assert.match(reasons[0]!, /resolves to 127\.0\.0\.1, which is not a public address/);
    assert.deepEqual(server.seen, ["/t"]);
  } finally {
    await proxy.close();
    await server.close();
  }
});
