/**
 * cli — the command line: one declaration per command (`specs/<name>.ts`) and its run
 * function (`commands/<name>.ts`, with the generated `commands/all.ts` that imports them
 * all for the bundle), the generic parser (`args`), help rendering (`spec`), the command
 * table start-up reads and the lazy loading of command modules (`registry/`), completions,
 * the surface options of chat and mcp (`session`), and what commands ask and print
 * (`ui/`). It may import anything below it, but holds commands and
 * rendering only: a command parses, calls one runtime workflow per command with its asker
 * and renders what it returns; the filesystem, processes and the network are runtime's
 * (tests/architecture/house_test.ts checks it).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

/**
 * cli may import every layer below it (no `mayImport`); its own folders, bottom first, each
 * import only those before it (tests/architecture).
 */
export const LAYER = {
  owns: "cli",
  folders: ["cli/registry", "cli", "cli/specs", "cli/ui", "cli/commands"],
} as const;
