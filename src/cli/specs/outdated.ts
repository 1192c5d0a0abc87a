/** `skills outdated` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const outdatedSpec = {
  name: "outdated",
  order: 120,
  summary: "List skills whose files changed upstream",
  guide: "project-skills.md",
  usage: ["outdated [--json]"],
  description: `Ask each remote (one ls-remote per remote) where the branch or tag of every
locked project skill (skills-lock.json) and every installed skill points now.
Where it moved, the remote is fetched once at the new commit, however many skills
come from it, and each skill's own folder is compared with the digest recorded
for it: only skills whose files changed are outdated. A skill whose repository
moved but whose folder did not is listed as "repository moved, skill unchanged"
and does not count. Skills pinned to a commit and skills copied from a directory
are listed as such. Exits 1 when any skill is outdated (or a remote could not be
asked), so a CI step can fail on it; \`skills update\` updates them.`,
  flags: {
    json: jsonFlag("One JSON document on stdout"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
  sections: [{
    title: "Exit codes",
    text: "0 everything up to date, 1 something is outdated or a remote failed, 2 usage error.",
  }],
} as const satisfies CommandSpec;
