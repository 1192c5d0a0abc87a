/** `skills list` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const listSpec = {
  name: "list",
  order: 10,
  aliases: ["ls"],
  summary: "List discovered skills",
  usage: ["list [--json]"],
  description: `List every discovered skill — installed ones (from $SKILLS_HOME) and the bundled
ones — sorted by name, with version, source (core/git/local), whether it is
active (AGENT_SKILLS), trusted, its commit, and its script and toolset counts.`,
  flags: {
    json: jsonFlag('One JSON document: {"skills": [...], "warnings": [...]}'),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
} as const satisfies CommandSpec;
