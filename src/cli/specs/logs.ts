/** `skills logs` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const logsSpec = {
  name: "logs",
  order: 86,
  summary: "Show what a service printed",
  guide: "running-scripts.md",
  usage: ["logs <id> [--json]"],
  description: `Show a service's output: what its script wrote on stdout (here on stdout) and on
stderr (here on stderr), from its start, running or ended.`,
  flags: {
    json: jsonFlag("One JSON document: the service's id, stdout and stderr"),
    help: HELP_FLAG,
  },
  positionals: [{ name: "id", required: true, complete: "none" }],
  sections: [{
    title: "Examples",
    text: `
  skills logs 3f2a1c9e0b`,
  }],
} as const satisfies CommandSpec;
