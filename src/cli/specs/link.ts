/** `skills link` (declaration: see ../spec.ts). */

import { renderAgentHelp } from "../../core/agents.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const linkSpec = {
  name: "link",
  order: 150,
  summary: "Make trusted skills visible to your agents",
  guide: "project-skills.md",
  usage: ["link [<name>...] --agent <agent>... [--global] [--copy] [--json]"],
  description: `Put trusted skills where each agent reads skills: a symlink named like the skill
in the agent's folder of this project (with --global, of your home), or with
--copy (and automatically where links cannot be made) a copy of the trusted
files. Without names, every trusted skill of the scope is linked: the project's
skills, or with --global your installed ones. Agents that read .agents/skills
already see the project's own skills there.

Only trusted skills, unchanged since, are linked, and nothing this tool did not
make is ever replaced. What is made is recorded in $SKILLS_HOME/links.json:
\`skills check\` reports a link or copy whose files no longer match the trusted
digest, and \`skills remove\` removes the links it made. \`skills update\` and
\`skills install\` refresh the copies of the folders they replace, when the new
files are trusted and the copy was not edited since it was made.`,
  flags: {
    agent: {
      type: "string",
      multiple: true,
      value: "AGENT",
      description: "An agent to link for (repeatable; see Agents below), or all-detected",
    },
    global: {
      type: "boolean",
      short: "g",
      description: "Link into the agents' user folders (your installed skills)",
    },
    copy: { type: "boolean", description: "Copy the trusted files instead of linking" },
    json: jsonFlag("One JSON document on stdout"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", variadic: true, complete: "skill" }],
  sections: [
    {
      title: "Agents",
      text: renderAgentHelp(),
    },
    {
      title: "Exit codes",
      text: "0 linked (or already), 1 a skill was refused, 2 usage error.",
    },
  ],
} as const satisfies CommandSpec;
