/**
 * Everything start-up needs before a command module loads: the command table (names,
 * aliases and summaries from command_index.ts, generated from the specs, so no spec prose
 * is loaded), the global options, how argv selects a command (`readInvocation`), typo
 * suggestions and the top-level help. One module on purpose: each module on the start-up
 * path costs about 0.1-0.2 ms (measured: with the invocation, suggestions and help in
 * modules of their own, `skills --version` was about 1 ms slower).
 *
 * Each command module is imported only when that command runs, so heavy dependencies (AI
 * SDK, MCP SDK, tokenizer) stay off the paths of list/info/run.
 *
 * Under `deno run` the import specifier is computed on purpose: Deno walks every
 * statically analysable `import()` of the program at start-up (all commands and their npm
 * packages, about 9 ms on every command). The bundle and the compiled binary start from
 * src/binary.ts, which registers the literal imports of commands/all.ts instead, so
 * their bundlers embed every command; they load modules lazily without that walk. (This
 * repository's deno.json sets `"unstable": ["lazy-dynamic-imports"]`, which stops the walk
 * for every literal `import()` under `deno run`; the computed specifier keeps the command
 * table lazy where that setting does not apply, as in a program that imports this package.)
 */

import { UsageError } from "../../core/errors.ts";
import type { CommandEntry, CommandIndexEntry, CommandModule } from "./command_module.ts";
import { COMMAND_INDEX } from "./command_index.ts";

/** What an options table shows of a flag: a command's FlagSpec, or a global flag. */
export interface FlagLine {
  short?: string;
  /** Placeholder for the value: `REF` in `--ref REF`. */
  value?: string;
  /** Each `\n` starts a continuation line under the first. */
  description: string;
}

/**
 * Options accepted before the command name too (`skills --json list`), as the top-level
 * help documents them. `--version` is top-level only.
 */
export const GLOBAL_FLAGS = {
  help: { type: "boolean", short: "h", description: "Show help (also: skills <command> --help)" },
  version: { type: "boolean", short: "V", description: "Print the version" },
  json: { type: "boolean", description: "Machine-readable output on stdout" },
  verbose: { type: "boolean", short: "v", description: "Debug logs on stderr" },
  "no-color": { type: "boolean", description: "Disable colour (NO_COLOR is honoured too)" },
} as const satisfies Record<string, FlagLine & { type: "boolean" }>;

/**
 * Words that are not commands but that people type for one: the hint names the command.
 * (`skills install <source>` is the install command's own usage error, pointing to `add`.)
 */
export const MISTAKEN_COMMANDS: Readonly<Record<string, string>> = {};

// deno-lint-ignore no-explicit-any
export type CommandLoader = () => Promise<CommandModule<any>>;

let registered: Readonly<Record<string, CommandLoader>> | undefined;

/** Makes `load()` use these loaders (literal imports); called by the artifact entry. */
export function useCommandLoaders(loaders: Readonly<Record<string, CommandLoader>>): void {
  registered = loaders;
}

function entry(index: CommandIndexEntry): CommandEntry {
  return {
    name: index.name,
    aliases: index.aliases,
    summary: index.summary,
    load: () => {
      const loader = registered?.[index.name];
      if (loader) return loader();
      const specifier = "../commands/" + index.name + ".ts";
      return import(specifier);
    },
  };
}

/** Commands by name, in the order of `skills --help` (aliases: see `findCommand`). */
export const COMMANDS: Record<string, CommandEntry> = {};
// A plain index loop and no Map: this runs on every start-up (building a Map measured
// about 0.1 ms slower).
for (let i = 0; i < COMMAND_INDEX.length; i++) {
  COMMANDS[COMMAND_INDEX[i]!.name] = entry(COMMAND_INDEX[i]!);
}

/** The command a word names, by its name or an alias. */
export function findCommand(word: string): CommandEntry | undefined {
  const found = COMMAND_INDEX.find((c) => c.name === word || c.aliases.includes(word));
  return found && COMMANDS[found.name];
}

type Invocation =
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

/** `-y, --yes`, `--ref REF`, `-p, --prompt TEXT`. */
function flagLabel(long: string, flag: FlagLine): string {
  const name = flag.short ? `-${flag.short}, --${long}` : `--${long}`;
  return flag.value === undefined ? name : `${name} ${flag.value}`;
}

/** The narrowest option column: as wide as `-v, --verbose`, so most tables line up. */
const MIN_LABEL_WIDTH = 13;

/**
 * Two-column option lines, for `skills --help` and each command's help (spec.ts):
 * descriptions start two spaces after the widest label.
 */
export function flagTable(flags: Readonly<Record<string, FlagLine>>): string[] {
  const entries = Object.entries(flags);
  const width = Math.max(MIN_LABEL_WIDTH, ...entries.map(([long, f]) => flagLabel(long, f).length));
  const indent = " ".repeat(width + 4);
  return entries.flatMap(([long, flag]) => {
    const [first, ...more] = flag.description.split("\n");
    return [
      `  ${flagLabel(long, flag).padEnd(width)}  ${first}`,
      ...more.map((line) => `${indent}${line}`),
    ];
  });
}

/** `skills --help`: the command table (with aliases), global options, environment. */
export function renderTopLevelHelp(
  commands: readonly CommandIndexEntry[],
  version: string,
): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => {
    const word = c.aliases.length === 1 ? "alias" : "aliases";
    const aliases = c.aliases.length > 0 ? ` (${word}: ${c.aliases.join(", ")})` : "";
    return `  ${c.name.padEnd(width)}  ${c.summary}${aliases}`;
  });
  return `skills ${version} — install, run and serve Agent Skills

Usage: skills [global options] <command> [options]

Commands:
${lines.join("\n")}

Global options (before or after the command):
${flagTable(GLOBAL_FLAGS).join("\n")}

Environment: SKILLS_HOME (default ~/.agent/skills), AGENT_SKILLS (active skills:
a,b | all | all-untrusted | none). A .env file in the working directory is read.

Exit codes: 0 ok, 1 failure, 2 usage error, 124 timeout, 130 interrupted;
\`skills run\` passes the script's own exit code through.
`;
}
