/**
 * agent — the model-facing side: the tool surface shared by chat, MCP and the library
 * (tools.ts, tool_surface.ts), skills defined in code and the library's skill set behind
 * mod.ts (virtual_skills.ts, virtual_tools.ts, stored_skills.ts, library.ts), the system
 * prompt, the chat loop and its REPL, providers and token accounting, and `skills eval`
 * (eval/): the same loop run over a skill's evals and trigger queries.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "agent",
  mayImport: [
    "core",
    "runtime/os",
    "runtime/store",
    "runtime/catalog",
    "runtime/exec",
    "runtime/services",
  ],
} as const;
