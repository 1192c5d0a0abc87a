/** `skills chat` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, SURFACE_FLAGS, verboseFlag } from "../spec.ts";
import { number } from "../args.ts";

export const chatSpec = {
  name: "chat",
  order: 190,
  summary: "Chat with a model that uses the skills",
  guide: "agents-and-mcp.md",
  usage: ["chat [--skills a,b] [-p PROMPT] [--json] [--max-steps N]"],
  description: `Chat with a model that uses the active skills. The model sees only the skills' names
and descriptions until it calls activate_skill; scripts run in the sandbox as with
\`skills run\`. Skills added, updated, trusted or removed while the chat runs are
seen from the next model request on.`,
  flags: {
    skills: SURFACE_FLAGS.skills,
    prompt: {
      type: "string",
      short: "p",
      value: "TEXT",
      description: "One-shot mode: send TEXT, print the answer, exit",
    },
    json: jsonFlag(`With -p: print one JSON document with the answer, every tool
call (name, arguments, result, duration_ms) and token usage`),
    // The default is the chat loop's DEFAULT_MAX_STEPS (a test keeps them equal; the
    // agent module is too heavy to import here).
    "max-steps": {
      type: "string",
      value: "N",
      parse: number({
        integer: true,
        min: 1,
        max: 1000,
        invalid: (text) =>
          new UsageError(`Invalid --max-steps '${text}'`, "Use a whole number from 1 to 1000"),
      }),
      description: "Model requests per turn before giving up (default 12)",
    },
    workspace: SURFACE_FLAGS.workspace,
    review: {
      type: "boolean",
      description: `Before a script's changes to the workspace are applied, show them and ask
(declined, or no answer: nothing is written; the model is told)`,
    },
    verbose: verboseFlag("Debug logs on stderr (requests, model warnings)"),
    help: HELP_FLAG,
  },
  positionals: [],
  sections: [
    {
      title: "Interactive (default)",
      beforeOptions: true,
      text: `answers stream to stdout, each tool call is one line on stderr.
  /help  /skills  /tools  /context  /reset  /exit
  /<skill> [arguments]  start a skill yourself (also one hidden from the model)
  Ctrl-C cancels the current turn (and any running script); Ctrl-D exits.`,
    },
    {
      title: "One-shot",
      beforeOptions: true,
      text: "-p sends one message, prints the final answer and exits (0 on success).",
    },
    {
      title: "Environment",
      text: `
  SKILLS_MODEL          provider:model — openai:gpt-4o-mini, anthropic:claude-sonnet-4-5,
                        ollama:llama3.2, openai-compatible:<model>
  OPENAI_API_KEY        key for openai
  ANTHROPIC_API_KEY     key for anthropic
  SKILLS_API_KEY        key for openai-compatible/ollama (fallback for the others)
  SKILLS_BASE_URL       endpoint override (required for openai-compatible;
                        ollama defaults to http://127.0.0.1:11434/v1)
  AGENT_SKILLS          active skills (a,b | all | all-untrusted | none)
  SKILLS_ALLOWED_TOOLS  on: enforce the activated skill's allowed-tools (default off)`,
    },
    {
      title: "Exit codes",
      text: `0 ok, 1 failure (provider error, no answer within --max-steps),
2 usage or configuration error, 130 interrupted (one-shot).`,
    },
  ],
} as const satisfies CommandSpec;
