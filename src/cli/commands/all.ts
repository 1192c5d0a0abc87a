// Generated from the command specs (src/cli/specs/) by scripts/gen_commands.ts (run by
// `deno task gen`): do not edit.
// Literal imports of every command module, for the bundle and the compiled binary (see
// registry/command_table.ts): a bundler embeds exactly what it can see. Keyed like COMMANDS.

import type { CommandLoader } from "../registry/command_table.ts";

export const COMMAND_MODULES: Readonly<Record<string, CommandLoader>> = {
  list: () => import("./list.ts"),
  info: () => import("./info.ts"),
  why: () => import("./why.ts"),
  validate: () => import("./validate.ts"),
  audit: () => import("./audit.ts"),
  lint: () => import("./lint.ts"),
  check: () => import("./check.ts"),
  scripts: () => import("./scripts.ts"),
  run: () => import("./run.ts"),
  ps: () => import("./ps.ts"),
  stop: () => import("./stop.ts"),
  logs: () => import("./logs.ts"),
  add: () => import("./add.ts"),
  install: () => import("./install.ts"),
  update: () => import("./update.ts"),
  outdated: () => import("./outdated.ts"),
  publish: () => import("./publish.ts"),
  remove: () => import("./remove.ts"),
  link: () => import("./link.ts"),
  trust: () => import("./trust.ts"),
  untrust: () => import("./untrust.ts"),
  call: () => import("./call.ts"),
  chat: () => import("./chat.ts"),
  context: () => import("./context.ts"),
  eval: () => import("./eval.ts"),
  prompt: () => import("./prompt.ts"),
  mcp: () => import("./mcp.ts"),
  init: () => import("./init.ts"),
  completions: () => import("./completions.ts"),
  policy: () => import("./policy.ts"),
  lock: () => import("./lock.ts"),
};
