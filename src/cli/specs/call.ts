/** `skills call` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";
import { number } from "../args.ts";

const HINT = "Run `skills call --help` for usage";

/** `--input`: `-` means stdin; anything else must be a JSON object. */
function jsonInput(text: string): Record<string, unknown> | "stdin" {
  if (text.trim() === "-") return "stdin";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input is not valid JSON: ${(error as Error).message}`, HINT);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError('--input must be a JSON object, e.g. \'{"name": "Ada"}\'', HINT);
  }
  return value as Record<string, unknown>;
}

export const callSpec = {
  name: "call",
  order: 180,
  summary: "Call a typed toolset tool",
  guide: "agents-and-mcp.md",
  usage: ["call <skill> <tool> [--input JSON] [--json]", "call <skill> --list [--json]"],
  description: `Call one typed toolset tool of a skill directly, without a model. <tool> is the
method name (greet_in_language) or the qualified tool name an agent sees
(hello_extended__greet_in_language). The skill's toolsets run in the Python
toolset host with the skill's environment allowlist; installed skills must be
trusted (\`skills trust <skill>\`), bundled skills always are.`,
  flags: {
    input: {
      type: "string",
      value: "JSON",
      parse: jsonInput,
      description: `The tool's arguments as a JSON object (default {}); '-' reads
the JSON from stdin`,
    },
    list: {
      type: "boolean",
      description: "List the skill's toolset tools and their input schemas",
    },
    timeout: {
      type: "string",
      value: "S",
      parse: number({
        above: 0,
        max: 3600,
        invalid: (text) =>
          new UsageError(
            `Invalid --timeout '${text}' (seconds, 0 < S ≤ 3600)`,
            HINT,
          ),
      }),
      description: `Stop the call (and the host) after S seconds
(default: the skill's limits.timeout, else 60)`,
    },
    json: jsonFlag(`Print the result envelope: {"success": true, "result", "message"}
or {"success": false, "error", "message"}`),
    verbose: verboseFlag("Debug logs on stderr (toolset host output)"),
    help: HELP_FLAG,
  },
  positionals: [
    { name: "skill", required: true, complete: "skill" },
    { name: "tool", complete: "none" },
  ],
  sections: [
    {
      title: "Output",
      text: `the tool's result on stdout (text as is, anything else as JSON). A failed
call prints its message and error code on stderr.`,
    },
    {
      title: "Exit codes",
      text: `0 success, 1 the tool returned an error, 2 usage error, 124 timeout,
130 interrupted.`,
    },
    {
      title: "Examples",
      text: `
  skills call hello-extended greet_in_language --input '{"name":"Ada","language":"fr"}'
  skills call hello-extended hello_extended__greet_multiple --input '{"names":["Ada","Bo"]}' --json
  skills call hello-extended --list`,
    },
  ],
} as const satisfies CommandSpec;
