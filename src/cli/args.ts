/**
 * Shared argument parsing, raising UsageError. Hand-written rather than node:util's
 * parseArgs: any `node:` import starts Deno's Node layer (about 7 ms on every command).
 * Supports `--long value`, `--long=value`, `-s value`, grouped short booleans (`-hv`),
 * repeated options (`multiple`), and `--` before positionals.
 */

import { UsageError } from "../core/errors.ts";

export interface OptionDef {
  type: "boolean" | "string";
  short?: string;
  multiple?: boolean;
}
export type OptionSpec = Record<string, OptionDef>;

type ValueOf<D extends OptionDef> = D extends { type: "string" }
  ? (D extends { multiple: true } ? string[] : string)
  : (D extends { multiple: true } ? boolean[] : boolean);
export type ParsedValues<O extends OptionSpec> = { [K in keyof O]?: ValueOf<O[K]> };

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

/** Parses `argv` against the common options plus `options`. */
export function parseCommand<O extends OptionSpec>(
  command: string,
  argv: readonly string[],
  options: O,
  allowPositionals = true,
): { values: ParsedValues<O & typeof COMMON_OPTIONS>; positionals: string[] } {
  try {
    return parseOptions(argv, { ...COMMON_OPTIONS, ...options }, allowPositionals) as {
      values: ParsedValues<O & typeof COMMON_OPTIONS>;
      positionals: string[];
    };
  } catch (error) {
    if (!(error instanceof ArgumentError)) throw error;
    throw new UsageError(error.message, `Run \`skills ${command} --help\` for usage`);
  }
}

class ArgumentError extends Error {}

function parseOptions(
  argv: readonly string[],
  spec: OptionSpec,
  allowPositionals: boolean,
): { values: Record<string, unknown>; positionals: string[] } {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const byShort = new Map<string, string>();
  for (const [name, def] of Object.entries(spec)) if (def.short) byShort.set(def.short, name);

  const store = (name: string, value: string | boolean) => {
    if (spec[name]!.multiple) ((values[name] ??= []) as unknown[]).push(value);
    else values[name] = value;
  };
  const positional = (arg: string) => {
    if (!allowPositionals) throw new ArgumentError(`Unexpected argument '${arg}'`);
    positionals.push(arg);
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      for (const rest of argv.slice(i + 1)) positional(rest);
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const def = Object.hasOwn(spec, name) ? spec[name] : undefined;
      if (def === undefined) throw new ArgumentError(`Unknown option '--${name}'`);
      if (def.type === "boolean") {
        if (eq >= 0) throw new ArgumentError(`Option '--${name}' does not take a value`);
        store(name, true);
      } else if (eq >= 0) {
        store(name, arg.slice(eq + 1));
      } else {
        store(name, valueAfter(argv, i++, `--${name}`));
      }
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        const name = byShort.get(letter);
        if (name === undefined) throw new ArgumentError(`Unknown option '-${letter}'`);
        if (spec[name]!.type === "boolean") {
          store(name, true);
        } else if (j < arg.length - 1) {
          store(name, arg.slice(j + 1)); // -sVALUE
          break;
        } else {
          store(name, valueAfter(argv, i++, `-${letter}`));
        }
      }
      continue;
    }
    positional(arg);
  }
  return { values, positionals };
}

/** The value following option `flag` at argv[index]; a missing or dash-led one is refused. */
function valueAfter(argv: readonly string[], index: number, flag: string): string {
  const value = argv[index + 1];
  if (value === undefined) throw new ArgumentError(`Option '${flag}' needs a value`);
  if (value.startsWith("-") && value !== "-") {
    throw new ArgumentError(
      `Option '${flag}' needs a value, got the option '${value}' (write ${flag}=${value} if you mean it)`,
    );
  }
  return value;
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
