/** `skills prompt` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const promptSpec = {
  name: "prompt",
  order: 210,
  summary: "Print the <available_skills> block",
  guide: "agents-and-mcp.md",
  usage: ["prompt [--skills a,b] [--format xml|markdown] [--no-location] [--json]"],
  description: `Print the <available_skills> block for the active skills, for agents that read a
system prompt or an AGENTS.md file: each skill's name, description and, as
<location>, the absolute path of its SKILL.md. Active skills come from
AGENT_SKILLS (a,b | all | all-untrusted | none) unless --skills is given.

The XML form is rendered by the same code that builds the system prompt of
\`skills chat\` and \`skills mcp\`: with --no-location it is byte-for-byte the block
chat sends (chat and mcp never send a host path; mcp names skill://<name>/SKILL.md).`,
  flags: {
    skills: {
      type: "string",
      value: "a,b",
      complete: "skill-list",
      description: "Active skills for this command (overrides AGENT_SKILLS)",
    },
    format: { type: "string", value: "F", description: "xml (default) or markdown" },
    "no-location": { type: "boolean", description: "Leave out <location>" },
    json: jsonFlag('{"format", "skills": [{name, description, location}], "text"}'),
    help: HELP_FLAG,
  },
  positionals: [],
  sections: [{
    title: "Examples",
    text: `
  skills prompt --skills kalshi-markets,hello-extended
  AGENT_SKILLS=all skills prompt --format markdown >> AGENTS.md`,
  }],
} as const satisfies CommandSpec;
