/** `skills update` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const updateSpec = {
  name: "update",
  order: 110,
  summary: "Update installed skills",
  guide: "installing.md",
  usage: ["update [<name>...] [--all] [--project] [options]"],
  description: `Fetch the ref each installed skill tracks (its branch or tag; ls-remote first, so
nothing is cloned when nothing moved; each remote is fetched once, however many
skills come from it), show old → new commit and what changes (files
added/modified/removed, with SKILL.md, scripts, toolsets and permissions changes
flagged), confirm, then swap the new version in atomically. A skill whose
repository moved but whose own folder did not is reported as "repository moved,
skill unchanged": its files are kept and only its recorded commit moves (in the
registry or skills-lock.json), without a question. Copies made by
\`skills link --copy\` are refreshed with the new files. A skill whose
folder the repository moved (\`skills/pdf\` → \`plugins/docs/skills/pdf\`) is
followed to the one skill of the new version whose SKILL.md has its name ("moved
in its repository", and its new folder recorded); one the repository removed is
kept as installed, with the commands that drop it or pin it there. A failing
update (network, invalid new SKILL.md, Ctrl-C) leaves the installed version as it
was. Skills pinned to a commit are reported and left alone unless --ref moves
them; skills installed from a directory are copied again from it. Bundled skills
are updated with skills itself.

The new version is audited (\`skills audit\`) and the summary shows what the new
commit adds: new critical or high findings and new network endpoints. A new
critical finding refuses the update unless --allow-risky (recorded in the
registry).

If the installed files no longer match what was installed (local edits), the
update is refused unless --force: local changes would be discarded.

In a project, a skill its skills-lock.json records is the project's (it wins over
an installed skill of the same name): its folder in .agents/skills and its lock
entry (commit, file digests, permissions) are updated together. --all updates the
installed skills and the locked ones; --project only the locked ones.`,
  flags: {
    all: { type: "boolean", description: "Update every installed (and locked project) skill" },
    project: {
      type: "boolean",
      description: "Only the project's skills (skills-lock.json); all of them without names",
    },
    ref: {
      type: "string",
      value: "REF",
      description: "Move one skill to this branch, tag or commit (a commit pins it)",
    },
    branch: {
      type: "string",
      value: "NAME",
      description: "Move one skill to this branch and track it",
    },
    tag: { type: "string", value: "NAME", description: "Move one skill to this tag" },
    "dry-run": { type: "boolean", description: "Show what would change; change nothing" },
    force: { type: "boolean", description: "Update even if local changes would be discarded" },
    "allow-risky": {
      type: "boolean",
      description: "Update even with new critical audit findings (recorded in the registry)",
    },
    "allow-unsigned": {
      type: "boolean",
      description:
        "Update to an unsigned version where your or the project's policy.yaml requires\na signature (recorded; the system's policy cannot be waived)",
    },
    "accept-signer-change": {
      type: "boolean",
      description:
        "Take a new version signed by another signer than the one recorded at install\n(trust on first use; the acceptance is recorded)",
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
  positionals: [{ name: "name", variadic: true, complete: "skill" }],
  sections: [{
    title: "Exit codes",
    text: `0 updated or nothing to do, 1 a skill failed, was blocked (local changes,
new critical audit findings) or declined, 2 usage error, 124 git timed out,
130 interrupted.`,
  }],
} as const satisfies CommandSpec;
