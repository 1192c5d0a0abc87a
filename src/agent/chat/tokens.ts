/**
 * Token accounting with o200k_base (`gpt-tokenizer`). Loaded only by `skills chat` and
 * `skills context` — never on the list/info/run paths.
 *
 * Counts are taken from a provider request body as it goes on the wire:
 * - system: the text of the system prompt (OpenAI `system`/`developer` messages, Anthropic
 *   `system`);
 * - tools: the compact JSON of the `tools` array exactly as sent;
 * - conversation: the compact JSON of every other message.
 * The fixed overhead is system + tools: what is sent before the first user message.
 */

import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

export const ENCODING = "o200k_base";

/** Special-token text (`<|endoftext|>`) is counted as ordinary text, never rejected. */
const ORDINARY = { disallowedSpecial: new Set<string>() };

/**
 * The pieces o200k_base cuts text into before merging each one on its own: gpt-tokenizer
 * takes this expression's matches one after another. Sticky, to take each where the last
 * one ended.
 */
const PIECE = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "uy");

/** Counted pieces, kept across calls: a thousand skills' entries repeat the same pieces. */
const pieceTokens = new Map<string, number>();

/** Past this many pieces the memo starts over rather than grow for a whole chat session. */
const PIECE_MEMO_LIMIT = 20_000;

/**
 * o200k_base tokens of `text`, exactly as gpt-tokenizer counts them. It counts each piece of
 * the split on its own, so the count is the sum of the pieces' counts: counting each
 * distinct piece once leaves ~30 bytes of garbage per token where the library's own loop
 * leaves ~240. That garbage was most of what `skills context` allocated once the tokenizer
 * was loaded (1,000 skills: ~60 MiB, enough to fill a young generation the tokenizer had
 * just doubled: up to 9 MiB more peak RSS). When the split does not run piece after piece,
 * or a piece alone would not split into itself, the library counts the whole text.
 */
export function countTokens(text: string): number {
  if (text === "") return 0;
  return countByPieces(text) ?? countO200k(text, ORDINARY);
}

/** The sum of the pieces' counts, or undefined where that would not be the library's. */
function countByPieces(text: string): number | undefined {
  let total = 0;
  for (let at = 0; at < text.length;) {
    const end = pieceEnd(text, at);
    const count = end === undefined ? undefined : countPiece(text.slice(at, end));
    if (end === undefined || count === undefined) return undefined;
    total += count;
    at = end;
  }
  return total;
}

/** Where the piece that starts at `at` ends; undefined when none starts there. */
function pieceEnd(text: string, at: number): number | undefined {
  PIECE.lastIndex = at;
  return PIECE.test(text) ? PIECE.lastIndex : undefined;
}

/** A piece's tokens (the library's count of it alone); undefined when alone it splits. */
function countPiece(piece: string): number | undefined {
  const known = pieceTokens.get(piece);
  if (known !== undefined) return known;
  if (pieceEnd(piece, 0) !== piece.length) return undefined;
  if (pieceTokens.size >= PIECE_MEMO_LIMIT) pieceTokens.clear();
  const count = countO200k(piece, ORDINARY);
  pieceTokens.set(piece, count);
  return count;
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
