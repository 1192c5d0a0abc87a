/**
 * Token accounting with o200k_base (gpt-tokenizer's split and vocabulary, the latter in the
 * compact form of ./o200k.ts). Loaded only by `skills chat`, `skills context` and the lint
 * of a long body — never on the list/info/run paths.
 *
 * Counts are taken from a provider request body as it goes on the wire:
 * - system: the text of the system prompt (OpenAI `system`/`developer` messages, Anthropic
 *   `system`);
 * - tools: the compact JSON of the `tools` array exactly as sent;
 * - conversation: the compact JSON of every other message.
 * The fixed overhead is system + tools: what is sent before the first user message.
 */

import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { countPiece } from "./o200k.ts";

export const ENCODING = "o200k_base";

/**
 * The pieces o200k_base cuts text into before merging each one on its own, taken one after
 * another as gpt-tokenizer takes them (its expression, global and Unicode-aware).
 */
const PIECES = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "gu");

/** Counted pieces, kept across calls: a thousand skills' entries repeat the same pieces. */
const pieceTokens = new Map<string, number>();

/** Past this many pieces the memo starts over rather than grow for a whole chat session. */
const PIECE_MEMO_LIMIT = 20_000;

/**
 * o200k_base tokens of `text`, exactly as gpt-tokenizer counts them (special-token text such
 * as `<|endoftext|>` counted as ordinary text, never rejected): the sum of its pieces'
 * counts, each distinct piece counted once (./o200k.ts, from the compact vocabulary).
 */
export function countTokens(text: string): number {
  let total = 0;
  for (const [piece] of text.matchAll(PIECES)) {
    let count = pieceTokens.get(piece);
    if (count === undefined) {
      if (pieceTokens.size >= PIECE_MEMO_LIMIT) pieceTokens.clear();
      count = countPiece(piece);
      pieceTokens.set(piece, count);
    }
    total += count;
  }
  return total;
}

export interface RequestTokens {
  system: number;
  tools: number;
  /** Number of tool definitions in the request. */
  toolCount: number;
  conversation: number;
  /** system + tools: the fixed overhead. */
  fixed: number;
  total: number;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The text of a string or of an array of `{type: "text", text}` parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
      .join("\n");
  }
  return "";
}

/** Splits a request body (OpenAI chat completions or Anthropic Messages) into its parts. */
export function requestParts(body: unknown): {
  system: string;
  tools: unknown[];
  conversation: unknown[];
} {
  if (!isRecord(body)) return { system: "", tools: [], conversation: [] };
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const systemParts: string[] = [];
  if (body.system !== undefined) systemParts.push(textOf(body.system));
  const conversation: unknown[] = [];
  for (const message of messages) {
    if (isRecord(message) && (message.role === "system" || message.role === "developer")) {
      systemParts.push(textOf(message.content));
    } else {
      conversation.push(message);
    }
  }
  return { system: systemParts.join("\n"), tools, conversation };
}

export function requestTokens(body: unknown): RequestTokens {
  const parts = requestParts(body);
  const system = countTokens(parts.system);
  const tools = parts.tools.length === 0 ? 0 : countTokens(JSON.stringify(parts.tools));
  const conversation = parts.conversation.length === 0
    ? 0
    : countTokens(JSON.stringify(parts.conversation));
  return {
    system,
    tools,
    toolCount: parts.tools.length,
    conversation,
    fixed: system + tools,
    total: system + tools + conversation,
  };
}

/** The fixed overhead (system prompt + tool definitions) of a recorded request body. */
export function fixedOverheadTokens(body: unknown): number {
  return requestTokens(body).fixed;
}
