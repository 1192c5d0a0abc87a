/**
 * A real ChatLoop (the AI SDK provider and all) pointed at the scripted LLM server of
 * tests/fixtures/llm_server.ts, as the chat loop, REPL and token tests drive it.
 */

import { ChatLoop, type ChatLoopOptions } from "../../src/agent/chat/chat_loop.ts";
import { createLanguageModel, resolveProviderConfig } from "../../src/agent/chat/providers.ts";
import type { ToolSurface } from "../../src/agent/surface/tool_surface.ts";
import type { LlmServer } from "../fixtures/llm_server.ts";

export type ScriptedLoopOptions = Partial<Omit<ChatLoopOptions, "provider">> & {
  /** The provider half of SKILLS_MODEL (`<provider>:test-model`); default "openai". */
  provider?: string;
};

/** A loop with test keys for every provider and no retries; `loop.provider` is its config. */
export function scriptedChatLoop(
  server: Pick<LlmServer, "baseUrl">,
  surface: ToolSurface,
  options: ScriptedLoopOptions = {},
): ChatLoop {
  const { provider = "openai", ...rest } = options;
  const config = resolveProviderConfig({
    SKILLS_MODEL: `${provider}:test-model`,
    OPENAI_API_KEY: "sk-test",
    ANTHROPIC_API_KEY: "ak-test",
    SKILLS_BASE_URL: server.baseUrl,
  });
  return new ChatLoop({
    model: createLanguageModel(config, fetch),
    provider: config,
    surface,
    maxRetries: 0,
    ...rest,
  });
}
