/** The shape of a command module: pure parse, then run with a narrow context. */

import type { Context } from "../core/io.ts";
import type { CommandSpec } from "./spec.ts";

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

export interface CommandEntry {
  spec: CommandSpec;
  summary: string;
  // deno-lint-ignore no-explicit-any
  load(): Promise<CommandModule<any>>;
}
