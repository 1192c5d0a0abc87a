/**
 * mcp — the MCP server: the agent's tool surface, the skills' files as resources and
 * SEP-2640's skills/list and skills/get (server.ts, resources.ts, skill_files.ts,
 * skills_extension.ts), served over stdio (line_transport.ts) or Streamable HTTP with a
 * surface per session (http_server.ts, http_guard.ts, and http_limits.ts: each client's fair
 * share of sessions, told by the socket tables one long-lived python3 reads (socket_tables.ts),
 * and request bodies that must arrive in time).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "mcp",
  mayImport: ["core", "agent", "runtime/os", "runtime/store", "runtime/catalog", "runtime/exec"],
} as const;
