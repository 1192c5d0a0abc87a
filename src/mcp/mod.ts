/**
 * mcp — the MCP server: the agent's tool surface and the skills' files as resources,
 * served over stdio (server.ts, resources.ts, line_transport.ts).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "mcp",
  mayImport: ["core", "agent", "runtime/os", "runtime/store", "runtime/catalog", "runtime/exec"],
} as const;
