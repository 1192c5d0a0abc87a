/**
 * The command table. Each command module is imported only when that command runs, so
 * heavy dependencies (AI SDK, MCP SDK, tokenizer) stay off the paths of list/info/run.
 *
 * Under `deno run` the import specifier is computed on purpose: Deno walks every
 * statically analysable `import()` of the program at start-up (all commands and their npm
 * packages, about 9 ms on every command). The bundle and the compiled binary start from
 * src/binary.ts, which registers the literal imports of command_modules.ts instead, so
 * their bundlers embed every command; they load modules lazily without that walk.
 */

import type { CommandEntry, CommandModule } from "./command.ts";

// deno-lint-ignore no-explicit-any
export type CommandLoader = () => Promise<CommandModule<any>>;

let registered: Readonly<Record<string, CommandLoader>> | undefined;

/** Makes `load()` use these loaders (literal imports); called by the artifact entry. */
export function useCommandLoaders(loaders: Readonly<Record<string, CommandLoader>>): void {
  registered = loaders;
}

function entry(file: string, summary: string): CommandEntry {
  return {
    summary,
    load: () => {
      const loader = registered?.[file];
      if (loader) return loader();
      const specifier = "./commands/" + file + ".ts";
      return import(specifier);
    },
  };
}

export const COMMANDS: Record<string, CommandEntry> = {
  list: entry("list", "List discovered skills"),
  info: entry("info", "Show everything about one skill"),
  validate: entry("validate", "Validate skill directories"),
  check: entry("check", "Diagnose skills, tools and $SKILLS_HOME"),
  scripts: entry("scripts", "List a skill's scripts"),
  run: entry("run", "Run a skill script in the sandbox"),
  add: entry("add", "Install skills from git or a directory"),
  update: entry("update", "Update installed skills"),
  remove: entry("remove", "Remove installed skills"),
  trust: entry("trust", "Trust a skill's current files"),
  untrust: entry("untrust", "Withdraw trust from a skill"),
  call: entry("call", "Call a typed toolset tool"),
  chat: entry("chat", "Chat with a model that uses the skills"),
  context: entry("context", "Count the tokens of the fixed context"),
  prompt: entry("prompt", "Print the <available_skills> block"),
  mcp: entry("mcp", "Serve the skills over MCP (stdio)"),
  init: entry("init", "Scaffold a new skill"),
  completions: entry("completions", "Print shell completions"),
};
