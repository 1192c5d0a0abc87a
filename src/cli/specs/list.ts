/** `skills list` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const listSpec = {
  name: "list",
  order: 10,
  aliases: ["ls"],
  summary: "List discovered skills",
  guide: "installing.md",
  usage: ["list [--json] [--tree]"],
  description: `List every discovered skill — installed ones (from $SKILLS_HOME) and the bundled
ones — sorted by name, with version, source (core/git/local), whether it is
active (AGENT_SKILLS), trusted, its commit, and its script and toolset counts.
With --tree, each skill you asked for with the skills it requires below it (the
closures \`skills add\` installed; see \`skills why\`).`,
  flags: {
    tree: { type: "boolean", description: "Show which skills require which, as a tree" },
    json: jsonFlag('One JSON document: {"skills": [...], "warnings": [...]}'),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
} as const satisfies CommandSpec;
