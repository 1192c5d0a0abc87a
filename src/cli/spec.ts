/**
 * What a command declaration looks like. Each command is declared once, as plain data in
 * src/cli/specs/<name>.ts (cheap to import: main.ts loads every spec to list commands),
 * and everything else is derived from it: its parser (args.ts), its `--help` text
 * (help.ts), the command table, top-level help and typo suggestions (commands.ts), and
 * the shell completions (completions_render.ts).
 */

export interface FlagSpec {
  type: "boolean" | "string";
  short?: string;
  /** Repeatable: every occurrence is kept, in order. */
  multiple?: boolean;
  /** Placeholder for the value in help and completions: `REF` in `--ref REF`. */
  value?: string;
  /** The help line; each `\n` starts a continuation line under the first. */
  description: string;
  /** What a shell completes for the value: comma-separated skill names, or a directory. */
  complete?: "skill-list" | "directory";
}

/** What a shell completes for a positional argument. */
export type Completion = "skill" | "script" | "path" | "shell" | "none";

export interface PositionalSpec {
  name: string;
  required?: boolean;
  /** Takes every remaining argument. */
  variadic?: boolean;
  /** Takes the rest of argv as it is, options included (`skills run`: the script's). */
  raw?: boolean;
  complete: Completion;
}

/** A block of help text: `Title: text`, or `Title:` with the text below it when the text
 * starts with a newline, or a plain paragraph without a title. */
export interface HelpSection {
  title?: string;
  text: string;
  /** Printed between the description and the options (the rest come after them). */
  beforeOptions?: boolean;
}

export interface CommandSpec {
  name: string;
  /** Other names that run this command; shown in help and completed by the shells. */
  aliases?: readonly string[];
  /** One line for the command table. */
  summary: string;
  /** Usage lines, each after `skills `. */
  usage: readonly string[];
  /** The prose after the usage lines. */
  description: string;
  /** The heading of the options table, `Options` unless said. */
  optionsTitle?: string;
  /**
   * Flags in help order. The common flags (COMMON_FLAGS) are accepted by every command
   * whether listed or not; list one here (with this command's wording) to document it.
   */
  flags: Readonly<Record<string, FlagSpec>>;
  /** Semantic checks on them (counts, combinations) stay in the command's `parse`. */
  positionals: readonly PositionalSpec[];
  sections?: readonly HelpSection[];
}

/** What start-up knows of a command (command_index.ts, generated from the specs). */
export type CommandIndexEntry = Readonly<
  Pick<CommandSpec, "name" | "summary"> & { aliases: readonly string[] }
>;

/** Flags every command accepts, with the wording used where a command does not list them. */
export const COMMON_FLAGS = {
  help: { type: "boolean", short: "h", description: "Show this help" },
  json: { type: "boolean", description: "Machine-readable output on stdout" },
  verbose: { type: "boolean", short: "v", description: "Debug logs on stderr" },
  "no-color": { type: "boolean", description: "Disable colour" },
} as const satisfies Record<string, FlagSpec>;

/** `-h, --help  Show this help`, as most commands document it. */
export const HELP_FLAG = COMMON_FLAGS.help;

/** `--json` with this command's description of its document. */
export const jsonFlag = (description: string) => ({ type: "boolean", description }) as const;

/** `-v, --verbose` with this command's description of what it logs. */
export const verboseFlag = (description = "Debug logs on stderr") =>
  ({ type: "boolean", short: "v", description }) as const;

/**
 * Options accepted before the command name too (`skills --json list`), as the top-level
 * help documents them. `--version` is top-level only.
 */
export const GLOBAL_FLAGS = {
  help: { type: "boolean", short: "h", description: "Show help (also: skills <command> --help)" },
  version: { type: "boolean", short: "V", description: "Print the version" },
  json: { type: "boolean", description: "Machine-readable output on stdout" },
  verbose: { type: "boolean", short: "v", description: "Debug logs on stderr" },
  "no-color": { type: "boolean", description: "Disable colour (NO_COLOR is honoured too)" },
} as const satisfies Record<string, FlagSpec>;
