/** The shape of a command module: pure parse, then run with a narrow context. */

import type { Context } from "../../core/io.ts";

export interface ParsedCommon {
  help: boolean;
  json: boolean;
  verbose: boolean;
}

export interface CommandModule<T extends ParsedCommon = ParsedCommon> {
  /** Full `--help` text. */
  help: string;
  /** Pure: argv (after the command name) → options; throws UsageError. */
  parse(argv: readonly string[]): T;
  /** Does the I/O; returns the exit code. Throws SkillError for failures. */
  run(options: T, ctx: Context): Promise<number>;
  /** Set when the command reacts to ctx.signal itself (rollback, cancel a turn, ...). */
  handlesInterrupt?: boolean;
}

/** What start-up knows of a command: command_index.ts, generated from the specs. */
export interface CommandIndexEntry {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
}

/** A command as the table knows it, before its module (and spec) is loaded. */
export interface CommandEntry extends CommandIndexEntry {
  // deno-lint-ignore no-explicit-any
  load(): Promise<CommandModule<any>>;
}
