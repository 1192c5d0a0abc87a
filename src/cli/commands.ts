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
  check: { summary: "Diagnose skills and the environment", load: () => import("./check.ts") },
};
