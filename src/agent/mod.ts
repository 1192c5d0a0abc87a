/**
 * agent — the model-facing side: the tool surface shared by chat, MCP and the library
 * (surface/), skills defined in code and the library's skill set behind the root mod.ts
 * (library/), the model's service tools (services/), the system prompt, the chat loop and its
 * REPL, providers and token accounting, and `skills eval` (eval/): the same loop run over a
 * skill's evals and trigger queries.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "agent",
  mayImport: [
    "core",
    // The o200k_base vocabulary deno task gen writes (agent/chat/o200k.ts).
    "generated",
    "runtime/os",
    "runtime/store",
    "runtime/catalog",
    "runtime/exec",
    "runtime/services",
  ],
  // Its folders, bottom first: each imports only those before it (tests/architecture).
  folders: [
    "agent",
    "agent/services",
    "agent/surface",
    "agent/library",
    "agent/chat",
    "agent/eval",
  ],
} as const;
