/**
 * Value parsers for a flag's `parse` (spec.ts): each turns the text given into the value
 * the command receives, or throws the command's UsageError. The command's own wording is
 * kept: `invalid` builds the error from the text, so messages stay what users know.
 */

import type { UsageError } from "../core/errors.ts";

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
