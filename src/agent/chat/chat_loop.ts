/**
 * The chat loop. One turn: the user's message goes out with the system prompt and the
 * current tool definitions; while the model answers with tool calls, each call runs
 * through the tool surface and its envelope goes back as JSON text; the turn ends at an
 * answer without tool calls, or after `maxSteps` requests.
 *
 * The tool list is re-read from the surface before every request (toolset tools appear
 * after `activate_skill`). A malformed call (unknown tool, arguments that are not JSON)
 * gets an error envelope, never a crash. Cancelling the signal aborts the request or the
 * running tool (and its script) and rolls the conversation back to before the turn.
 */

import type { LanguageModel, ModelMessage } from "ai";
import { type Envelope, fail } from "../../core/envelope.ts";
import type { ProviderConfig } from "./providers.ts";
import { cancelledError, providerError } from "./provider_errors.ts";
import { runModelStep, type StepToolCall } from "./model_step.ts";
import type { ToolSurface } from "../surface/tool_surface.ts";

export const DEFAULT_MAX_STEPS = 12;

export interface CompletedToolCall {
  id: string;
  name: string;
  /** As the model sent them (the raw text when they were not valid JSON). */
  arguments: unknown;
  result: Envelope;
  duration_ms: number;
}

interface TurnUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Model requests made in the turn. */
  requests: number;
}

export interface TurnResult {
  /** The text of the last model response. */
  answer: string;
  toolCalls: CompletedToolCall[];
  usage: TurnUsage;
  steps: number;
  /** `max_steps`: the model still wanted tools when the bound was reached. */
  finish: "answer" | "max_steps";
}

export interface TurnObserver {
  onTextDelta?(text: string): void;
  /** Called once a step's text is complete and before its tool calls run. */
  onStepText?(text: string, hasToolCalls: boolean): void;
  onToolCallStart?(call: { id: string; name: string; arguments: unknown }): void;
  onToolCallEnd?(record: CompletedToolCall): void;
}

export interface ChatLoopOptions {
  model: LanguageModel;
  provider: ProviderConfig;
  surface: ToolSurface;
  maxSteps?: number;
  /** Stream responses (SSE) or ask for one JSON response per request. */
  stream?: boolean;
  maxRetries?: number;
}

export function emptyUsage(): TurnUsage {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0, requests: 0 };
}

function addUsage(into: TurnUsage, from: TurnUsage): void {
  into.input_tokens += from.input_tokens;
  into.output_tokens += from.output_tokens;
  into.total_tokens += from.total_tokens;
  into.requests += from.requests;
}

/** The envelope returned for a call the model got wrong, or undefined to run it. */
function malformedCallEnvelope(call: StepToolCall): Envelope | undefined {
  if (call.problem !== "bad_arguments") return undefined;
  return fail(
    "parse_error",
    `The arguments of the call to "${call.name}" are not a valid JSON object (${
      call.detail ?? "unparsable"
    }); call it again with a JSON object that matches its input schema`,
  );
}

/** The tool-call part as it goes back into the conversation (input must be an object). */
function callInput(call: StepToolCall): unknown {
  return call.input !== null && typeof call.input === "object" && !Array.isArray(call.input)
    ? call.input
    : {};
}

/** The assistant message of one step, as it goes back into the conversation. */
export function assistantMessage(text: string, calls: readonly StepToolCall[]): ModelMessage {
  return {
    role: "assistant",
    content: [
      ...(text ? [{ type: "text" as const, text }] : []),
      ...calls.map((call) => ({
        type: "tool-call" as const,
        toolCallId: call.id,
        toolName: call.name,
        input: callInput(call),
      })),
    ],
  };
}

/** The tool message carrying each call's envelope as JSON text. */
export function toolResultMessage(records: readonly CompletedToolCall[]): ModelMessage {
  return {
    role: "tool",
    content: records.map((record) => ({
      type: "tool-result" as const,
      toolCallId: record.id,
      toolName: record.name,
      output: { type: "text" as const, value: JSON.stringify(record.result) },
    })),
  };
}

export class ChatLoop {
  /** The conversation so far (system prompt and tools are added per request). */
  messages: ModelMessage[] = [];
  readonly model: LanguageModel;
  readonly provider: ProviderConfig;
  surface: ToolSurface;
  readonly maxSteps: number;
  readonly stream: boolean;
  readonly maxRetries: number;
  /** Skills the model activated in this conversation (the surface owns this state). */
  get activated(): ReadonlySet<string> {
    return this.surface.activated();
  }

  constructor(options: ChatLoopOptions) {
    this.model = options.model;
    this.provider = options.provider;
    this.surface = options.surface;
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.stream = options.stream ?? true;
    this.maxRetries = options.maxRetries ?? 2;
  }

  /** Forgets the conversation; pass a fresh surface so activations are forgotten too. */
  reset(surface?: ToolSurface): void {
    this.messages = [];
    if (surface) this.surface = surface;
  }

  /**
   * One turn. `options.usage`, when given, gets each provider request's usage as it
   * completes, so the requests of a turn that is cancelled or fails still count (`/context`).
   */
  async runTurn(
    input: string,
    options: { signal?: AbortSignal; observer?: TurnObserver; usage?: TurnUsage } = {},
  ): Promise<TurnResult> {
    const { signal, observer } = options;
    const before = this.messages;
    const checkpoint = this.surface.checkpoint();
    const messages: ModelMessage[] = [...before, { role: "user", content: input }];
    const toolCalls: CompletedToolCall[] = [];
    const usage = emptyUsage();
    try {
      for (let step = 1; step <= this.maxSteps; step++) {
        if (signal?.aborted) throw cancelledError(signal.reason);
        const outcome = await this.request(messages, signal, observer);
        const spent = {
          input_tokens: outcome.usage.input,
          output_tokens: outcome.usage.output,
          total_tokens: outcome.usage.input + outcome.usage.output,
          requests: 1,
        };
        addUsage(usage, spent);
        if (options.usage !== undefined) addUsage(options.usage, spent);
        observer?.onStepText?.(outcome.text, outcome.toolCalls.length > 0);
        const assistant = assistantMessage(outcome.text, outcome.toolCalls);
        messages.push(assistant);
        if (outcome.toolCalls.length === 0) {
          this.messages = messages;
          return { answer: outcome.text, toolCalls, usage, steps: step, finish: "answer" };
        }
        const records: CompletedToolCall[] = [];
        for (const call of outcome.toolCalls) {
          const record = await this.execute(call, signal, observer);
          toolCalls.push(record);
          records.push(record);
        }
        messages.push(toolResultMessage(records));
      }
      this.messages = messages;
      return { answer: "", toolCalls, usage, steps: this.maxSteps, finish: "max_steps" };
    } catch (error) {
      // The turn never happened: its messages and its activations go together, so the
      // next activate_skill returns the instructions the model no longer has.
      this.messages = before;
      await this.surface.restore(checkpoint);
      throw error;
    }
  }

  private async request(
    messages: ModelMessage[],
    signal: AbortSignal | undefined,
    observer: TurnObserver | undefined,
  ) {
    try {
      return await runModelStep({
        model: this.model,
        instructions: this.surface.systemPrompt,
        messages,
        tools: this.surface.listTools(),
        stream: this.stream,
        signal,
        maxRetries: this.maxRetries,
        ...(observer?.onTextDelta ? { onTextDelta: (t: string) => observer.onTextDelta!(t) } : {}),
      });
    } catch (error) {
      throw providerError(error, this.provider, signal);
    }
  }

  private async execute(
    call: StepToolCall,
    signal: AbortSignal | undefined,
    observer: TurnObserver | undefined,
  ): Promise<CompletedToolCall> {
    observer?.onToolCallStart?.({ id: call.id, name: call.name, arguments: call.input });
    const started = performance.now();
    let result = malformedCallEnvelope(call);
    if (result === undefined) {
      result = await this.surface.callTool(call.name, call.input, signal ? { signal } : {});
    }
    const record: CompletedToolCall = {
      id: call.id,
      name: call.name,
      arguments: call.input,
      result,
      duration_ms: Math.round(performance.now() - started),
    };
    observer?.onToolCallEnd?.(record);
    if (signal?.aborted) throw cancelledError(signal.reason);
    return record;
  }
}
