/**
 * agent/library — the skill set `mod.ts` lends to TypeScript programs: skills defined in code
 * (`virtual_skills`, `virtual_tools` with its one dispatcher `call_skill_tool`), stored skills
 * read by path (`stored_skills`), and the set itself (`library`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
