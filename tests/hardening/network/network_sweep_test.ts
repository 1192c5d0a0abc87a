/**
 * The security sweep's network items (issue 23, items 4 and 5), against the real proxy and
 * a real server on loopback: "any public host" reaches no address that is not public —
 * loopback in all its spellings, this machine's own interface addresses — unless a grant
 * names that very address; and every refusal is decided before any connection, with one
 * answer, so open and closed ports cannot be told apart. (The private, CGNAT, metadata,
 * ULA and NAT64 ranges are checked without traffic in tests/core/policy/ip_ranges_test.ts: this
 * workplace sends nothing to such addresses.)
 */

import { askProxy } from "../../helpers/proxy.ts";
import { pongServer } from "../../helpers/pong_server.ts";
import assert from "node:assert/strict";
import { startNetProxy } from "../../../src/runtime/sandbox/proxy.ts";

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const linux = { ignore: Deno.build.os !== "linux" };

Deno.test(
  "any public host (network: true) reaches no loopback spelling and not this machine's own addresses",
  linux,
  async () => {
    const server = pongServer("0.0.0.0");
    const reasons: string[] = [];
    const proxy = await startNetProxy({ any: true, grants: [] }, {
      onDenied: (_, reason) => reasons.push(reason),
    });
    try {
      const own = Deno.networkInterfaces()
        .filter((i) => i.family === "IPv4" && !i.address.startsWith("127."))
        .map((i) => i.address);
      const targets = [
        "127.0.0.1",
        "127.1.2.3",
        "0.0.0.0",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "localhost",
        ...own,
      ];
      for (const host of targets) {
        const answer = await askProxy(
          proxy.socketPath,
          `CONNECT ${host}:${server.port} HTTP/1.1\r\n\r\n`,
        );
        assert.match(answer, /^HTTP\/1\.1 403 Forbidden/, host);
      }
      assert.equal(server.requests, 0, "no request reached the server");
      assert.equal(reasons.length, targets.length);
      for (const reason of reasons) assert.match(reason, /not a public address/);
    } finally {
      await proxy.close();
      await server.close();
    }
  },
);

Deno.test("a grant naming the exact address reaches it", linux, async () => {
  const server = pongServer("127.0.0.1");
  const proxy = await startNetProxy({ any: false, grants: [{ host: "127.0.0.1" }] });
  try {
    const answer = await askProxy(
      proxy.socketPath,
      `GET http://127.0.0.1:${server.port}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    assert.match(answer, /pong/);
  } finally {
    await proxy.close();
    await server.close();
  }
});

Deno.test(
  "the proxy decides before it connects: open and closed ports get the same answer",
  linux,
  async () => {
    const server = pongServer("127.0.0.1");
    const closed = closedPort();
    for (
      const policy of [{ any: true, grants: [] }, { any: false, grants: [{ host: "example.com" }] }]
    ) {
      const proxy = await startNetProxy(policy);
      try {
        const answers: string[] = [];
        for (const port of [server.port, closed]) {
          for (const form of ["CONNECT", "GET"]) {
            const request = form === "CONNECT"
              ? `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`
              : `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: x\r\n\r\n`;
            const answer = await askProxy(proxy.socketPath, request);
            answers.push(answer.replaceAll(String(port), "PORT"));
          }
        }
        assert.equal(new Set(answers).size, 1, answers.join("\n---\n"));
        assert.match(answers[0]!, /^HTTP\/1\.1 403 Forbidden/);
        assert.equal(server.requests, 0, "nothing was connected to decide");
      } finally {
        await proxy.close();
      }
    }
    await server.close();
  },
);
