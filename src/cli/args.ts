/** Shared argument parsing on top of `node:util` parseArgs, raising UsageError. */

import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../core/errors.ts";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** Flags every command accepts. */
export const COMMON_OPTIONS = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  "no-color": { type: "boolean" },
} as const satisfies OptionSpec;

export interface CommonFlags {
  help: boolean;
  json: boolean;
  verbose: boolean;
}

export function parseCommand<O extends OptionSpec>(
  command: string,
  argv: readonly string[],
  options: O,
  allowPositionals = true,
) {
  try {
    return parseArgs({
      args: [...argv],
      options: { ...COMMON_OPTIONS, ...options },
      allowPositionals,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional.*$/s, "");
    throw new UsageError(`${message}`, `Run \`skills ${command} --help\` for usage`);
  }
}

export function commonFlags(values: Record<string, unknown>): CommonFlags {
  return {
    help: values.help === true,
    json: values.json === true,
    verbose: values.verbose === true,
  };
}

export function requireOne(command: string, positionals: readonly string[], what: string): string {
  if (positionals.length === 0) {
    throw new UsageError(`Missing ${what}`, `Run \`skills ${command} --help\` for usage`);
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `Expected one ${what}, got ${positionals.length}`,
      `Run \`skills ${command} --help\` for usage`,
    );
  }
  return positionals[0]!;
}
