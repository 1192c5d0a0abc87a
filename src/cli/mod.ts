/**
 * cli — the command line: one declaration per command (`specs/<name>.ts`) and its run
 * function (`commands/<name>.ts`), the generic parser (`args`), help rendering (`spec`), the
 * start-up table and lazy loading of command modules (`command_index`, `command_modules`,
 * `commands`), completions, the surface options of chat and mcp (`session`), and what
 * commands print (`ui/`). It may import anything below it, but holds commands and rendering only: the filesystem,
 * processes and the network are runtime's, asked through one workflow per command
 * (tests/architecture/house_test.ts checks it).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
