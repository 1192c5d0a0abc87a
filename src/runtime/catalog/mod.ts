/**
 * runtime/catalog — which skills exist and what they are: the one skill loader that reads a
 * skill directory (loader.ts), in listing mode for the catalog (front matter, scripts,
 * resource names) or in validation mode for validate, add and update previews and trust
 * (the whole SKILL.md, symlinks, toolset modules, PEP 723 blocks, every problem a
 * diagnostic) with its walkers of a skill's files (contents.ts) and what both share with
 * the rest (load_terms.ts); the catalog of project, installed and bundled skills, with shadowing
 * (catalog.ts); the project scope — the project root, its skill folders up to it
 * (scopes.ts), its skills-lock.json read as untrusted input (runtime/store/lockfile.ts); the listing
 * cache (cache.ts), the bundled skills materialised from the binary (bundled.ts), and
 * finding skills in a tree, for add and validate alike (discover.ts).
 *
 * The catalog only describes skills; whether one may run is runtime/trust's question.
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/catalog",
  mayImport: ["core", "generated", "runtime/os", "runtime/store"],
} as const;
