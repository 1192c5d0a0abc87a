/**
 * cli — the command line: one declaration per command (`specs/<name>.ts`) and its run
 * function (`commands/<name>.ts`), the generic parser (`args`), help rendering (`spec`), the
 * start-up table and lazy loading of command modules (`command_index`, `command_modules`,
 * `commands`), completions, the command session (`session`), and what commands ask and
 * print (`ui/`). A command parses, asks a workflow below (runtime/) with its asker, and
 * renders what it returns; no workflow lives here. It may import anything below it.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
