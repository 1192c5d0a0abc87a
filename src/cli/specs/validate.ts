/** `skills validate` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const validateSpec = {
  name: "validate",
  order: 30,
  summary: "Validate skill directories",
  guide: "reviewing.md",
  usage: ["validate <dir>... [--strict] [--json]"],
  description: `Validate skill directories. A path may be a skill directory, its SKILL.md, or
any folder that holds skills (a repository root too): skills are found there as
\`skills add\` finds them, up to three levels down. Ends with how many were checked.

Default mode accepts every field skills understands (seed fields such as version,
toolsets, scripts, permissions.env) and warns about non-portable choices.
--strict applies the Agent Skills specification exactly: name is lower-case
kebab-case equal to the directory name, only spec fields at the top level,
metadata is a string map, allowed-tools a space-delimited string.`,
  flags: {
    strict: { type: "boolean", description: "Apply the Agent Skills spec rules exactly" },
    json: jsonFlag('One JSON document: {"valid": bool, "results": [...]}'),
    help: HELP_FLAG,
  },
  positionals: [{ name: "dir", required: true, variadic: true, complete: "path" }],
  sections: [
    { title: "Exit codes", text: "0 all valid (warnings allowed), 1 any error, 2 usage error." },
  ],
} as const satisfies CommandSpec;
