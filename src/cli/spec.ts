/**
 * What a command declaration looks like, and the `--help` text rendered from one. Each
 * command is declared once, as plain data in src/cli/specs/<name>.ts, and everything else
 * is derived from it: its parser (args.ts), its `--help` (renderHelp, below), the command
 * table, top-level help and typo suggestions (registry/command_table.ts, through
 * registry/command_index.ts, which is generated from the specs by scripts/gen_commands.ts so that start-up loads none of
 * them), typed option values (a flag's `parse`, args.ts; the command's options are
 * inferred through `defineCommand`) and the shell completions (completions_render.ts,
 * completions_fish.ts).
 */

import { type FlagLine, flagTable } from "./registry/command_table.ts";

/** A flag: its label and help line (FlagLine), and how it parses and completes. */
export interface FlagSpec extends FlagLine {
  type: "boolean" | "string";
  /** Repeatable: every occurrence is kept, in order. */
  multiple?: boolean;
  /** What a shell completes for the value: comma-separated skill names, or a directory. */
  complete?: "skill-list" | "directory";
  /**
   * The value parser (args.ts): each value given is passed through it before the command
   * sees it, and the options type carries what it returns. Throws UsageError.
   */
  parse?: (text: string) => unknown;
}

/** What a shell completes for a positional argument. */
type Completion = "skill" | "script" | "path" | "shell" | "none";

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
interface HelpSection {
  title?: string;
  text: string;
  /** Printed between the description and the options (the rest come after them). */
  beforeOptions?: boolean;
}

export interface CommandSpec {
  /** The command's word; its spec file is specs/<name>.ts and its module commands/<name>.ts. */
  name: string;
  /** Its place in `skills --help` (and the generated registry): lower comes first. */
  order: number;
  /** Other names that run this command; shown in help and completed by the shells. */
  aliases?: readonly string[];
  /** One line for the command table. */
  summary: string;
  /** The document of docs/ that explains it at length (docs/reference.md links to it). */
  guide: string;
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
  /** Semantic checks on them (counts, combinations) are the command's, in `defineCommand`. */
  positionals: readonly PositionalSpec[];
  sections?: readonly HelpSection[];
}

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

/**
 * The surface options of the commands that serve the skills to a model (chat, mcp): which
 * skills are active and the folder their scripts run in. Declared once; each command lists
 * them in its own help order, and session.ts's `surfaceOptions` reads them.
 */
export const SURFACE_FLAGS = {
  skills: {
    type: "string",
    value: "a,b",
    complete: "skill-list",
    description: "Active skills (overrides AGENT_SKILLS; also all, all-untrusted, none)",
  },
  workspace: {
    type: "string",
    value: "DIR",
    complete: "directory",
    description: `The folder scripts run in and may write (default: this directory;
each run's diff applied after it, guarded paths held back; SKILLS_READ_ONLY=1 keeps it
read-only)`,
  },
} as const satisfies Record<string, FlagSpec>;

/** `-v, --verbose` with this command's description of what it logs. */
export const verboseFlag = (description = "Debug logs on stderr") =>
  ({ type: "boolean", short: "v", description }) as const;

function section(s: HelpSection): string {
  if (s.title === undefined) return s.text;
  return s.text.startsWith("\n") ? `${s.title}:${s.text}` : `${s.title}: ${s.text}`;
}

function aliasLine(spec: Pick<CommandSpec, "aliases">): string[] {
  const aliases = spec.aliases ?? [];
  if (aliases.length === 0) return [];
  return [`${aliases.length === 1 ? "Alias" : "Aliases"}: ${aliases.join(", ")}`];
}

/** A command's `--help`: usage, aliases, description, sections, options, sections. */
export function renderHelp(spec: CommandSpec): string {
  const usage = spec.usage.map((u, i) => `${i === 0 ? "Usage:" : "      "} skills ${u}`);
  const blocks = [
    [...usage, ...aliasLine(spec)].join("\n"),
    spec.description,
    ...(spec.sections ?? []).filter((s) => s.beforeOptions).map(section),
    [`${spec.optionsTitle ?? "Options"}:`, ...flagTable(spec.flags)].join("\n"),
    ...(spec.sections ?? []).filter((s) => !s.beforeOptions).map(section),
  ];
  return `${blocks.join("\n\n")}\n`;
}
