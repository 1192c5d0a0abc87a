// Generated from the command specs (src/cli/specs/) by scripts/gen_commands.ts (run by
// `deno task gen`): do not edit.

import type { CommandSpec } from "../spec.ts";
import { addSpec } from "./add.ts";
import { auditSpec } from "./audit.ts";
import { callSpec } from "./call.ts";
import { chatSpec } from "./chat.ts";
import { checkSpec } from "./check.ts";
import { completionsSpec } from "./completions.ts";
import { contextSpec } from "./context.ts";
import { evalSpec } from "./eval.ts";
import { infoSpec } from "./info.ts";
import { initSpec } from "./init.ts";
import { installSpec } from "./install.ts";
import { linkSpec } from "./link.ts";
import { lintSpec } from "./lint.ts";
import { listSpec } from "./list.ts";
import { lockSpec } from "./lock.ts";
import { logsSpec } from "./logs.ts";
import { mcpSpec } from "./mcp.ts";
import { outdatedSpec } from "./outdated.ts";
import { policySpec } from "./policy.ts";
import { promptSpec } from "./prompt.ts";
import { psSpec } from "./ps.ts";
import { publishSpec } from "./publish.ts";
import { removeSpec } from "./remove.ts";
import { runSpec } from "./run.ts";
import { scriptsSpec } from "./scripts.ts";
import { stopSpec } from "./stop.ts";
import { trustSpec } from "./trust.ts";
import { untrustSpec } from "./untrust.ts";
import { updateSpec } from "./update.ts";
import { validateSpec } from "./validate.ts";
import { whySpec } from "./why.ts";

/** Every command, in the order of `skills --help`. */
export const SPECS: readonly CommandSpec[] = [
  listSpec,
  infoSpec,
  whySpec,
  validateSpec,
  auditSpec,
  lintSpec,
  checkSpec,
  scriptsSpec,
  runSpec,
  psSpec,
  stopSpec,
  logsSpec,
  addSpec,
  installSpec,
  updateSpec,
  outdatedSpec,
  publishSpec,
  removeSpec,
  linkSpec,
  trustSpec,
  untrustSpec,
  callSpec,
  chatSpec,
  contextSpec,
  evalSpec,
  promptSpec,
  mcpSpec,
  initSpec,
  completionsSpec,
  policySpec,
  lockSpec,
];
