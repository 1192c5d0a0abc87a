/**
 * cli/registry — what start-up knows of every command before it loads one: the shape of a
 * command module (`command_module`), the names, aliases and summaries generated from the
 * specs (`command_index`, written by scripts/gen_commands.ts), and the command table with
 * the global options, how argv selects a command, typo suggestions and the top-level help
 * (`command_table`). The bottom of cli/: it imports nothing of cli, and the command modules
 * it loads lazily are reached by computed specifiers (their literal imports, for the
 * bundle, are commands/all.ts).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
