/**
 * runtime/exec/toolsets — what a skill's typed toolsets say about themselves, kept by what
 * decides it (`description_cache`: the tool list a toolset host described, keyed by the
 * digest of the skill's verified files, the host, the interpreter and the environment), so
 * that listing the tools of an unchanged toolset starts no host; exec/toolset_host.ts
 * starts one when a tool is called.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
