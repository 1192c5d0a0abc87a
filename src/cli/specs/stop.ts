/** `skills stop` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const stopSpec = {
  name: "stop",
  order: 84,
  summary: "Stop a service",
  guide: "running-scripts.md",
  usage: ["stop <id|skill> [--json]"],
  description: `Stop a service started with \`skills run --background\`: the one with that id (or
the start of it), or every running service of the skill of that name. Its whole
sandbox ends (no process of it is left), its ports close, and what it wrote outside
its --write folders is applied to the workspace as a run's diff is. Waits until it has
ended.`,
  flags: {
    json: jsonFlag("One JSON document: the services stopped, with how each ended"),
    help: HELP_FLAG,
  },
  positionals: [{ name: "id|skill", required: true, complete: "none" }],
  sections: [{
    title: "Examples",
    text: `
  skills stop 3f2a1c9e0b
  skills stop companion-lab`,
  }],
} as const satisfies CommandSpec;
