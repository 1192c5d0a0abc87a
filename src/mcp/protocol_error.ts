/**
 * JSON-RPC errors as the server sends them. The SDK's `McpError` puts `MCP error <code>: ` in
 * front of its message, and clients put that prefix in front of what they receive, so a
 * user would read it twice: the message sent is one readable sentence, nothing more.
 */

/** JSON-RPC's "invalid params". */
export const INVALID_PARAMS = -32602;
/** JSON-RPC's "method not found". */
export const METHOD_NOT_FOUND = -32601;
/** MCP's "resource not found". */
export const RESOURCE_NOT_FOUND = -32002;

/** Thrown by a request handler; the SDK sends `code`, `message` and `data` as they are. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }
}

export function invalidParams(message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, message);
}
