/** `skills trust` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const trustSpec = {
  name: "trust",
  order: 160,
  summary: "Trust a skill's current files",
  guide: "installing.md",
  usage: ["trust <name> [--yes] [--json]"],
  description: `Approve an installed skill's current files. The approval is bound to the digest
of the files (sha256 over the sorted relative paths and each file's hash): before
any script or toolset of the skill runs, the files are verified against it, and a
mismatch fails with integrity_mismatch until you review and trust again. Use this
after reviewing local edits, or to trust a skill you untrusted.

A project skill (.agents/skills or .claude/skills of the repository you are in) is
untrusted until you trust it: the approval is yours, kept in
$SKILLS_HOME/project-trust.json by project and folder, never in the repository.`,
  flags: {
    yes: {
      type: "boolean",
      short: "y",
      description: "Do not ask (required when stdin is not a terminal)",
    },
    json: jsonFlag("One JSON document on stdout"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", required: true, complete: "skill" }],
  sections: [{
    title: "Exit codes",
    text: `0 trusted (or already trusted, or bundled), 1 failure or declined,
2 usage error.`,
  }],
} as const satisfies CommandSpec;
