/**
 * The command table: names, aliases and summaries from command_index.ts (generated from
 * the specs, so listing commands, top-level help and typo suggestions load no spec prose
 * and no command module). Each command module is imported only when that command runs,
 * so heavy dependencies (AI SDK, MCP SDK, tokenizer) stay off the paths of list/info/run.
 *
 * Under `deno run` the import specifier is computed on purpose: Deno walks every
 * statically analysable `import()` of the program at start-up (all commands and their npm
 * packages, about 9 ms on every command). The bundle and the compiled binary start from
 * src/binary.ts, which registers the literal imports of command_modules.ts instead, so
 * their bundlers embed every command; they load modules lazily without that walk.
 */

import type { CommandEntry, CommandModule } from "./command.ts";
import { COMMAND_INDEX } from "./command_index.ts";
import type { CommandIndexEntry } from "./spec.ts";

/**
 * Words that are not commands but that people type for one: the hint names the command.
 * Not aliases: `skills install` will restore a project's lockfile once that exists.
 */
export const MISTAKEN_COMMANDS: Readonly<Record<string, string>> = { install: "add" };

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
      const specifier = "./commands/" + index.name + ".ts";
      return import(specifier);
    },
  };
}

/** Commands by name, in the order of `skills --help` (aliases: see `findCommand`). */
export const COMMANDS: Record<string, CommandEntry> = {};
// An index loop and no Map: this runs on every start-up, where Map and iterator set-up
// measurably cost (a tenth of a millisecond or two).
for (let i = 0; i < COMMAND_INDEX.length; i++) {
  COMMANDS[COMMAND_INDEX[i]!.name] = entry(COMMAND_INDEX[i]!);
}

/** The command a word names, by its name or an alias. */
export function findCommand(word: string): CommandEntry | undefined {
  const found = COMMAND_INDEX.find((c) => c.name === word || c.aliases.includes(word));
  return found && COMMANDS[found.name];
}
