/**
 * The command table. Each module is loaded with a dynamic import of a literal path, so
 * heavy dependencies (AI SDK, MCP SDK, tokenizer) stay off the paths of list/info/run while
 * `deno compile`/`deno bundle` still embed them.
 */

import type { CommandEntry } from "./command.ts";

export const COMMANDS: Record<string, CommandEntry> = {
  list: { summary: "List discovered skills", load: () => import("./list.ts") },
  info: { summary: "Show everything about one skill", load: () => import("./info.ts") },
  validate: { summary: "Validate skill directories", load: () => import("./validate.ts") },
  check: { summary: "Diagnose skills, tools and $SKILLS_HOME", load: () => import("./check.ts") },
  scripts: { summary: "List a skill's scripts", load: () => import("./scripts.ts") },
  run: { summary: "Run a skill script in the sandbox", load: () => import("./run.ts") },
  add: { summary: "Install skills from git or a directory", load: () => import("./add.ts") },
  update: { summary: "Update installed skills", load: () => import("./update.ts") },
  remove: { summary: "Remove installed skills", load: () => import("./remove.ts") },
  trust: { summary: "Trust a skill's current files", load: () => import("./trust.ts") },
  untrust: { summary: "Withdraw trust from a skill", load: () => import("./untrust.ts") },
  call: { summary: "Call a typed toolset tool", load: () => import("./call.ts") },
  chat: { summary: "Chat with a model that uses the skills", load: () => import("./chat.ts") },
  context: { summary: "Count the tokens of the fixed context", load: () => import("./context.ts") },
  prompt: { summary: "Print the <available_skills> block", load: () => import("./prompt.ts") },
  mcp: { summary: "Serve the skills over MCP (stdio)", load: () => import("./mcp.ts") },
  init: { summary: "Scaffold a new skill", load: () => import("./init.ts") },
  completions: { summary: "Print shell completions", load: () => import("./completions.ts") },
};
