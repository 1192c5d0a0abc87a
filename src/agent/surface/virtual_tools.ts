/**
 * The tools of virtual skills (skills a program defines in code, see mod.ts). They are never
 * listed one by one: `activate_skill` documents them inside the skill's instructions, and the
 * model calls them through the one dispatcher `call_skill_tool(skill, tool, input)`. Their
 * schemas therefore cost nothing until a skill is activated, and two skills may both have a
 * tool named `search`. Every outcome is an envelope: bad input is `invalid_input`, a handler
 * that throws is `execution_failed`.
 */

import { type Envelope, fail, type FailureEnvelope, ok } from "../../core/envelope.ts";
import { quoteName } from "../../core/names.ts";
import { escapeXml, oneLine } from "./system_prompt.ts";
import type { ToolDefinition, VirtualSkill } from "./tool_surface.ts";

/** The dispatcher's definition. Short on purpose: it is sent with every request. */
export const CALL_SKILL_TOOL: ToolDefinition = {
  name: "call_skill_tool",
  description: "Call a tool of an activated skill; its instructions document the tools.",
  inputSchema: {
    type: "object",
    properties: {
      skill: { type: "string" },
      tool: { type: "string" },
      input: { type: "object", description: "The tool's input, as documented" },
    },
    required: ["skill", "tool"],
  },
};

/** Escapes `&`, `<` and `>` only: JSON's quotes stay readable (and cheap in tokens). */
function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (ch) => (ch === "&" ? "&amp;" : ch === "<" ? "&lt;" : "&gt;"));
}

/**
 * `<skill_tools>`: how to call each tool of a virtual skill (or, in the library, each toolset
 * tool of a stored skill), with its input's JSON Schema. Empty when the skill has no tools.
 */
export function renderSkillTools(skill: {
  name: string;
  tools: readonly Pick<ToolDefinition, "name" | "description" | "inputSchema">[];
}): string {
  if (skill.tools.length === 0) return "";
  const lines = [
    `<skill_tools skill="${escapeXml(skill.name)}">`,
    `Call these with call_skill_tool: {"skill": "${skill.name}", "tool": "<name>", "input": {...}}.`,
  ];
  for (const tool of skill.tools) {
    lines.push(`- ${escapeText(oneLine(tool.name))}: ${escapeText(oneLine(tool.description))}`);
    lines.push(`  input: ${escapeText(JSON.stringify(tool.inputSchema))}`);
  }
  lines.push("</skill_tools>");
  return lines.join("\n");
}

/**
 * The virtual skill `call_skill_tool` names (canonical), if `activate_skill` has loaded it;
 * otherwise a failure saying what to do instead.
 */
export function dispatchTarget(
  canonical: string,
  virtual: ReadonlyMap<string, VirtualSkill>,
  isStoredSkill: boolean,
  activated: ReadonlySet<string>,
): VirtualSkill | FailureEnvelope {
  const skill = virtual.get(canonical);
  if (skill === undefined) {
    if (isStoredSkill) {
      return fail(
        "not_found",
        `Skill '${canonical}' has no tools for call_skill_tool (its scripts and toolset ` +
          `tools are called by their own tools)`,
      );
    }
    const withTools = [...virtual.values()].filter((v) => v.tools.length > 0).map((v) => v.name);
    return fail(
      "not_found",
      `No skill '${canonical}' has tools for call_skill_tool (skills with tools: ${
        withTools.join(", ") || "none"
      })`,
    );
  }
  if (!activated.has(canonical)) {
    return fail(
      "not_found",
      `The tools of skill '${canonical}' are not available yet: call activate_skill with name '${canonical}' first`,
    );
  }
  return skill;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one tool of an activated virtual skill: its input check, then its handler. The
 * result is handed back as JSON data (what the model sees is what the program sees).
 */
/** The signal of a call whose caller gave none: it never aborts. */
const NEVER_ABORTED = new AbortController().signal;

export async function callVirtualTool(
  skill: VirtualSkill,
  toolName: string,
  input: unknown,
  signal: AbortSignal | undefined,
): Promise<Envelope> {
  const tool = skill.tools.find((t) => t.name === toolName);
  if (tool === undefined) {
    const known = skill.tools.map((t) => t.name).join(", ") || "none";
    return fail(
      "not_found",
      `Skill '${skill.name}' has no tool '${quoteName(toolName)}' (its tools: ${known})`,
    );
  }
  const label = `tool '${tool.name}' of skill '${skill.name}'`;
  let checked;
  try {
    checked = await tool.check(input);
  } catch (error) {
    return fail("execution_failed", `Cannot check the input of ${label}: ${describe(error)}`);
  }
  if (!checked.ok) return fail("invalid_input", `Invalid input for ${label}: ${checked.message}`);
  let value: unknown;
  try {
    // A handler always gets a signal (docs/library.md): one that never aborts, if none.
    value = await tool.handler(checked.value, { signal: signal ?? NEVER_ABORTED });
  } catch (error) {
    return fail("execution_failed", `The ${label} failed: ${describe(error)}`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return fail(
      "execution_failed",
      `The ${label} returned a value that is not JSON: ${describe(error)}`,
    );
  }
  return ok(json === undefined ? null : JSON.parse(json), `Called ${label}`);
}
