/**
 * An MCP transport over newline-delimited JSON-RPC (the stdio transport of the MCP spec),
 * reading lines from a `readLine` function and writing with `write`, so it runs on the
 * command's narrow Context and can be driven in tests.
 *
 * Unlike the SDK's StdioServerTransport it answers malformed input instead of dropping it
 * (parse error -32700, invalid request -32600), and it notices the end of input: after
 * answering the requests still in flight (bounded by `drainMs`) it reports `onclose`.
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { isSkillError } from "../core/errors.ts";

interface LineTransportOptions {
  /** The next input line without its newline; null at end of input. */
  readLine(): Promise<string | null>;
  write(text: string): void;
  /** Diagnostics (stderr). */
  log?(message: string): void;
  /** How long requests in flight may still finish after the input ends (default 10 s). */
  drainMs?: number;
}

/**
 * Largest accepted message line. The stdin reader (cli/ui/tty.ts) already refuses longer lines
 * in bytes before they are buffered; this bounds readers that do not.
 */
const MAX_LINE_CHARS = 4 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: LineTransportOptions;
  /** Ids of requests received and not yet answered. */
  readonly #inFlight = new Set<RequestId>();
  #drained: (() => void) | undefined;
  #started = false;
  #closed = false;
  #reading: Promise<void> | undefined;

  constructor(options: LineTransportOptions) {
    this.#options = options;
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error("LineTransport already started"));
    this.#started = true;
    this.#reading = this.#readLoop();
    return Promise.resolve();
  }

  /** Resolves when the read loop has finished (input ended or the transport closed). */
  get finished(): Promise<void> {
    return this.#reading ?? Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && ("result" in message || "error" in message)) {
      this.#inFlight.delete(message.id as RequestId);
      if (this.#inFlight.size === 0) this.#drained?.();
    }
    try {
      this.#options.write(`${JSON.stringify(message)}\n`);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#drained?.();
    this.onclose?.();
    return Promise.resolve();
  }

  async #readLoop(): Promise<void> {
    try {
      while (!this.#closed) {
        let line: string | null;
        try {
          line = await this.#options.readLine();
        } catch (error) {
          // The reader refuses an overlong line (bounded memory) and goes on after it.
          if (!isSkillError(error) || error.code !== "args_too_large") throw error;
          this.#reject(null, ErrorCode.InvalidRequest, `Message too large: ${error.message}`);
          continue;
        }
        if (line === null) break;
        this.#handleLine(line);
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.#closed) return;
    await this.#drain();
    await this.close();
  }

  async #drain(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#drained = resolve;
      timer = setTimeout(resolve, this.#options.drainMs ?? 10_000);
    });
    clearTimeout(timer);
  }

  #handleLine(raw: string): void {
    const line = raw.trim();
    if (line === "") return;
    if (line.length > MAX_LINE_CHARS) {
      this.#reject(null, ErrorCode.InvalidRequest, `Message too large (max ${MAX_LINE_CHARS})`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#reject(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = idOf(value);
      // A malformed notification gets no answer; a malformed request does.
      if (id !== undefined || !isObject(value) || !("method" in value)) {
        this.#reject(id ?? null, ErrorCode.InvalidRequest, "Invalid JSON-RPC message");
      } else this.#options.log?.(`ignored a malformed notification: ${line.slice(0, 200)}`);
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.#inFlight.add(message.id);
    if ("method" in message && message.method === "notifications/cancelled") {
      // A cancelled request gets no response; stop waiting for it.
      const id = idOf(message.params, "requestId");
      if (id !== undefined) this.#inFlight.delete(id);
    }
    this.onmessage?.(message);
  }

  #reject(id: RequestId | null, code: number, message: string): void {
    this.#options.log?.(`rejected an MCP message: ${message}`);
    this.#options.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function idOf(value: unknown, key = "id"): RequestId | undefined {
  if (!isObject(value)) return undefined;
  const id = value[key];
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id))
    ? id
    : undefined;
}
