/** The shape of a command module: pure parse, then run with a narrow context. */

import type { Context } from "../core/io.ts";

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

/** A command as the table knows it, before its module (and spec) is loaded. */
export interface CommandEntry {
  name: string;
  aliases: readonly string[];
  summary: string;
  // deno-lint-ignore no-explicit-any
  load(): Promise<CommandModule<any>>;
}
