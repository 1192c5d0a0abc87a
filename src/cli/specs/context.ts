/** `skills context` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, SURFACE_FLAGS, verboseFlag } from "../spec.ts";
import { number } from "../args.ts";

/** The request format measured when SKILLS_MODEL is not set. */
export const DEFAULT_MEASURE_MODEL = "openai:gpt-4o-mini";

export const contextSpec = {
  name: "context",
  order: 200,
  summary: "Count the tokens of the fixed context",
  guide: "agents-and-mcp.md",
  usage: ["context [--skills a,b] [--agent claude-code|codex [--context-window N]] [--json]"],
  description: `Count the tokens (o200k_base) of what \`skills chat\` sends before the first user
message: the system prompt plus the tool definitions. The figure comes from the request
the provider client really builds for SKILLS_MODEL (captured, never sent; the OpenAI
chat format of ${DEFAULT_MEASURE_MODEL} when SKILLS_MODEL is not set; no key needed).

Also shown per active skill: what it adds to that fixed overhead, and what one
activate_skill call would add to the next request (its instructions, resource list and
any toolset tools it mounts).

With --agent: whether the active skills' listing fits what that agent shows of it. Claude
Code keeps 1% of the context window (8,000 characters when --context-window is not given)
and cuts each description at 1,536 characters; Codex keeps 2% of the window, or 8,000
characters. A skill past the budget is not listed: the model never sees it.`,
  flags: {
    skills: SURFACE_FLAGS.skills,
    agent: {
      type: "string",
      value: "NAME",
      description: "Check the listing against an agent's budget: claude-code or codex",
    },
    "context-window": {
      type: "string",
      value: "N",
      parse: number({
        integer: true,
        min: 1000,
        max: 100_000_000,
        invalid: (text) =>
          new UsageError(`Invalid --context-window '${text}'`, "Give the model's window in tokens"),
      }),
      description: "The agent's model's context window in tokens (with --agent)",
    },
    json: jsonFlag("One JSON document: {total, system, tools, tool_count, skills: [...]}"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
} as const satisfies CommandSpec;
