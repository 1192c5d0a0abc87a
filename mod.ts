/**
 * Agent Skills for TypeScript programs: the tool surface of `skills chat` and `skills mcp`,
 * as a library. Load stored skills (a skill directory, a directory of skills, or the user's
 * installed and trusted skills), define skills in code with typed tools (nothing is written
 * to disk), and hand the system prompt and the tools to the AI SDK. The model sees only
 * `<available_skills>` until it calls `activate_skill`; the tools of skills defined in code
 * and the toolset tools of stored skills are documented in the skill's instructions on
 * activation and reached through one dispatcher, `call_skill_tool(skill, tool, input)`, so
 * the tools one AI SDK call takes reach every skill. With `installed`, an open set follows
 * skills added, updated or removed meanwhile. Every tool result is the CLI's envelope
 * (`{"success": true, "result", "message"}` or `{"success": false, "error", "message"}`):
 * bad input is `invalid_input`, a handler that throws is `execution_failed`, and nothing
 * throws across the tool boundary. Scripts and toolsets of stored skills run through the
 * CLI's runner, sandbox and trust gate.
 *
 * Importing this module loads none of the CLI's commands.
 *
 * @example Skills defined in code and stored, with the AI SDK
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
 * import { z } from "zod";
 * import { defineSkill, openSkills, skillTool } from "./mod.ts";
 *
 * const weather = defineSkill({
 *   name: "weather",
 *   description: "Forecasts for a city. Use when the user asks about the weather.",
 *   body: "# Weather\n\nCall `forecast` with the city the user names.",
 *   tools: [
 *     skillTool({
 *       name: "forecast",
 *       description: "Tomorrow's forecast for a city.",
 *       inputSchema: z.object({ city: z.string() }),
 *       handler: ({ city }) => ({ city, sky: "clear", highC: 21 }),
 *     }),
 *   ],
 * });
 *
 * await using skills = await openSkills({
 *   skills: [weather],
 *   paths: ["./skills"],
 *   installed: ["hello-extended"], // a stored skill with a toolset
 * });
 * // An OpenAI-compatible gateway, through chat completions.
 * const gateway = createOpenAICompatible({
 *   name: "gateway",
 *   baseURL: "https://gateway.example.com/v1",
 *   apiKey: Deno.env.get("GATEWAY_API_KEY"),
 * });
 * const { text } = await generateText({
 *   model: gateway.chatModel("gpt-4.1-mini"),
 *   system: skills.systemPrompt,
 *   tools: skills.tools(),
 *   stopWhen: stepCountIs(5),
 *   prompt: "Will it rain in Lisbon tomorrow?",
 * });
 * console.log(text);
 * ```
 *
 * @example Dispatching tool calls yourself
 * ```ts
 * import { openSkills, SkillManifestError } from "./mod.ts";
 *
 * try {
 *   await using skills = await openSkills({ installed: ["hello-extended"] });
 *   await skills.callTool("activate_skill", { name: "hello-extended" });
 *   const run = await skills.callTool("script_run", {
 *     skill_name: "hello-extended",
 *     script_name: "advanced_greeting",
 *     args: ["--name", "Ada"],
 *   });
 *   if (!run.success) console.error(run.error, run.message);
 * } catch (error) {
 *   // A stored skill with an invalid SKILL.md throws at once, naming its line.
 *   if (error instanceof SkillManifestError) console.error(error.file, error.line);
 *   else throw error;
 * }
 * ```
 *
 * @module
 */

export { openSkills, type OpenSkillsOptions, type Skills } from "./src/agent/library/library.ts";
export {
  defineSkill,
  type JsonSchema,
  type SkillDefinition,
  type SkillTool,
  skillTool,
  type StandardSchemaV1,
  type ToolContext,
} from "./src/agent/library/virtual_skills.ts";
export { SkillManifestError } from "./src/agent/library/stored_skills.ts";
export type { ToolDefinition } from "./src/agent/surface/tool_surface.ts";
export type { Envelope, FailureEnvelope } from "./src/core/envelope.ts";
export { type ErrorCode, SkillError } from "./src/core/errors.ts";
