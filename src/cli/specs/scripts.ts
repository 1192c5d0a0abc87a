/** `skills scripts` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const scriptsSpec = {
  name: "scripts",
  order: 70,
  summary: "List a skill's scripts",
  guide: "running-scripts.md",
  usage: ["scripts [<skill>] [--json]"],
  description: `List the scripts of one skill (matched case- and '_'/'-'-insensitively), or of every
discovered skill that has scripts: every file under scripts/ (nested ones by their path,
office/unpack) with a script language's extension, or none and a #! line naming one, except
the Python modules of a package below scripts/ (a folder holding __init__.py). Run one with
\`skills run <skill> <script>\` (a file elsewhere in the skill runs by its path,
resources/deploy.sh); see its options with \`skills run <skill> <script> --help\`.`,
  flags: {
    json: jsonFlag('One JSON document: {"<skill>": [{"name": ..., "path": ...}, ...]}'),
    help: HELP_FLAG,
  },
  positionals: [{ name: "skill", complete: "skill" }],
} as const satisfies CommandSpec;
