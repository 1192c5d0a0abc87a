// Generated from the command specs (src/cli/specs/) by scripts/gen_commands.ts (run by
// `deno task gen`): do not edit.
// Literal imports of every command module, for the bundle and the compiled binary (see
// commands.ts): a bundler embeds exactly what it can see. Keyed like COMMANDS.

import type { CommandLoader } from "./commands.ts";

export const COMMAND_MODULES: Readonly<Record<string, CommandLoader>> = {
  list: () => import("./commands/list.ts"),
  info: () => import("./commands/info.ts"),
  why: () => import("./commands/why.ts"),
  validate: () => import("./commands/validate.ts"),
  audit: () => import("./commands/audit.ts"),
  lint: () => import("./commands/lint.ts"),
  check: () => import("./commands/check.ts"),
  scripts: () => import("./commands/scripts.ts"),
  run: () => import("./commands/run.ts"),
  ps: () => import("./commands/ps.ts"),
  stop: () => import("./commands/stop.ts"),
  logs: () => import("./commands/logs.ts"),
  add: () => import("./commands/add.ts"),
  install: () => import("./commands/install.ts"),
  update: () => import("./commands/update.ts"),
  outdated: () => import("./commands/outdated.ts"),
  publish: () => import("./commands/publish.ts"),
  remove: () => import("./commands/remove.ts"),
  link: () => import("./commands/link.ts"),
  trust: () => import("./commands/trust.ts"),
  untrust: () => import("./commands/untrust.ts"),
  call: () => import("./commands/call.ts"),
  chat: () => import("./commands/chat.ts"),
  context: () => import("./commands/context.ts"),
  eval: () => import("./commands/eval.ts"),
  prompt: () => import("./commands/prompt.ts"),
  mcp: () => import("./commands/mcp.ts"),
  init: () => import("./commands/init.ts"),
  completions: () => import("./commands/completions.ts"),
  policy: () => import("./commands/policy.ts"),
  lock: () => import("./commands/lock.ts"),
};
