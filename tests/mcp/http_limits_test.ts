import assert from "node:assert/strict";
import { readBody, sharedFreshReads, socketOwner } from "../../src/mcp/http_limits.ts";
import { SocketTableReader } from "../../src/mcp/socket_tables.ts";
import { findOnPath } from "../../src/runtime/os/probe.ts";

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

Deno.test("sharedFreshReads() serves a burst with two reads, each caller's begun after it asked", async () => {
  const starts: number[] = [];
  let release = () => {};
  const read = sharedFreshReads(() => {
    starts.push(performance.now());
    const index = starts.length;
    return new Promise<number>((resolve) => {
      release = () => resolve(index);
    });
  });
  const asked: number[] = [];
  const answers: Promise<number>[] = [];
  const ask = () => {
    asked.push(performance.now());
    answers.push(read());
  };
  ask(); // starts read 1
  for (let i = 0; i < 49; i++) ask(); // all wait for read 2: read 1 began before they asked
  await new Promise((resolve) => setTimeout(resolve, 5));
  release();
  await answers[0];
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(starts.length, 2, "the 49 callers share one read, begun after read 1 ended");
  release();
  const results = await Promise.all(answers);
  assert.deepEqual(results, [1, ...Array(49).fill(2)]);
  for (let i = 0; i < asked.length; i++) {
    assert.ok(
      starts[results[i]! - 1]! >= asked[i]!,
      `caller ${i} got a read begun before it asked`,
    );
  }
  // Nothing under way: the next caller starts its own read at once, and a failed read is
  // no one's but its callers'.
  const failing = sharedFreshReads(() => Promise.reject(new Error("no table")));
  await assert.rejects(failing(), /no table/);
  await assert.rejects(failing(), /no table/);
  ask();
  assert.equal(starts.length, 3);
  release();
  assert.equal(await answers.at(-1), 3);
});

const python = findOnPath("python3", Deno.env.toObject());

Deno.test({
  name: "one python3 reads the socket tables for every session, and each read is fresh",
  ignore: Deno.build.os !== "linux",
  async fn() {
    assert.ok(python !== undefined, "python3 is on PATH");
    const reader = new SocketTableReader(python);
    try {
      const server = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = server.addr.port;
      try {
        // Connections made between reads: each read must see the one made just before it.
        for (let round = 0; round < 20; round++) {
          const client = await Deno.connect({ hostname: "127.0.0.1", port });
          const accepted = await server.accept();
          try {
            const tables = await reader.read();
            assert.match(tables, /local_address/);
            const uid = socketOwner(tables, client.localAddr.port, port);
            assert.equal(uid, Deno.uid(), `round ${round}: the client's socket and its owner`);
          } finally {
            client.close();
            accepted.close();
          }
        }
      } finally {
        server.close();
      }
      assert.equal(reader.started, 1, "twenty reads, one process");
    } finally {
      reader.close();
    }
  },
});

Deno.test({
  name: "a reader that died is started again; with no python3 a read is empty",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const reader = new SocketTableReader(python!);
    try {
      assert.match(await reader.read(), /local_address/);
      reader.close();
      assert.match(await reader.read(), /local_address/);
      assert.equal(reader.started, 2);
    } finally {
      reader.close();
    }
    const missing = new SocketTableReader("/nonexistent/python3");
    assert.equal(await missing.read(), "");
    missing.close();
  },
});

Deno.test({
  name:
    "a reader that never answers gives up at its timeout: the read is empty, and the next starts afresh",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const silent = `${dir}/python3`;
      await Deno.writeTextFile(silent, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
      const reader = new SocketTableReader(silent, 200);
      const started = performance.now();
      assert.equal(await reader.read(), "");
      assert.ok(performance.now() - started < 5_000, "gave up at its timeout");
      assert.equal(await reader.read(), "");
      assert.equal(reader.started, 2, "the silent reader was dropped, and another one asked");
      reader.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
