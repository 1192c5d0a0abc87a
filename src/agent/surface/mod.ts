/**
 * agent/surface — the tool surface that chat, MCP and the library share: the skill tools
 * (`tools`, `tool_surface`, `tool_args`, `tool_definitions`), what activation returns
 * (`skill_content`, `read_skill_file`), the system prompt, who may start a skill
 * (`invocation`, `allowed_tools`), the catalog followed while a surface is open
 * (`catalog_watch`, with the session chat and MCP watch) and opening surfaces with the
 * workspace they run in (`surface_factory`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
