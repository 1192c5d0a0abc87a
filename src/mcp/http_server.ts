/**
 * `skills mcp --http`: MCP's Streamable HTTP transport (the SDK's web-standard transport,
 * behind `Deno.serve`) for many clients at once, at `/mcp`. Every session — an `initialize`
 * without a session id — gets its own MCP server over its own tool surface: its own
 * activation state, its own toolset processes. A session idle (no request in progress) for
 * longer than `idleMs` is closed with its toolset processes, as is one the client ends with
 * DELETE, and every one on shutdown. Requests pass the guards of http_guard.ts first: the
 * bearer token (401, pointing at the protected-resource metadata of resource_metadata.ts),
 * the DNS-rebinding check (403). Shares are fair (http_limits.ts): each client — a remote
 * address, or on loopback the user owning the socket — holds at most
 * MAX_SESSIONS_PER_CLIENT sessions and makes room only by closing its own idle ones, never
 * another's; a request body that does not arrive in full within BODY_TIMEOUT_MS is answered
 * 408 and frees its session.
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server";
import type { ToolSurface } from "../agent/surface/tool_surface.ts";
import { hasBearerToken, type ListenAddress, rebindingProblem } from "./http_guard.ts";
import { type BodyRead, clientIdentity, readBody } from "./http_limits.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";
import { bearerChallenge, wellKnownResponse } from "./resource_metadata.ts";

/** The one MCP endpoint. */
const MCP_PATH = "/mcp";

/** Sessions open at once; the next `initialize` gets 503 (each may hold toolset processes). */
const MAX_SESSIONS = 128;
/** An `initialize` body larger than this is refused before it is parsed. */
const MAX_INITIALIZE_BYTES = 1024 * 1024;

interface ServeHttpOptions extends Omit<McpServerOptions, "surface"> {
  address: ListenAddress;
  /** The bearer token every request must carry; undefined only on loopback. */
  token: string | undefined;
  /** The user's environment (its PATH finds python3, which reads who owns a local socket). */
  env: Readonly<Record<string, string>>;
  /** A fresh tool surface (activation state) for a new session. */
  openSurface(): Promise<ToolSurface>;
  /** A session with no request for this long is closed. */
  idleMs: number;
  /** Aborting it shuts the server down: sessions closed, toolset processes stopped. */
  signal: AbortSignal;
  /** Called once listening, with the actual port (for port 0). */
  onListening?(address: ListenAddress): void;
}

interface Session {
  id: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  surface: ToolSurface;
  lastSeen: number;
  /** POST responses still streaming (a tool call in progress). */
  busy: number;
  /** The client's identity (http_limits.clientIdentity): its sessions count against its cap. */
  client: string;
}

/**
 * Sessions one client may hold: half the table, so no client takes every slot (an MCP host
 * may well run dozens at once). Local clients whose user cannot be told share the table.
 */
const MAX_SESSIONS_PER_CLIENT = 64;

function jsonRpcError(status: number, code: number, message: string, headers = {}): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code, message }, id: null },
    { status, headers },
  );
}

/** The answer to a body refused by size or time. */
function refusedBody(read: Extract<BodyRead, { refused: unknown }>): Response {
  return read.refused === "timeout"
    ? jsonRpcError(408, -32000, "Request timeout: the body did not arrive in time")
    : jsonRpcError(413, -32000, "Request body too large");
}

/** `response` with `done` called once its body has been sent or abandoned. */
function whenSent(response: Response, done: () => void): Response {
  let called = false;
  const finish = () => {
    if (!called) (called = true, done());
  };
  if (response.body === null) {
    finish();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** What every handler of one HTTP server shares: its options, its sessions, its shutdown. */
interface Served {
  options: ServeHttpOptions;
  sessions: Map<string, Session>;
  /** Set once shutdown begins: a request then gets 503. */
  closing: boolean;
  /** The port listened on (a client's socket is found by it). */
  port: number;
}

/**
 * Serves until `signal` aborts; then closes every session and stops listening. Read as its
 * phases: listen, sweep idle sessions, wait for the abort, shut down.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<void> {
  const served: Served = { options, sessions: new Map(), closing: false, port: 0 };
  const http = await listen(served);
  const sweep = sweepIdle(served);
  try {
    await aborted(options.signal);
  } finally {
    await shutDown(served, http, sweep);
  }
}

/** `Deno.serve` on the address, told once listening; a tokenless server says who may use it. */
async function listen(served: Served): Promise<Deno.HttpServer<Deno.NetAddr>> {
  const { log, token, address } = served.options;
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const http = Deno.serve({
    hostname: address.hostname,
    port: address.port,
    onListen: resolve,
    onError: (error) => {
      log(`HTTP request failed: ${(error as Error).message}`);
      return jsonRpcError(500, -32603, "Internal error");
    },
  }, (request, info) => handle(served, request, info));
  const bound = await listening;
  served.port = bound.port;
  served.options.onListening?.({ hostname: address.hostname, port: bound.port });
  if (token === undefined) {
    log(
      "no token: any user or process on this machine can use this server and run its skills' " +
        "scripts (set SKILLS_MCP_TOKEN to require one)",
    );
  }
  return http;
}

/** Closes, now and then, each session with no request for longer than `idleMs`. */
function sweepIdle(served: Served): ReturnType<typeof setInterval> {
  const { idleMs } = served.options;
  return setInterval(() => {
    const now = performance.now();
    for (const session of served.sessions.values()) {
      if (session.busy === 0 && now - session.lastSeen > idleMs) {
        void closeSession(served, session.id, "idle");
      }
    }
  }, Math.max(50, Math.min(idleMs / 4, 30_000)));
}

/** Resolves once `signal` aborts (at once if it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  if (signal.aborted) resolve();
  signal.addEventListener("abort", () => resolve(), { once: true });
  return promise;
}

/** Refuses new requests, closes every session with its toolset processes, stops listening. */
async function shutDown(
  served: Served,
  http: Deno.HttpServer,
  sweep: ReturnType<typeof setInterval>,
): Promise<void> {
  served.closing = true;
  clearInterval(sweep);
  const open = served.sessions.size;
  await Promise.all([...served.sessions.keys()].map((id) => closeSession(served, id, "shutdown")));
  if (open > 0) served.options.log(`closed ${open} session${open === 1 ? "" : "s"}`);
  await http.shutdown();
}

/**
 * One request, read as its steps: the guards (or the public metadata), then a request of an
 * open session, else an `initialize` that opens one.
 */
async function handle(
  served: Served,
  request: Request,
  info: Deno.ServeHandlerInfo,
): Promise<Response> {
  const guarded = guard(served, request);
  if (guarded !== undefined) return guarded;
  const id = request.headers.get("mcp-session-id");
  if (id !== null) return await forward(served, id, request);
  return await initialize(served, request, info);
}

/**
 * The answer before any session is looked at: the protected-resource metadata, or a
 * refusal (not the endpoint, shutting down, DNS rebinding, no token); undefined to go on.
 */
function guard(served: Served, request: Request): Response | undefined {
  const { token, address } = served.options;
  const url = new URL(request.url);
  const rebinding = rebindingProblem(request.headers, address);
  // The protected-resource metadata is public (RFC 9728), served only with a token.
  const wellKnown = token === undefined ? undefined : wellKnownResponse(url, MCP_PATH);
  if (wellKnown !== undefined) {
    return rebinding === undefined
      ? wellKnown
      : jsonRpcError(403, -32000, `Forbidden: ${rebinding}`);
  }
  if (url.pathname !== MCP_PATH) {
    return new Response("Not found: the MCP endpoint is /mcp\n", { status: 404 });
  }
  if (served.closing) return jsonRpcError(503, -32000, "The server is shutting down");
  if (rebinding !== undefined) return jsonRpcError(403, -32000, `Forbidden: ${rebinding}`);
  const authorization = request.headers.get("authorization");
  if (token !== undefined && !hasBearerToken(authorization, token)) {
    return jsonRpcError(
      401,
      -32001,
      "Unauthorized: send the server's token as 'Authorization: Bearer <token>'",
      {
        "www-authenticate": bearerChallenge(
          new URL(MCP_PATH, url.origin),
          authorization !== null,
        ),
      },
    );
  }
  return undefined;
}

/** A request of session `id` to its transport, the session kept busy while a POST answers. */
async function forward(served: Served, id: string, request: Request): Promise<Response> {
  const session = served.sessions.get(id);
  if (session === undefined) return jsonRpcError(404, -32001, "Session not found");
  session.lastSeen = performance.now();
  const { transport } = session;
  // A standalone GET stream stays open while the session idles; only POSTs keep it busy.
  if (request.method !== "POST") return await transport.handleRequest(request);
  session.busy++;
  let read: BodyRead;
  try {
    read = await readBody(request);
  } catch (error) {
    session.busy--;
    throw error;
  }
  if ("refused" in read) {
    session.busy--;
    return refusedBody(read);
  }
  if (read.json === undefined) {
    session.busy--;
    return jsonRpcError(400, -32700, "Parse error");
  }
  const response = await transport.handleRequest(request, { parsedBody: read.json }).catch(
    (error) => {
      session.busy--;
      throw error;
    },
  );
  return whenSent(response, () => {
    session.busy--;
    session.lastSeen = performance.now();
  });
}

/** A request without a session id: an `initialize` (bounded, parsed) opens one if there is room. */
async function initialize(
  served: Served,
  request: Request,
  info: Deno.ServeHandlerInfo,
): Promise<Response> {
  if (request.method !== "POST") {
    return jsonRpcError(400, -32000, "Bad request: start a session with initialize (POST)");
  }
  const read = await readBody(request, MAX_INITIALIZE_BYTES);
  if ("refused" in read) return refusedBody(read);
  const body = read.json;
  if (body === undefined) return jsonRpcError(400, -32700, "Parse error");
  if (!isInitializeRequest(body)) {
    return jsonRpcError(400, -32000, "Bad request: no valid session id; start with initialize");
  }
  const client = await clientIdentity(
    info.remoteAddr as Deno.NetAddr,
    served.port,
    served.options.env,
  );
  const room = await makeRoom(served, client);
  if (room === "full") {
    return jsonRpcError(503, -32000, `Too many sessions (${MAX_SESSIONS}); try again later`);
  }
  if (room === "client") {
    return jsonRpcError(
      429,
      -32000,
      "Too many sessions from this client, all busy; end one first",
    );
  }
  return await openSession(served, request, body, client);
}

/** Forgets session `id` and closes its server and its surface (its toolset processes). */
async function closeSession(served: Served, id: string, reason: string): Promise<void> {
  const session = served.sessions.get(id);
  if (session === undefined) return;
  served.sessions.delete(id);
  served.options.debug?.(`session ${id.slice(0, 8)} closed (${reason})`);
  await session.server.close().catch(() => {});
  await session.surface.close().catch((error) =>
    served.options.log(`could not stop the toolsets of a session: ${(error as Error).message}`)
  );
}

/**
 * Room for one more session of `client`: at its own cap, its own session idle longest gives
 * way (a client opening sessions in a loop replaces its own); refused ("client") when all of
 * its sessions are busy. Another client's sessions never give way: with every slot taken,
 * by clients holding at most their share each, the new session waits ("full").
 */
async function makeRoom(served: Served, client: string): Promise<"ok" | "full" | "client"> {
  const { sessions } = served;
  const mine = [...sessions.values()].filter((s) => s.client === client);
  const cap = client === "loopback" ? MAX_SESSIONS : MAX_SESSIONS_PER_CLIENT;
  if (mine.length >= cap) {
    const idle = mine.filter((s) => s.busy === 0).sort((a, b) => a.lastSeen - b.lastSeen)[0];
    if (idle === undefined) return "client";
    await closeSession(served, idle.id, "evicted: its client opened another");
  }
  return sessions.size < MAX_SESSIONS ? "ok" : "full";
}

/** An `initialize` without a session id: a new server over a new surface. */
async function openSession(
  served: Served,
  request: Request,
  body: unknown,
  client: string,
): Promise<Response> {
  const { options, sessions } = served;
  const surface = await options.openSurface();
  const server = createMcpServer({ ...options, surface });
  let session: Session | undefined;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (id) => {
      session = {
        id,
        server,
        transport,
        surface,
        lastSeen: performance.now(),
        busy: 0,
        client,
      };
      sessions.set(id, session);
      options.debug?.(`session ${id.slice(0, 8)} opened (${sessions.size} open)`);
    },
    onsessionclosed: (id) => closeSession(served, id, "ended by the client"),
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: body });
  if (session === undefined) { // initialize was refused: nothing to keep
    await server.close().catch(() => {});
    await surface.close();
  }
  return response;
}
