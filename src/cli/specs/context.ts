/** `skills context` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, SURFACE_FLAGS, verboseFlag } from "../spec.ts";

/** The request format measured when SKILLS_MODEL is not set. */
export const DEFAULT_MEASURE_MODEL = "openai:gpt-4o-mini";

export const contextSpec = {
  name: "context",
  order: 200,
  summary: "Count the tokens of the fixed context",
  usage: ["context [--skills a,b] [--json]"],
  description: `Count the tokens (o200k_base) of what \`skills chat\` sends before the first user
message: the system prompt plus the tool definitions. The figure comes from the request
the provider client really builds for SKILLS_MODEL (captured, never sent; the OpenAI
chat format of ${DEFAULT_MEASURE_MODEL} when SKILLS_MODEL is not set; no key needed).

Also shown per active skill: what it adds to that fixed overhead, and what one
activate_skill call would add to the next request (its instructions, resource list and
any toolset tools it mounts).`,
  flags: {
    skills: SURFACE_FLAGS.skills,
    json: jsonFlag("One JSON document: {total, system, tools, tool_count, skills: [...]}"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
} as const satisfies CommandSpec;
