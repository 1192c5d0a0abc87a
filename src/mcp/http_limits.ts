/**
 * Fair shares of `skills mcp --http` (issue 39): who a client is, and how long its request
 * bodies may take. A client is its peer — a remote address, or on loopback the user who owns
 * the connecting socket (Linux: the `uid` column of /proc/net/tcp{,6}, where the client's end
 * is the line whose local port is the peer's port and whose remote port is ours) — so one
 * user's processes neither take every session slot nor evict another user's sessions. (Two
 * processes of one user are one client: either could stop the other anyway.) A request body
 * must arrive in full within BODY_TIMEOUT_MS, or the request is answered 408 and frees its
 * slot: a body that never ends no longer keeps a session busy for ever.
 */

import { findOnPath } from "../runtime/os/probe.ts";
import { isLoopbackHost } from "./http_guard.ts";
import { SocketTableReader } from "./socket_tables.ts";

/** A request body (JSON-RPC) must arrive in full within this long. */
const BODY_TIMEOUT_MS = 10_000;
/** A request body larger than this is refused before it is parsed. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The uid that owns the local TCP socket `clientPort` → `serverPort`, from the text of
 * /proc/net/tcp or tcp6 (pure); undefined when no line matches. (The header lines of both
 * tables parse as no socket.)
 */
export function socketOwner(
  procNetTcp: string,
  clientPort: number,
  serverPort: number,
): number | undefined {
  for (const line of procNetTcp.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const local = Number.parseInt(fields[1]?.split(":")[1] ?? "", 16);
    const remote = Number.parseInt(fields[2]?.split(":")[1] ?? "", 16);
    if (local === clientPort && remote === serverPort && fields[7] !== undefined) {
      return Number(fields[7]);
    }
  }
  return undefined;
}

/**
 * A read whose result is shared by the callers waiting for it, each given one that started
 * after it asked: a caller joins the read that starts next, never one already under way
 * (which may have read before the caller's connection existed). However many ask at once,
 * two reads serve them all.
 */
export function sharedFreshReads<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const reading = read();
    running = reading;
    const done = () => {
      if (running === reading) running = undefined;
    };
    reading.then(done, done);
    return reading;
  };
  const settled = () => {};
  return () => {
    if (running === undefined) return start();
    return queued ??= running.then(settled, settled).then(() => {
      queued = undefined;
      return start();
    });
  };
}

/** The shared reader of the socket tables, by the python3 that reads them. */
const tableReaders = new Map<string, () => Promise<string>>();

/**
 * The socket tables, read by the server's one python3 (socket_tables.ts). A burst of sessions
 * also shares its reads (sharedFreshReads), which keeps the reads one at a time, as that
 * reader needs them.
 */
function socketTables(env: Readonly<Record<string, string>>): Promise<string> {
  const python = findOnPath("python3", env);
  if (python === undefined) return Promise.resolve("");
  let reader = tableReaders.get(python);
  if (reader === undefined) {
    const process = new SocketTableReader(python);
    tableReaders.set(python, reader = sharedFreshReads(() => process.read()));
  }
  return reader();
}

/**
 * Who a request comes from: `addr:<host>` off loopback; `uid:<n>` on loopback where the
 * socket's owner can be read (Linux); `loopback` (every local client one) where it cannot.
 */
export async function clientIdentity(
  remote: Deno.NetAddr,
  serverPort: number,
  env: Readonly<Record<string, string>>,
): Promise<string> {
  if (!isLoopbackHost(remote.hostname) && !/^::ffff:127\./.test(remote.hostname)) {
    return `addr:${remote.hostname}`;
  }
  if (Deno.build.os !== "linux") return "loopback";
  const uid = socketOwner(await socketTables(env), remote.port, serverPort);
  return uid === undefined ? "loopback" : `uid:${uid}`;
}

/** What a bounded, timed body read gives: the parsed JSON (undefined: not JSON), or why not. */
export type BodyRead = { json: unknown } | { refused: "too-large" | "timeout" };

/**
 * The request body as JSON, at most `limit` bytes, arrived in full within `timeoutMs` —
 * else the read is cancelled and the reason returned.
 */
export async function readBody(
  request: Request,
  limit = MAX_BODY_BYTES,
  timeoutMs = BODY_TIMEOUT_MS,
): Promise<BodyRead> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) {
    await request.body?.cancel().catch(() => {});
    return { refused: "too-large" };
  }
  const reader = (request.body ?? new ReadableStream<Uint8Array>()).getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return { refused: "too-large" };
      }
      chunks.push(value);
    }
  } catch {
    if (timedOut) return { refused: "timeout" };
    throw new Error("the request body could not be read");
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) return { refused: "timeout" };
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  try {
    return { json: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return { json: undefined };
  }
}
