/**
 * agent/surface — the tool surface that chat, MCP and the library share: the skill tools
 * (`tools`, `tool_surface`, `tool_args`, `tool_definitions`), the one dispatcher of
 * `call_skill_tool` for skills defined in code (`virtual_tools`), what activation returns
 * (`skill_content`, `read_skill_file`), the system prompt, who may start a skill
 * (`invocation`, `allowed_tools`) and the catalog followed while a surface is open
 * (`catalog_watch`, with the session chat and MCP watch).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
