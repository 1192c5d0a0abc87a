/**
 * agent/library — the tool surface opened for its users: the skill set `mod.ts` lends to
 * TypeScript programs, with skills defined in code (`virtual_skills`, dispatched by
 * surface/virtual_tools.ts), stored skills read by path (`stored_skills`) and the set itself
 * (`library`); and the surfaces chat, MCP and `context` open with the workspace they run in
 * (`surface_factory`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
