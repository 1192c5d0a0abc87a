/** `skills why` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const whySpec = {
  name: "why",
  order: 25,
  summary: "Show which installed skills require a skill",
  guide: "installing.md",
  usage: ["why <name> [--json]"],
  description: `Show why a skill is installed: every chain of installed skills that require
it (their metadata.requires or toolhive.requires), from a skill you asked for
down to it, in the project's lockfile and in the user's registry. A skill you
asked for yourself and nothing requires is its own chain.`,
  flags: {
    json: jsonFlag("One JSON document: per scope, the chains"),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", required: true, complete: "skill" }],
  sections: [{
    title: "Examples",
    text: `
  skills why changelog-reader
  skills why style-guide --json`,
  }],
} as const satisfies CommandSpec;
