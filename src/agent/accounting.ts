/**
 * Token accounting from real requests: the configured provider client builds the request
 * it would send (same model step as the chat loop), a capturing `fetch` records the body
 * and answers with an empty response — no network — and the body is tokenized.
 */

import type { ModelMessage } from "ai";
import { assistantMessage, type ToolCallRecord, toolResultMessage } from "./chat_loop.ts";
import { runModelStep } from "./model_step.ts";
import { captureFetch, createLanguageModel, type ProviderConfig } from "./providers.ts";
import { type RequestTokens, requestTokens } from "./tokens.ts";
import type { ToolSurface } from "./tool_surface.ts";

/** The first user message used when measuring; only its own tokens depend on it. */
export const PROBE_MESSAGE = "Hello";

/** Builds and captures the request for `messages` with the surface's prompt and tools. */
export async function captureRequestBody(
  config: ProviderConfig,
  surface: Pick<ToolSurface, "systemPrompt" | "listTools">,
  messages: ModelMessage[],
): Promise<unknown> {
  const capture = captureFetch(config.format);
  const model = createLanguageModel(config, capture.fetch);
  await runModelStep({
    model,
    instructions: surface.systemPrompt,
    messages,
    tools: surface.listTools(),
    stream: true,
    maxRetries: 0,
  });
  const first = capture.requests[0];
  if (first === undefined) throw new Error("the provider client sent no request");
  return first.body;
}

/** Tokens of the next request: the fixed overhead and the conversation so far. */
export async function measureConversation(
  config: ProviderConfig,
  surface: Pick<ToolSurface, "systemPrompt" | "listTools">,
  messages: ModelMessage[],
): Promise<RequestTokens> {
  const probe: ModelMessage = { role: "user", content: PROBE_MESSAGE };
  const withProbe = await captureRequestBody(config, surface, [...messages, probe]);
  const tokens = requestTokens(withProbe);
  if (messages.length === 0) {
    return { ...tokens, conversation: 0, total: tokens.fixed };
  }
  // The probe is not part of the conversation: subtract what it adds.
  const probeOnly = requestTokens(await captureRequestBody(config, surface, [probe]));
  const conversation = Math.max(0, tokens.conversation - probeOnly.conversation);
  return { ...tokens, conversation, total: tokens.fixed + conversation };
}

export interface SkillCost {
  name: string;
  /** What the skill adds to the fixed overhead (total minus the total without it). */
  fixed: number;
  /** What one `activate_skill` call and its result add to the next request. */
  activation: number;
  /** Tools mounted by the activation (typed toolsets). */
  toolsAdded: string[];
  /** Set when the activation failed (its error envelope was measured). */
  activationError?: string;
}

export interface ContextReport {
  model: string;
  format: ProviderConfig["format"];
  active: string[];
  fixed: RequestTokens;
  tools: string[];
  skills: SkillCost[];
}

/**
 * Measures the fixed overhead with `active` skills, each skill's share of it, and what
 * each activation adds. `openSurface` builds a fresh surface for a set of active skills.
 */
export async function measureContext(
  config: ProviderConfig,
  active: readonly string[],
  openSurface: (active: ReadonlySet<string>) => Promise<ToolSurface>,
): Promise<ContextReport> {
  const probe: ModelMessage[] = [{ role: "user", content: PROBE_MESSAGE }];
  const surface = await openSurface(new Set(active));
  let fixed: RequestTokens;
  let tools: string[];
  try {
    fixed = requestTokens(await captureRequestBody(config, surface, probe));
    tools = surface.listTools().map((t) => t.name);
  } finally {
    await surface.close();
  }
  const skills: SkillCost[] = [];
  for (const name of active) {
    const others = await openSurface(new Set(active.filter((n) => n !== name)));
    let without: RequestTokens;
    try {
      without = requestTokens(await captureRequestBody(config, others, probe));
    } finally {
      await others.close();
    }
    skills.push({ name, fixed: fixed.fixed - without.fixed, ...await activationCost(name) });
  }
  return { model: config.label, format: config.format, active: [...active], fixed, tools, skills };

  async function activationCost(name: string) {
    const fresh = await openSurface(new Set(active));
    try {
      const base = requestTokens(await captureRequestBody(config, fresh, probe));
      const toolsBefore = new Set(fresh.listTools().map((t) => t.name));
      const args = { name };
      const result = await fresh.callTool("activate_skill", args);
      const record: ToolCallRecord = {
        id: "call_activate",
        name: "activate_skill",
        arguments: args,
        result,
        duration_ms: 0,
      };
      const messages: ModelMessage[] = [
        ...probe,
        assistantMessage("", [{ id: record.id, name: record.name, input: args }]),
        toolResultMessage([record]),
      ];
      const after = requestTokens(await captureRequestBody(config, fresh, messages));
      const toolsAdded = fresh.listTools().map((t) => t.name).filter((t) => !toolsBefore.has(t));
      return {
        activation: after.total - base.total,
        toolsAdded,
        ...(result.success ? {} : { activationError: result.message }),
      };
    } finally {
      await fresh.close();
    }
  }
}
