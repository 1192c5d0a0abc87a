/** `skills untrust` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const untrustSpec = {
  name: "untrust",
  order: 170,
  summary: "Withdraw trust from a skill",
  guide: "installing.md",
  usage: ["untrust <name> [--json]"],
  description: `Withdraw trust from an installed skill. It stays installed and listed, but its
scripts and toolsets refuse to run (error: untrusted) and AGENT_SKILLS=all no
longer activates it, until \`skills trust <name>\`. Bundled skills are always
trusted; deactivate them with AGENT_SKILLS instead.`,
  flags: {
    json: jsonFlag("One JSON document on stdout"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", required: true, complete: "skill" }],
  sections: [{ title: "Exit codes", text: "0 done, 1 failure, 2 usage error." }],
} as const satisfies CommandSpec;
