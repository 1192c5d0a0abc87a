import assert from "node:assert/strict";
import { stdinLineReader } from "../../../src/cli/ui/tty.ts";
import { isSkillError } from "../../../src/core/errors.ts";

/** A reader over fixed chunks, as stdin would deliver them. */
function chunked(...chunks: (string | Uint8Array)[]) {
  const queue = chunks.map((c) => typeof c === "string" ? new TextEncoder().encode(c) : c);
  return (buffer: Uint8Array) => {
    const next = queue.shift();
    if (next === undefined) return Promise.resolve(null);
    buffer.set(next);
    return Promise.resolve(next.length);
  };
}

Deno.test("stdinLineReader() splits lines across chunks, CRLF and multi-byte characters", async () => {
  const euro = new TextEncoder().encode("€");
  const read = stdinLineReader(
    1024,
    chunked("one\r\ntw", "o\nthr", euro.subarray(0, 1), euro.subarray(1), "ee\nlast"),
  );
  const lines = [];
  for (let line = await read(); line !== null; line = await read()) lines.push(line);
  assert.deepEqual(lines, ["one", "two", "thr€ee", "last"]);
});

Deno.test("stdinLineReader() refuses an overlong line at once and goes on after it", async () => {
  const read = stdinLineReader(
    10,
    chunked("short\n", "x".repeat(8), "x".repeat(8), "x".repeat(50), "x\nnext\n"),
  );
  assert.equal(await read(), "short");
  await assert.rejects(read(), (e) => isSkillError(e) && e.code === "args_too_large");
  assert.equal(await read(), "next");
  assert.equal(await read(), null);
});

Deno.test("stdinLineReader() reads a long input in linear time", async () => {
  const mib = new TextEncoder().encode("y".repeat(1024 * 1024));
  const chunks = Array.from({ length: 32 }, () => mib.subarray(0, 64 * 1024));
  const read = stdinLineReader(64 * 1024 * 1024, chunked(...Array(16).fill(chunks).flat(), "\n"));
  const started = performance.now();
  assert.equal((await read())!.length, 32 * 1024 * 1024);
  assert.ok(performance.now() - started < 3_000);
});
