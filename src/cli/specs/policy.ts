/** `skills policy` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const policySpec = {
  name: "policy",
  order: 245,
  summary: "Show the organisation's policy in force and where each rule comes from",
  guide: "signatures.md",
  usage: ["policy [--json]"],
  description: `Print the policy in force here: the files looked for — the system's
/etc/skills/policy.yaml, the user's $SKILLS_HOME/policy.yaml and the project's
.agents/policy.yaml — and every rule with the file and line it was written on.
Each file can only tighten: every rule of every file applies (a source must pass
every allow list, any file may require signatures or the sandbox), so a user's
or a project's file never loosens the system's. The rules are enforced by add,
update, install, run, chat, mcp and the library; a refusal names the file, line
and rule and exits 20 (see docs/signatures.md). SKILLS_SYSTEM_POLICY replaces the
system file's path, for tests only.`,
  flags: {
    json: jsonFlag('One JSON document: {"files": [...], "rules": [...]}'),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
  sections: [{
    title: "Exit codes",
    text: "0 shown, 1 failure, 2 usage error, 20 a policy file is invalid.",
  }],
} as const satisfies CommandSpec;
