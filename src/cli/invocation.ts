/**
 * What `skills <argv>` asks for (pure): top-level help, the version, one command's help,
 * or a command with its arguments. Global options may come before the command name
 * (`skills --json list`): they are handed to the command as if written right after its
 * name, so `skills --verbose run k s` is `skills run --verbose k s` (a flag after
 * `run`'s <script> still belongs to the script). An unknown command is refused with the
 * likeliest one as the hint ("Did you mean …?").
 */

import { UsageError } from "../core/errors.ts";
import type { CommandEntry } from "./command.ts";
import { COMMAND_INDEX } from "./command_index.ts";
import { findCommand, MISTAKEN_COMMANDS } from "./commands.ts";
import { type CommandIndexEntry, GLOBAL_FLAGS } from "./spec.ts";

export type Invocation =
  /** `skills`, `skills --help`: the top-level help (on stderr with exit 2 when bare). */
  | { kind: "top-help"; bare: boolean }
  | { kind: "version" }
  /** `skills help <command>`. */
  | { kind: "command-help"; entry: CommandEntry }
  | { kind: "command"; entry: CommandEntry; argv: string[] }
  /** An unknown command or global option: the error to report. */
  | { kind: "unknown"; error: UsageError };

/** The global flag `word` spells (`--json` → `json`, `-v` → `verbose`), if any. */
function globalFlag(word: string): string | undefined {
  for (const [long, flag] of Object.entries(GLOBAL_FLAGS)) {
    if (word === `--${long}` || ("short" in flag && word === `-${flag.short}`)) return long;
  }
  return undefined;
}

export function readInvocation(argv: readonly string[]): Invocation {
  let i = 0;
  const globals: string[] = [];
  for (; i < argv.length && argv[i]!.startsWith("-") && argv[i] !== "-"; i++) {
    if (globalFlag(argv[i]!) === undefined) {
      return {
        kind: "unknown",
        error: new UsageError(
          `Unknown option '${argv[i]}'`,
          "Run `skills --help` for the global options (command options go after the command)",
        ),
      };
    }
    globals.push(argv[i]!);
  }
  const has = (long: string) => globals.some((g) => globalFlag(g) === long);
  if (has("version")) return { kind: "version" };
  const word = argv[i];
  if (word === undefined) return { kind: "top-help", bare: !has("help") };
  if (word === "help") {
    const entry = argv[i + 1] === undefined ? undefined : findCommand(argv[i + 1]!);
    return entry ? { kind: "command-help", entry } : { kind: "top-help", bare: false };
  }
  const entry = findCommand(word);
  if (entry === undefined) {
    // `skills --help <anything>` has always shown the top-level help.
    if (has("help")) return { kind: "top-help", bare: false };
    return { kind: "unknown", error: unknownCommand(word) };
  }
  return { kind: "command", entry, argv: [...globals, ...argv.slice(i + 1)] };
}

function unknownCommand(word: string): UsageError {
  const meant = Object.hasOwn(MISTAKEN_COMMANDS, word)
    ? [MISTAKEN_COMMANDS[word]!]
    : suggestCommands(word, COMMAND_INDEX);
  const hint = meant.length > 0
    ? `Did you mean ${meant.map((c) => `\`skills ${c}\``).join(" or ")}?`
    : "Run `skills --help` to see the commands";
  return new UsageError(`Unknown command '${word}'`, hint);
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `lsit` is one
 * edit from `list`, `upate` one from `update`.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** How far a typo may be from a command: one edit for short words, two from five letters. */
const maxDistance = (word: string) => (word.length < 5 ? 1 : 2);

/**
 * The commands `word` most likely meant, best first (at most three): names or aliases
 * within a small edit distance, then commands the word is a prefix of (`comp` →
 * completions). One suggestion per command, spelled as the closest of its names.
 */
export function suggestCommands(word: string, commands: readonly CommandIndexEntry[]): string[] {
  const lower = word.toLowerCase();
  const scored: { word: string; score: number; order: number }[] = [];
  commands.forEach((command, order) => {
    let best: { word: string; score: number } | undefined;
    for (const name of [command.name, ...command.aliases]) {
      const distance = editDistance(lower, name);
      const score = distance <= maxDistance(lower)
        ? distance
        : lower.length >= 2 && name.startsWith(lower)
        ? 3 // a prefix: after every near miss
        : Infinity;
      if (score < (best?.score ?? Infinity)) best = { word: name, score };
    }
    if (best) scored.push({ ...best, order });
  });
  return scored.sort((a, b) => a.score - b.score || a.order - b.order).slice(0, 3).map((s) =>
    s.word
  );
}
