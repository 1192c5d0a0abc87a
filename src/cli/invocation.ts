/**
 * What `skills <argv>` asks for (pure): top-level help, the version, one command's help,
 * or a command with its arguments. Global options may come before the command name
 * (`skills --json list`): they are handed to the command as if written right after its
 * name, so `skills --verbose run k s` is `skills run --verbose k s` (a flag after
 * `run`'s <script> still belongs to the script).
 */

import { UsageError } from "../core/errors.ts";
import type { CommandEntry } from "./command.ts";
import { findCommand, MISTAKEN_COMMANDS, SPECS } from "./commands.ts";
import { GLOBAL_FLAGS } from "./spec.ts";
import { suggestCommands } from "./suggest.ts";

export type Invocation =
  /** `skills`, `skills --help`: the top-level help (on stderr with exit 2 when bare). */
  | { kind: "top-help"; bare: boolean }
  | { kind: "version" }
  /** `skills help <command>`. */
  | { kind: "command-help"; entry: CommandEntry }
  | { kind: "command"; entry: CommandEntry; argv: string[] }
  /** An unknown command or global option: the error to report. */
  | { kind: "unknown"; error: UsageError };

/** `--json` → `json`, `-v` → `verbose`: the global flags a word spells. */
const GLOBAL_WORDS = new Map<string, string>(
  Object.entries(GLOBAL_FLAGS).flatMap(([long, flag]) => [
    [`--${long}`, long],
    ...("short" in flag ? [[`-${flag.short}`, long] as [string, string]] : []),
  ]),
);

export function readInvocation(argv: readonly string[]): Invocation {
  let i = 0;
  const globals: string[] = [];
  for (; i < argv.length && argv[i]!.startsWith("-") && argv[i] !== "-"; i++) {
    if (!GLOBAL_WORDS.has(argv[i]!)) {
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
  const has = (long: string) => globals.some((g) => GLOBAL_WORDS.get(g) === long);
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
    : suggestCommands(word, SPECS);
  const hint = meant.length > 0
    ? `Did you mean ${meant.map((c) => `\`skills ${c}\``).join(" or ")}?`
    : "Run `skills --help` to see the commands";
  return new UsageError(`Unknown command '${word}'`, hint);
}
