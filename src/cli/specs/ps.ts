/** `skills ps` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const psSpec = {
  name: "ps",
  order: 82,
  summary: "List the skills' services that keep running",
  guide: "running-scripts.md",
  usage: ["ps [--all] [--json]"],
  description: `List the services started with \`skills run --background\`: each one's id, skill,
script, the URLs of its ports on this machine (http://127.0.0.1:PORT/), how long it has
run, what it may write live and what it has written so far elsewhere (its receipt so
far: applied to the workspace when it stops). A service is running only while its supervisor process
is: one whose process is gone, or that a reboot ended, is listed as ended, never as
running.`,
  flags: {
    all: { type: "boolean", description: "Also list the services that have ended, with why" },
    json: jsonFlag("One JSON document: the services, with their ports, state and receipt"),
    help: HELP_FLAG,
  },
  positionals: [],
  sections: [{
    title: "Examples",
    text: `
  skills ps
  skills ps --all --json`,
  }],
} as const satisfies CommandSpec;
