/**
 * Literal imports of every command module, for the bundle and the compiled binary (see
 * commands.ts): a bundler embeds exactly what it can see. Keyed like COMMANDS.
 */

import type { CommandLoader } from "./commands.ts";

export const COMMAND_MODULES: Readonly<Record<string, CommandLoader>> = {
  list: () => import("./list.ts"),
  info: () => import("./info.ts"),
  validate: () => import("./validate.ts"),
  check: () => import("./check.ts"),
  scripts: () => import("./scripts.ts"),
  run: () => import("./run.ts"),
  add: () => import("./add.ts"),
  update: () => import("./update.ts"),
  remove: () => import("./remove.ts"),
  trust: () => import("./trust.ts"),
  untrust: () => import("./untrust.ts"),
  call: () => import("./call.ts"),
  chat: () => import("./chat.ts"),
  context: () => import("./context.ts"),
  prompt: () => import("./prompt.ts"),
  mcp: () => import("./mcp.ts"),
  init: () => import("./init.ts"),
  completions: () => import("./completions.ts"),
};
