/** The newline-delimited JSON-RPC transport: malformed input, end of input, draining. */
import assert from "node:assert/strict";
import { LineTransport } from "../../src/mcp/line_transport.ts";

/** Feeds lines one by one; `end()` makes readLine return null. */
function input() {
  const queue: (string | null)[] = [];
  let waiting: ((line: string | null) => void) | undefined;
  return {
    push(line: string | null) {
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w(line);
      } else queue.push(line);
    },
    readLine(): Promise<string | null> {
      if (queue.length > 0) return Promise.resolve(queue.shift()!);
      return new Promise((resolve) => waiting = resolve);
    },
  };
}

function setup(drainMs?: number) {
  const lines = input();
  const written: unknown[] = [];
  const received: unknown[] = [];
  const logs: string[] = [];
  let closed = 0;
  const transport = new LineTransport({
    readLine: lines.readLine,
    write: (text) => {
      assert.ok(text.endsWith("\n"));
      written.push(JSON.parse(text));
    },
    log: (m) => logs.push(m),
    ...(drainMs === undefined ? {} : { drainMs }),
  });
  transport.onmessage = (m) => received.push(m);
  transport.onclose = () => closed++;
  return { lines, transport, written, received, logs, closed: () => closed };
}

Deno.test("LineTransport answers a parse error and an invalid request, and passes valid messages", async () => {
  const t = setup(30);
  await t.transport.start();
  t.lines.push("{not json");
  t.lines.push(`{"jsonrpc":"2.0","id":"a","method":7}`);
  t.lines.push(`{"jsonrpc":"2.0","method":7}`);
  t.lines.push("   ");
  t.lines.push(`[1,2]`);
  t.lines.push(`{"jsonrpc":"2.0","id":1,"method":"ping"}`);
  t.lines.push(null);
  await t.transport.finished;
  const errors = t.written as { jsonrpc: string; id: unknown; error: { code: number } }[];
  assert.deepEqual(errors.map((w) => [w.jsonrpc, w.id, w.error.code]), [
    ["2.0", null, -32700],
    ["2.0", "a", -32600],
    ["2.0", null, -32600],
  ]);
  assert.match((t.written[0] as { error: { message: string } }).error.message, /^Parse error: /);
  assert.deepEqual(t.received, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  assert.ok(t.logs.some((l) => l.startsWith("ignored a malformed notification")));
  assert.equal(t.closed(), 1, "id 1 was never answered: the drain gave up after drainMs");
});

Deno.test("LineTransport closes at end of input only after in-flight requests are answered", async () => {
  const t = setup(5_000);
  await t.transport.start();
  t.lines.push(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`);
  t.lines.push(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`);
  t.lines.push(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`);
  t.lines.push(null);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(t.closed(), 0, "request 1 is still in flight");
  await t.transport.send({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
  await t.transport.finished;
  assert.equal(t.closed(), 1, "request 2 was cancelled, so nothing else is awaited");
  assert.deepEqual(t.written, [{ jsonrpc: "2.0", id: 1, result: { tools: [] } }]);
});

Deno.test("LineTransport gives up draining after drainMs and closes once", async () => {
  const t = setup(30);
  await t.transport.start();
  t.lines.push(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`);
  t.lines.push(null);
  await t.transport.finished;
  assert.equal(t.closed(), 1);
  await t.transport.close();
  assert.equal(t.closed(), 1);
});
