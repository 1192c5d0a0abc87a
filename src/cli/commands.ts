/**
 * The command table, built from the command specs (plain data: listing commands, top-level
 * help and typo suggestions load no command module). Each command module is imported only
 * when that command runs, so heavy dependencies (AI SDK, MCP SDK, tokenizer) stay off the
 * paths of list/info/run.
 *
 * Under `deno run` the import specifier is computed on purpose: Deno walks every
 * statically analysable `import()` of the program at start-up (all commands and their npm
 * packages, about 9 ms on every command). The bundle and the compiled binary start from
 * src/binary.ts, which registers the literal imports of command_modules.ts instead, so
 * their bundlers embed every command; they load modules lazily without that walk.
 */

import type { CommandEntry, CommandModule } from "./command.ts";
import type { CommandSpec } from "./spec.ts";
import { addSpec } from "./specs/add.ts";
import { callSpec } from "./specs/call.ts";
import { chatSpec } from "./specs/chat.ts";
import { checkSpec } from "./specs/check.ts";
import { completionsSpec } from "./specs/completions.ts";
import { contextSpec } from "./specs/context.ts";
import { infoSpec } from "./specs/info.ts";
import { initSpec } from "./specs/init.ts";
import { listSpec } from "./specs/list.ts";
import { mcpSpec } from "./specs/mcp.ts";
import { promptSpec } from "./specs/prompt.ts";
import { removeSpec } from "./specs/remove.ts";
import { runSpec } from "./specs/run.ts";
import { scriptsSpec } from "./specs/scripts.ts";
import { trustSpec } from "./specs/trust.ts";
import { untrustSpec } from "./specs/untrust.ts";
import { updateSpec } from "./specs/update.ts";
import { validateSpec } from "./specs/validate.ts";

/** Every command, in the order of `skills --help`. */
export const SPECS: readonly CommandSpec[] = [
  listSpec,
  infoSpec,
  validateSpec,
  checkSpec,
  scriptsSpec,
  runSpec,
  addSpec,
  updateSpec,
  removeSpec,
  trustSpec,
  untrustSpec,
  callSpec,
  chatSpec,
  contextSpec,
  promptSpec,
  mcpSpec,
  initSpec,
  completionsSpec,
];

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

function entry(spec: CommandSpec): CommandEntry {
  return {
    spec,
    summary: spec.summary,
    load: () => {
      const loader = registered?.[spec.name];
      if (loader) return loader();
      const specifier = "./commands/" + spec.name + ".ts";
      return import(specifier);
    },
  };
}

/** Commands by name (aliases are not keys here: see `findCommand`). */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.fromEntries(
  SPECS.map((spec) => [spec.name, entry(spec)]),
);

const BY_WORD = new Map<string, CommandEntry>(
  SPECS.flatMap((spec) => [spec.name, ...spec.aliases ?? []].map((w) => [w, COMMANDS[spec.name]!])),
);

/** The command a word names, by its name or an alias. */
export function findCommand(word: string): CommandEntry | undefined {
  return BY_WORD.get(word);
}
