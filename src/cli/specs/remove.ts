/** `skills remove` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const removeSpec = {
  name: "remove",
  order: 140,
  aliases: ["rm", "uninstall"],
  summary: "Remove installed skills",
  guide: "installing.md",
  usage: ["remove <name>... [--project] [--yes] [--json]"],
  description: `Remove installed skills: their directories and registry entries. Each directory
is first renamed aside (into $SKILLS_HOME/.trash), then the entry is dropped,
then the files are deleted, so an interruption never leaves an entry without
files. Bundled skills cannot be removed (deactivate them with AGENT_SKILLS).

In a project, a skill its skills-lock.json records is the project's: its folder
in .agents/skills and its lock entry are removed together (and your trust of it).
The links \`skills link\` made for a removed skill are removed too.`,
  flags: {
    project: {
      type: "boolean",
      description: "Only the project's skills (recorded in skills-lock.json)",
    },
    yes: {
      type: "boolean",
      short: "y",
      description: "Do not ask (required when stdin is not a terminal)",
    },
    json: jsonFlag("One JSON document on stdout"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", required: true, variadic: true, complete: "skill" }],
  sections: [{ title: "Exit codes", text: "0 removed, 1 failure or declined, 2 usage error." }],
} as const satisfies CommandSpec;
