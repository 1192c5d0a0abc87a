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

export const ENCODING = "o200k_base";

/** Special-token text (`<|endoftext|>`) is counted as ordinary text, never rejected. */
const ORDINARY = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text === "" ? 0 : countO200k(text, ORDINARY);
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
