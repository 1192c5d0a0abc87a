/**
 * A program that uses the library the way a developer's agent would: it imports only the
 * library's entry (mod.ts) and the AI SDK. library_test.ts runs it without write permission,
 * in a temp working directory, against the scripted LLM server, and checks what it prints
 * (one JSON report on stdout) and that nothing was written.
 *
 * Environment: LLM_BASE_URL (the scripted server); the working directory holds `skills/`
 * (stored skills, one of them `notes`) and `broken/` (a skill with an invalid SKILL.md).
 */

import { generateText, stepCountIs } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { z } from "zod";
import {
  defineSkill,
  openSkills,
  type OpenSkillsOptions,
  SkillManifestError,
  skillTool,
} from "../../../mod.ts";

const report: Record<string, unknown> = {};

// An invalid stored SKILL.md throws at once, naming its file and line.
try {
  await openSkills({ paths: ["./broken"] });
  report.broken = "loaded";
} catch (error) {
  report.broken = error instanceof SkillManifestError
    ? { code: error.code, file: error.file, line: error.line, message: error.message }
    : String(error);
}

// A virtual skill with two typed tools: one checked by zod, one by a JSON Schema.
const weather = defineSkill({
  name: "weather",
  description: "Weather forecasts and unit conversion. Use for any question about the weather.",
  body:
    "# Weather\n\nUse `forecast` for a city's forecast; `convert` turns Celsius into Fahrenheit.",
  tools: [
    skillTool({
      name: "forecast",
      description: "Tomorrow's forecast for a city.",
      inputSchema: z.object({ city: z.string().min(1) }),
      handler: ({ city }) => ({ city, sky: "clear", highC: 21 }),
    }),
    skillTool<{ celsius: number }>({
      name: "convert",
      description: "Celsius to Fahrenheit.",
      inputSchema: {
        type: "object",
        properties: { celsius: { type: "number" } },
        required: ["celsius"],
      },
      handler: ({ celsius }) => ({ fahrenheit: celsius * 9 / 5 + 32 }),
    }),
  ],
});

const options: OpenSkillsOptions = { skills: [weather], paths: ["./skills"] };
{
  await using skills = await openSkills(options);
  report.systemPrompt = skills.systemPrompt;
  report.tools = Object.keys(skills.tools());
  report.activate = await skills.callTool("activate_skill", { name: "weather" });
  report.valid = await skills.callTool("call_skill_tool", {
    skill: "weather",
    tool: "forecast",
    input: { city: "Lisbon" },
  });
  report.invalid = await skills.callTool("call_skill_tool", {
    skill: "weather",
    tool: "convert",
    input: { celsius: "warm" },
  });
  report.reference = await skills.callTool("read_skill_file", {
    skill: "notes",
    path: "references/style.md",
  });
  report.activated = [...skills.activated()];
}

// The same skill set drives a model through the AI SDK: activate, then call_skill_tool.
{
  await using skills = await openSkills(options);
  const provider = createOpenAICompatible({
    name: "scripted",
    baseURL: Deno.env.get("LLM_BASE_URL")!,
    apiKey: "test-key",
  });
  const result = await generateText({
    model: provider.chatModel("test-model"),
    system: skills.systemPrompt,
    tools: skills.tools(),
    stopWhen: stepCountIs(5),
    prompt: "What is the weather in Lisbon tomorrow?",
  });
  report.generated = {
    text: result.text,
    steps: result.steps.length,
    toolResults: result.steps.flatMap((step) =>
      step.toolResults.map((r) => ({ tool: r.toolName, output: r.output }))
    ),
  };
}

console.log(JSON.stringify(report));
