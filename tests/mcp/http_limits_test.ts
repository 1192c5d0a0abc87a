import assert from "node:assert/strict";
import { readBody, socketOwner } from "../../src/mcp/http_limits.ts";

const TABLE =
  `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 11 1
   1: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 12 1
   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 13 1
`;

Deno.test("socketOwner() finds the uid of the client's end of a loopback connection", () => {
  // The client's end: local port 0xD431 (54321), remote port 0x1F90 (8080).
  assert.equal(socketOwner(TABLE, 54321, 8080), 65534);
  assert.equal(socketOwner(TABLE, 54322, 8080), undefined);
  assert.equal(socketOwner("", 54321, 8080), undefined);
});

Deno.test("readBody() answers a body that never ends with a timeout, and bounds its size", async () => {
  const endless = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"jsonrpc"'));
    },
  });
  const started = performance.now();
  const slow = await readBody(
    new Request("http://127.0.0.1/mcp", { method: "POST", body: endless }),
    1024,
    200,
  );
  assert.deepEqual(slow, { refused: "timeout" });
  assert.ok(performance.now() - started < 2000);
  const big = await readBody(
    new Request("http://127.0.0.1/mcp", { method: "POST", body: "x".repeat(2048) }),
    1024,
  );
  assert.deepEqual(big, { refused: "too-large" });
  const fine = await readBody(new Request("http://x/mcp", { method: "POST", body: '{"a":1}' }));
  assert.deepEqual(fine, { json: { a: 1 } });
});
