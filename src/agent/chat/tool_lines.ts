/**
 * The one dim stderr line per tool call: `→ script_run kalshi-markets status --json`
 * when it starts, then ` ✓ 0.4s` or ` ✗ timeout 60.0s` when it ends.
 */

import type { Envelope } from "../../core/envelope.ts";

const MAX_SUMMARY = 120;

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word);
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > MAX_SUMMARY ? `${flat.slice(0, MAX_SUMMARY - 1)}…` : flat;
}

/** A short, human description of a call: the tool name and its arguments. */
export function describeToolCall(name: string, args: unknown): string {
  const input = args !== null && typeof args === "object" && !Array.isArray(args)
    ? args as Record<string, unknown>
    : undefined;
  if (input === undefined) {
    return clip(`${name}${args === undefined ? "" : ` ${String(args)}`}`);
  }
  const str = (key: string) => (typeof input[key] === "string" ? input[key] as string : "");
  const words: string[] = [name];
  switch (name) {
    case "activate_skill":
      words.push(str("name"));
      break;
    case "read_skill_file":
      words.push(str("skill"), str("path"));
      break;
    case "script_list":
      words.push(str("skill_name"));
      break;
    case "script_help":
      words.push(str("skill_name"), str("script_name"));
      break;
    case "script_run": {
      words.push(str("skill_name"), str("script_name"));
      const scriptArgs = Array.isArray(input.args) ? input.args : [];
      words.push(...scriptArgs.map((a) => shellWord(String(a))));
      // json defaults to true in script_run: it adds --json
      if (input.json !== false) words.push("--json");
      break;
    }
    default: {
      const json = JSON.stringify(input);
      if (json !== "{}") words.push(json);
    }
  }
  return clip(words.filter((w) => w !== "").join(" "));
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** ` ✓ 0.4s` or ` ✗ timeout 60.0s`. */
export function describeOutcome(result: Envelope, durationMs: number): string {
  return result.success
    ? `✓ ${formatSeconds(durationMs)}`
    : `✗ ${result.error} ${formatSeconds(durationMs)}`;
}

export function dim(text: string, color: boolean): string {
  return color ? `\x1b[2m${text}\x1b[22m` : text;
}
