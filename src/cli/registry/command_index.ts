// Generated from the command specs (src/cli/specs/) by scripts/gen_commands.ts (run by
// `deno task gen`): do not edit.

import type { CommandIndexEntry } from "./command_module.ts";

/** What start-up needs of every command, in the order of `skills --help`. */
export const COMMAND_INDEX: readonly CommandIndexEntry[] = [
  {
    name: "list",
    aliases: ["ls"],
    summary: "List discovered skills",
  },
  {
    name: "info",
    aliases: [],
    summary: "Show everything about one skill",
  },
  {
    name: "why",
    aliases: [],
    summary: "Show which installed skills require a skill",
  },
  {
    name: "validate",
    aliases: [],
    summary: "Validate skill directories",
  },
  {
    name: "audit",
    aliases: [],
    summary: "Scan a skill for risky content before trusting it",
  },
  {
    name: "lint",
    aliases: [],
    summary: "Check a skill's style for its author",
  },
  {
    name: "check",
    aliases: [],
    summary: "Diagnose skills, tools and $SKILLS_HOME",
  },
  {
    name: "scripts",
    aliases: [],
    summary: "List a skill's scripts",
  },
  {
    name: "run",
    aliases: [],
    summary: "Run a skill script in the sandbox",
  },
  {
    name: "ps",
    aliases: [],
    summary: "List the skills' services that keep running",
  },
  {
    name: "stop",
    aliases: [],
    summary: "Stop a service",
  },
  {
    name: "logs",
    aliases: [],
    summary: "Show what a service printed",
  },
  {
    name: "add",
    aliases: [],
    summary: "Install skills from git, OCI, a website, npm or a directory",
  },
  {
    name: "install",
    aliases: [],
    summary: "Restore the project's skills from skills-lock.json",
  },
  {
    name: "update",
    aliases: [],
    summary: "Update installed skills",
  },
  {
    name: "outdated",
    aliases: [],
    summary: "List skills whose files changed upstream",
  },
  {
    name: "publish",
    aliases: [],
    summary: "Push skills to an OCI registry, or write them as a website's well-known index",
  },
  {
    name: "remove",
    aliases: ["rm", "uninstall"],
    summary: "Remove installed skills",
  },
  {
    name: "link",
    aliases: [],
    summary: "Make trusted skills visible to your agents",
  },
  {
    name: "trust",
    aliases: [],
    summary: "Trust a skill's current files",
  },
  {
    name: "untrust",
    aliases: [],
    summary: "Withdraw trust from a skill",
  },
  {
    name: "call",
    aliases: [],
    summary: "Call a typed toolset tool",
  },
  {
    name: "chat",
    aliases: [],
    summary: "Chat with a model that uses the skills",
  },
  {
    name: "context",
    aliases: [],
    summary: "Count the tokens of the fixed context",
  },
  {
    name: "eval",
    aliases: [],
    summary: "Measure a skill: outputs with and without it, and triggering",
  },
  {
    name: "prompt",
    aliases: [],
    summary: "Print the <available_skills> block",
  },
  {
    name: "mcp",
    aliases: [],
    summary: "Serve the skills over MCP (stdio or HTTP)",
  },
  {
    name: "init",
    aliases: [],
    summary: "Scaffold a new skill",
  },
  {
    name: "completions",
    aliases: [],
    summary: "Print shell completions",
  },
  {
    name: "policy",
    aliases: [],
    summary: "Show the organisation's policy in force and where each rule comes from",
  },
  {
    name: "lock",
    aliases: [],
    summary: "Export the lockfile as an SBOM; attest and verify the project's skill set",
  },
];
