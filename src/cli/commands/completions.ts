/**
 * `skills completions bash|zsh|fish`: shell completion scripts generated from the command
 * table and each command's `--help` text (so they never drift), completing installed
 * skill names and a skill's scripts at completion time through `--list-skills` and
 * `--list-scripts <skill>`.
 */

import { UsageError } from "../../core/errors.ts";
import { findSkill } from "../../runtime/catalog/catalog.ts";
import type { Context } from "../../core/io.ts";
import { commonFlags, parseCommand } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { COMMANDS } from "../commands.ts";
import {
  type CommandSpec,
  flagsFromHelp,
  POSITIONALS,
  renderBash,
  renderFish,
  renderZsh,
} from "../completions_render.ts";
import { openSession } from "../session.ts";

export const help = `Usage: skills completions bash|zsh|fish

Print a shell completion script for commands, their flags, installed skill names
(for <name> arguments and --skills) and a skill's scripts (skills run <skill> <TAB>).
Skill and script names are looked up when you press TAB, by running the same
skills binary with --list-skills / --list-scripts.

Install:
  bash   skills completions bash > ~/.local/share/bash-completion/completions/skills
         (or: source <(skills completions bash) in ~/.bashrc)
  zsh    skills completions zsh > "\${fpath[1]}/_skills"   (then: compinit)
  fish   skills completions fish > ~/.config/fish/completions/skills.fish

Options:
  --list-skills          Print the names of the discovered skills, one a line
  --list-scripts SKILL   Print the script names of one skill, one a line
  -h, --help             Show this help
`;

export type Shell = "bash" | "zsh" | "fish";

export interface CompletionsOptions extends ParsedCommon {
  shell: Shell | undefined;
  listSkills: boolean;
  listScripts: string | undefined;
}

export function parse(argv: readonly string[]): CompletionsOptions {
  const { values, positionals } = parseCommand("completions", argv, {
    "list-skills": { type: "boolean" },
    "list-scripts": { type: "string" },
  });
  const flags = commonFlags(values);
  const listSkills = values["list-skills"] === true;
  const listScripts = values["list-scripts"];
  const base = { ...flags, shell: undefined, listSkills, listScripts };
  if (flags.help || listSkills || listScripts !== undefined) return base;
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? "Missing shell" : `Expected one shell, got ${positionals.length}`,
      "Run `skills completions bash`, `skills completions zsh` or `skills completions fish`",
    );
  }
  const shell = positionals[0]!;
  if (shell !== "bash" && shell !== "zsh" && shell !== "fish") {
    throw new UsageError(
      `Unsupported shell '${shell}'`,
      "Supported shells: bash, zsh, fish",
    );
  }
  return { ...base, shell };
}

/** Loads every command's help text; modules load lazily, so this is the slow path. */
export async function commandSpecs(): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = [];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    let helpText = "";
    try {
      helpText = (await entry.load()).help;
    } catch { /* a command that fails to load still completes by name */ }
    specs.push({
      name,
      summary: entry.summary,
      flags: flagsFromHelp(helpText),
      positional: POSITIONALS[name] ?? "none",
    });
  }
  return specs;
}

export async function run(options: CompletionsOptions, ctx: Context): Promise<number> {
  if (options.listSkills || options.listScripts !== undefined) {
    const { catalog } = await openSession(ctx);
    if (options.listScripts !== undefined) {
      const skill = findSkill(catalog, options.listScripts);
      for (const script of skill.scripts) ctx.stdout.write(`${script.name}\n`);
    } else {
      for (const skill of catalog.skills) ctx.stdout.write(`${skill.canonical}\n`);
    }
    return 0;
  }
  const specs = await commandSpecs();
  const render = { bash: renderBash, zsh: renderZsh, fish: renderFish }[options.shell!];
  ctx.stdout.write(render(specs));
  return 0;
}
