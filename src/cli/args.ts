/**
 * Shared argument parsing, raising UsageError, driven by a command's spec (spec.ts).
 * Hand-written rather than node:util's parseArgs: any `node:` import starts Deno's Node
 * layer (about 7 ms on every command). Supports `--long value`, `--long=value`,
 * `-s value`, grouped short booleans (`-hv`), repeated options (`multiple`), `--` before
 * positionals, a raw tail (`skills run`'s script arguments are passed on untouched) and
 * each flag's value parser (args.ts). `defineCommand` turns a spec into a command's help
 * and typed parse, so commands never read argv themselves.
 */

import { UsageError } from "../core/errors.ts";
import type { ParsedCommon } from "./registry/command_module.ts";
import { type CommandSpec, COMMON_FLAGS, type PositionalSpec, renderHelp } from "./spec.ts";

interface OptionDef {
  type: "boolean" | "string";
  short?: string;
  multiple?: boolean;
  /** The flag's value parser (args.ts): text → value, or a UsageError. */
  parse?: (text: string) => unknown;
}
type OptionSpec = Record<string, OptionDef>;

/** One occurrence's value: what the flag's parser returns, else its text or `true`. */
type OneValue<D extends OptionDef> = D extends { parse: (text: string) => infer T } ? T
  : D extends { type: "string" } ? string
  : boolean;
type ValueOf<D extends OptionDef> = D extends { multiple: true } ? OneValue<D>[] : OneValue<D>;
type ParsedValues<O extends OptionSpec> = { [K in keyof O]?: ValueOf<O[K]> };

/** Flags every command accepts. */
const COMMON_OPTIONS: typeof COMMON_FLAGS = COMMON_FLAGS;

interface CommonFlags {
  help: boolean;
  json: boolean;
  verbose: boolean;
}

/** What a command's spec gives the parser. */
interface ParserSpec {
  name: string;
  flags: OptionSpec;
  positionals: readonly PositionalSpec[];
}

interface Parsed<O extends OptionSpec> {
  values: ParsedValues<O & typeof COMMON_OPTIONS>;
  positionals: string[];
  /** The raw tail: argv after the positionals that precede a `raw` positional. */
  rest: string[];
}

/**
 * Parses `argv` (after the command name) against a command's spec: its flags plus the
 * common ones. Counts and combinations are the command's own checks, made after this.
 */
export function parseSpec<S extends ParserSpec>(
  spec: S,
  argv: readonly string[],
): Parsed<S["flags"]> {
  const raw = spec.positionals.findIndex((p) => p.raw);
  return parseCommand(spec.name, argv, spec.flags, true, raw < 0 ? undefined : raw);
}

/** Parses `argv` against the common options plus `options`. */
export function parseCommand<O extends OptionSpec>(
  command: string,
  argv: readonly string[],
  options: O,
  allowPositionals = true,
  rawAfter?: number,
): Parsed<O> {
  try {
    const spec = { ...COMMON_OPTIONS, ...options };
    const parsed = parseOptions(argv, spec, allowPositionals, rawAfter);
    applyValueParsers(spec, parsed.values);
    return parsed as Parsed<O>;
  } catch (error) {
    if (!(error instanceof ArgumentError)) throw error;
    throw new UsageError(error.message, `Run \`skills ${command} --help\` for usage`);
  }
}

class ArgumentError extends Error {}

/** `rawAfter`: once that many positionals are read, the rest of argv is kept as it is. */
function parseOptions(
  argv: readonly string[],
  spec: OptionSpec,
  allowPositionals: boolean,
  rawAfter: number | undefined,
): { values: Record<string, unknown>; positionals: string[]; rest: string[] } {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  let rest: string[] = [];
  let onlyPositionals = false;
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
    if (rawAfter !== undefined && positionals.length >= rawAfter) {
      rest = argv.slice(i);
      break;
    }
    const arg = argv[i]!;
    if (onlyPositionals) {
      positional(arg);
      continue;
    }
    if (arg === "--") {
      onlyPositionals = true;
      continue;
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
  return { values, positionals, rest };
}

/**
 * Runs each flag's value parser over what was given, in the order the spec declares the
 * flags (so the first bad flag of the declaration is the one reported), after the whole
 * argv is read: an unknown option is still reported before a bad value.
 */
function applyValueParsers(spec: OptionSpec, values: Record<string, unknown>): void {
  for (const [name, def] of Object.entries(spec)) {
    const parse = def.parse;
    if (parse === undefined || values[name] === undefined) continue;
    const given = values[name];
    values[name] = Array.isArray(given)
      ? given.map((text) => parse(text as string))
      : parse(given as string);
  }
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

function commonFlags(values: Record<string, unknown>): CommonFlags {
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

/** What a command's `options` function receives: argv read against its spec. */
interface CommandInput<S extends ParserSpec> {
  /** Every flag given, parsed by its value parser (the common flags included). */
  values: ParsedValues<S["flags"] & typeof COMMON_OPTIONS>;
  positionals: string[];
  /** The raw tail (a `raw` positional's arguments), as given. */
  rest: string[];
  /** `--help`, `--json`, `--verbose`. */
  common: ParsedCommon;
}

/** The options a command's parse returns: `OptionsOf<typeof parse>`. */
export type OptionsOf<P extends (argv: readonly string[]) => unknown> = ReturnType<P>;

/**
 * A command's help and parser from its spec: argv is read against the spec (flags, value
 * parsers, the raw tail), then `options` makes its own checks (counts, combinations) and
 * shapes what `run` receives, whose type is inferred from it. Commands write no argv
 * parsing of their own (tests/architecture/house_test.ts keeps it so).
 */
export function defineCommand<S extends CommandSpec, T extends ParsedCommon>(
  spec: S,
  options: (input: CommandInput<S>) => T,
): { help: string; parse(argv: readonly string[]): T } {
  return {
    help: renderHelp(spec),
    parse(argv) {
      const { values, positionals, rest } = parseSpec(spec, argv);
      return options({ values, positionals, rest, common: commonFlags(values) });
    },
  };
}

/**
 * Value parsers for a flag's `parse` (spec.ts): each turns the text given into the value
 * the command receives, or throws the command's UsageError. The command's own wording is
 * kept: `invalid` builds the error from the text, so messages stay what users know.
 */
type Invalid = (text: string) => UsageError;

interface NumberRule {
  /** Digits only (no sign, point or exponent). */
  integer?: boolean;
  /** The smallest value allowed. */
  min?: number;
  /** Values must be greater than this. */
  above?: number;
  max?: number;
  invalid: Invalid;
}

/** A finite number within the rule's range (`--timeout 2.5`, `--max-steps 20`). */
export function number(rule: NumberRule): (text: string) => number {
  return (text) => {
    const value = Number(text);
    const ok = text.trim() !== "" && Number.isFinite(value) &&
      (rule.integer !== true || /^\d+$/.test(text)) &&
      (rule.min === undefined || value >= rule.min) &&
      (rule.above === undefined || value > rule.above) &&
      (rule.max === undefined || value <= rule.max);
    if (!ok) throw rule.invalid(text);
    return value;
  };
}

/** One of a closed set of words (`--format json`), typed as that union. */
export function oneOf<const T extends string>(
  choices: readonly T[],
  invalid: Invalid,
): (text: string) => T {
  return (text) => {
    if (!(choices as readonly string[]).includes(text)) throw invalid(text);
    return text as T;
  };
}

/** `KEY` or `KEY=VALUE` whose key matches `key`; kept as written (`--env NAME=VALUE`). */
export function keyValue(key: RegExp, invalid: Invalid): (text: string) => string {
  return (text) => {
    const name = text.includes("=") ? text.slice(0, text.indexOf("=")) : text;
    if (!key.test(name)) throw invalid(text);
    return text;
  };
}
