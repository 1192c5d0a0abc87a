/** `skills info` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const infoSpec = {
  name: "info",
  order: 20,
  summary: "Show everything about one skill",
  guide: "installing.md",
  usage: ["info <name> [--json]"],
  description: `Show everything about one skill: manifest fields, description, scripts with
paths, toolsets, references and assets, source, commit, trust, and the tool names
an agent would see. The name is matched case- and '_'/'-'-insensitively.`,
  flags: {
    json: jsonFlag("One JSON document"),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", required: true, complete: "skill" }],
} as const satisfies CommandSpec;
