/**
 * The definitions of the skill tools (pure): `activate_skill` with the active skills as its
 * enum, `read_skill_file` for stored skills, `call_skill_tool` for virtual skills with tools
 * (and, when toolsets go through the dispatcher, for stored skills with toolsets),
 * the script tools when a stored skill has scripts. Descriptions are short on purpose: they
 * are sent with every request.
 */

import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";
import type { ToolDefinition, VirtualSkill } from "./tool_surface.ts";
import { CALL_SKILL_TOOL } from "./virtual_tools.ts";

/**
 * `offered` names the skills the model may activate itself (the `activate_skill` enum); the
 * others (started only by the user) still bring their tools once started.
 */
export function skillToolDefinitions(
  skills: readonly LoadedSkill[],
  virtual: readonly VirtualSkill[],
  offered: readonly string[] = [...skills.map((s) => s.canonical), ...virtual.map((v) => v.name)],
  toolsetsThroughDispatcher = false,
): ToolDefinition[] {
  if (skills.length === 0 && virtual.length === 0) return [];
  const str = { type: "string" };
  const names = [...offered];
  const tools: ToolDefinition[] = [
    {
      name: "activate_skill",
      description: "Load a skill's instructions and list its files. Call before using a skill.",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string", enum: names } },
        required: ["name"],
      },
    },
  ];
  if (skills.length > 0) {
    tools.push({
      name: "read_skill_file",
      description: "Read a text file of a skill, e.g. references/guide.md.",
      inputSchema: {
        type: "object",
        properties: { skill: str, path: str },
        required: ["skill", "path"],
      },
    });
  }
  const storedToolsets = toolsetsThroughDispatcher &&
    skills.some((s) => s.manifest.toolsets.length > 0);
  if (storedToolsets || virtual.some((v) => v.tools.length > 0)) {
    tools.push(structuredClone(CALL_SKILL_TOOL));
  }
  if (skills.some((s) => s.scripts.length > 0)) {
    tools.push(
      {
        name: "script_list",
        description: "List scripts of a skill (or of all skills).",
        inputSchema: { type: "object", properties: { skill_name: str } },
      },
      {
        name: "script_help",
        description: "Show a script's --help.",
        inputSchema: {
          type: "object",
          properties: { skill_name: str, script_name: str },
          required: ["skill_name", "script_name"],
        },
      },
      {
        name: "script_run",
        description:
          "Run a script with CLI args. json (default true) adds --json and parses stdout.",
        inputSchema: {
          type: "object",
          properties: {
            skill_name: str,
            script_name: str,
            args: { type: "array", items: str },
            json: { type: "boolean" },
          },
          required: ["skill_name", "script_name"],
        },
      },
    );
  }
  return tools;
}
