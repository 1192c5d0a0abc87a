/**
 * `skills mcp` over stdio spoken to in raw JSON-RPC lines, without the SDK client: for
 * malformed input, and for tests that watch or kill the server process itself.
 */

import { spawnCli } from "./cli.ts";

/** A parsed JSON-RPC message; tests read into it freely. */
// deno-lint-ignore no-explicit-any
export type JsonRpcMessage = Record<string, any>;

/**
 * The JSON-RPC `initialize` request a client opens an MCP session with (id 1), for tests
 * that speak the protocol by hand over stdio or HTTP.
 */
export function initializeRequest(clientName = "t"): JsonRpcMessage {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: clientName, version: "1" },
    },
  };
}

/** Newline-delimited JSON read from a byte stream; a partial line waits for the rest. */
export class JsonLines {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next message, or null once the stream has ended. */
  async next(): Promise<JsonRpcMessage | null> {
    while (true) {
      const newline = this.#buffer.indexOf("\n");
      if (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        return JSON.parse(line);
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#buffer += value;
    }
  }

  /** Reads messages until `done(messages so far)` holds or the stream ends. */
  async until(done: (messages: JsonRpcMessage[]) => boolean): Promise<JsonRpcMessage[]> {
    const messages: JsonRpcMessage[] = [];
    while (!done(messages)) {
      const message = await this.next();
      if (message === null) break;
      messages.push(message);
    }
    return messages;
  }

  /** Reads until the response to request `id` (skipping anything else); throws at end. */
  async responseTo(id: number): Promise<JsonRpcMessage> {
    while (true) {
      const message = await this.next();
      if (message === null) throw new Error(`server closed stdout before answering ${id}`);
      if (message.id === id) return message;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

export interface RawMcpServer {
  child: Deno.ChildProcess;
  lines: JsonLines;
  /** Writes one line as is (it may be anything: malformed input is the point). */
  sendLine(line: string): Promise<void>;
  send(message: unknown): Promise<void>;
  /** Sends `initialize`, waits for its answer, then `notifications/initialized`. */
  initialize(clientName?: string): Promise<void>;
  /** Closes the server's stdin (end of input: the server should exit). */
  closeStdin(): Promise<void>;
  /** SIGKILLs the server (if still running) and releases its pipes. */
  kill(): Promise<void>;
}

/** Starts `skills mcp` with `baseEnv(env)`; stderr is discarded unless asked for. */
export function spawnMcp(
  env: Record<string, string>,
  options: { cwd?: string; stderr?: "piped" | "null" } = {},
): RawMcpServer {
  const child = spawnCli(["mcp"], {
    env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr ?? "null",
  });
  const writer = child.stdin.getWriter();
  const lines = new JsonLines(child.stdout);
  const sendLine = (line: string) => writer.write(new TextEncoder().encode(`${line}\n`));
  const send = (message: unknown) => sendLine(JSON.stringify(message));
  return {
    child,
    lines,
    sendLine,
    send,
    async initialize(clientName = "t") {
      await send(initializeRequest(clientName));
      await lines.responseTo(1);
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    },
    closeStdin: () => writer.close(),
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
      await lines.cancel();
      await writer.close().catch(() => {});
    },
  };
}
