/**
 * Model providers through the AI SDK, configured by environment variables:
 *
 *   SKILLS_MODEL=provider:model   openai | anthropic | openai-compatible | ollama
 *   OPENAI_API_KEY / ANTHROPIC_API_KEY / SKILLS_API_KEY
 *   SKILLS_BASE_URL               base URL override (required for openai-compatible)
 *
 * Every provider gets an explicit `fetch`, so requests can be recorded (`--verbose`,
 * `/context`) or captured without any network (`skills context`).
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { guardEndpoint } from "./endpoint_guard.ts";
import {
  OLLAMA_BASE_URL,
  type ProviderConfig,
  routeSdkWarnings,
  type WireFormat,
} from "./provider_config.ts";

export {
  OLLAMA_BASE_URL,
  type ProviderConfig,
  resolveProviderConfig,
  routeSdkWarnings,
} from "./provider_config.ts";

routeSdkWarnings();

/** Builds the AI SDK language model. Keys and URLs are passed explicitly (never read from Deno.env). */
export function createLanguageModel(
  config: ProviderConfig,
  rawFetch: typeof globalThis.fetch,
): LanguageModel {
  const fetch = guardEndpoint(rawFetch);
  switch (config.provider) {
    case "openai":
      return createOpenAI({
        apiKey: config.apiKey ?? "",
        baseURL: config.baseURL ?? "https://api.openai.com/v1",
        fetch,
      }).chat(config.model);
    case "anthropic":
      return createAnthropic({
        apiKey: config.apiKey ?? "",
        baseURL: config.baseURL ?? "https://api.anthropic.com/v1",
        fetch,
      })(config.model);
    case "openai-compatible":
    case "ollama":
      return createOpenAICompatible({
        name: config.provider,
        baseURL: config.baseURL ?? OLLAMA_BASE_URL,
        ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
        includeUsage: true,
        fetch,
      }).chatModel(config.model);
  }
}

/** One request as the provider client sent it. */
interface RecordedRequest {
  url: string;
  /** The parsed JSON body (null when it was not JSON). */
  body: unknown;
}

/** Wraps `fetch` so every request body is handed to `record` before it is sent. */
export function recordingFetch(
  record: (request: RecordedRequest) => void,
  inner: typeof globalThis.fetch = globalThis.fetch,
): typeof globalThis.fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    record({ url, body: parseBody(init?.body) });
    return inner(input, init);
  };
}

function parseBody(body: unknown): unknown {
  if (typeof body !== "string") return null;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/**
 * A `fetch` that records each request and answers with a minimal valid, empty response in
 * the provider's wire format — no network. Used to measure exactly what would be sent.
 */
export function captureFetch(format: WireFormat): {
  fetch: typeof globalThis.fetch;
  requests: RecordedRequest[];
} {
  const requests: RecordedRequest[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = parseBody(init?.body);
    requests.push({ url, body });
    const stream = (body as { stream?: unknown } | null)?.stream === true;
    const model = String((body as { model?: unknown } | null)?.model ?? "capture");
    return Promise.resolve(emptyResponse(format, stream, model));
  };
  return { fetch, requests };
}

function emptyResponse(format: WireFormat, stream: boolean, model: string): Response {
  const sse = (text: string) =>
    new Response(text, { headers: { "content-type": "text/event-stream" } });
  if (format === "openai-chat") {
    const choice = { index: 0, finish_reason: "stop" };
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const base = { id: "capture", created: 0, model };
    if (!stream) {
      return Response.json({
        ...base,
        object: "chat.completion",
        choices: [{ ...choice, message: { role: "assistant", content: "" } }],
        usage,
      });
    }
    const chunk = {
      ...base,
      object: "chat.completion.chunk",
      choices: [{ ...choice, delta: { role: "assistant", content: "" } }],
      usage,
    };
    return sse(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
  }
  const message = {
    id: "msg_capture",
    type: "message",
    role: "assistant",
    model,
    content: [],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
  if (!stream) return Response.json(message);
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return sse(
    event("message_start", { message: { ...message, stop_reason: null } }) +
      event("message_delta", {
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 0 },
      }) +
      event("message_stop", {}),
  );
}
