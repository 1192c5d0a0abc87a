/** `skills completions` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG } from "../spec.ts";

export const completionsSpec = {
  name: "completions",
  order: 240,
  summary: "Print shell completions",
  guide: "setup.md",
  usage: ["completions bash|zsh|fish"],
  description: `Print a shell completion script for commands, their flags, installed skill names
(for <name> arguments and --skills) and a skill's scripts (skills run <skill> <TAB>).
Skill and script names are looked up when you press TAB, by running the same
skills binary with --list-skills / --list-scripts.`,
  sections: [{
    title: "Install",
    beforeOptions: true,
    text: `
  bash   skills completions bash > ~/.local/share/bash-completion/completions/skills
         (or: source <(skills completions bash) in ~/.bashrc)
  zsh    skills completions zsh > "\${fpath[1]}/_skills"   (then: compinit)
  fish   skills completions fish > ~/.config/fish/completions/skills.fish`,
  }],
  flags: {
    "list-skills": {
      type: "boolean",
      description: "Print the names of the discovered skills, one a line",
    },
    "list-scripts": {
      type: "string",
      value: "SKILL",
      description: "Print the script names of one skill, one a line",
    },
    help: HELP_FLAG,
  },
  positionals: [{ name: "shell", required: true, complete: "shell" }],
} as const satisfies CommandSpec;
