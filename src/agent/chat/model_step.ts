/**
 * One model request ("step"): the system prompt, the conversation and the current tool
 * definitions go out; streamed text, tool calls and usage come back. Tools are declared
 * without `execute`, so the AI SDK never runs them — the chat loop does, through the tool
 * surface. `skills context` sends the very same request to a capturing `fetch`.
 */

import {
  generateText,
  InvalidToolInputError,
  jsonSchema,
  type JSONSchema7,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  NoSuchToolError,
  streamText,
  tool,
  type ToolSet,
} from "ai";
import type { ToolDefinition } from "../surface/tool_surface.ts";

export interface StepToolCall {
  id: string;
  name: string;
  /** Parsed arguments; the raw text when they were not valid JSON. */
  input: unknown;
  /** Why the SDK could not parse the call, if it could not. */
  problem?: "unknown_tool" | "bad_arguments";
  detail?: string;
}

interface StepOutcome {
  text: string;
  toolCalls: StepToolCall[];
  usage: { input: number; output: number };
}

interface StepRequest {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools: ToolDefinition[];
  /** Streaming (SSE) or one JSON response. */
  stream: boolean;
  signal?: AbortSignal | undefined;
  maxRetries?: number;
  onTextDelta?: (text: string) => void;
}

/** The tool definitions in the AI SDK's shape (no `execute`: the loop runs tools itself). */
function sdkTools(definitions: readonly ToolDefinition[]): ToolSet | undefined {
  if (definitions.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const definition of definitions) {
    tools[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
    });
  }
  return tools;
}

interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
  error?: unknown;
}

function toStepCall(call: SdkToolCall): StepToolCall {
  const base = { id: call.toolCallId, name: call.toolName, input: call.input };
  if (!call.invalid) return base;
  if (NoSuchToolError.isInstance(call.error)) return { ...base, problem: "unknown_tool" };
  const detail = InvalidToolInputError.isInstance(call.error)
    ? describeCause(call.error.cause)
    : call.error instanceof Error
    ? call.error.message
    : String(call.error);
  return { ...base, problem: "bad_arguments", detail };
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message.split("\n")[0] ?? cause.message;
  return String(cause);
}

function usageOf(usage: LanguageModelUsage | undefined): { input: number; output: number } {
  return { input: usage?.inputTokens ?? 0, output: usage?.outputTokens ?? 0 };
}

/** Sends one request. Throws the SDK's error (APICallError, RetryError, ...) or an AbortError. */
export async function runModelStep(request: StepRequest): Promise<StepOutcome> {
  const common = {
    model: request.model,
    instructions: request.instructions,
    messages: request.messages,
    tools: sdkTools(request.tools),
    maxRetries: request.maxRetries ?? 2,
    ...(request.signal ? { abortSignal: request.signal } : {}),
  };
  if (!request.stream) {
    const result = await generateText(common);
    const calls = result.content.filter((part) => part.type === "tool-call") as SdkToolCall[];
    if (result.text) request.onTextDelta?.(result.text);
    return { text: result.text, toolCalls: calls.map(toStepCall), usage: usageOf(result.usage) };
  }
  let failure: { error: unknown } | undefined;
  const result = streamText({
    ...common,
    onError: ({ error }) => {
      failure ??= { error };
    },
  });
  let text = "";
  const toolCalls: StepToolCall[] = [];
  let usage = { input: 0, output: 0 };
  for await (const part of result.stream) {
    switch (part.type) {
      case "text-delta":
        text += part.text;
        request.onTextDelta?.(part.text);
        break;
      case "tool-call":
        toolCalls.push(toStepCall(part as SdkToolCall));
        break;
      case "finish-step":
        usage = usageOf(part.usage);
        break;
      case "error":
        failure ??= { error: part.error };
        break;
      case "abort":
        request.signal?.throwIfAborted();
        throw new DOMException("The request was aborted", "AbortError");
    }
  }
  if (failure) throw failure.error;
  request.signal?.throwIfAborted();
  return { text, toolCalls, usage };
}
