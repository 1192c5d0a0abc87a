/** `skills mcp` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, verboseFlag } from "../spec.ts";

export const mcpSpec = {
  name: "mcp",
  summary: "Serve the skills over MCP (stdio)",
  usage: ["mcp [--skills a,b]"],
  description: `Serve the active skills to an MCP client over stdio (newline-delimited JSON-RPC on
stdin/stdout; logs on stderr). The client gets exactly the tools \`skills chat\`
sends a model:

  activate_skill, read_skill_file, script_list, script_help, script_run

with the same names, JSON Schemas and {"success", "result"|"error", "message"}
envelopes (as text content; isError set on failures). Activating a skill with a
typed toolset mounts its tools (<skill>__<method>) and sends
notifications/tools/list_changed. The server's instructions carry the
<available_skills> block.`,
  sections: [
    {
      title: "Resources",
      beforeOptions: true,
      text: `skill://<name>/SKILL.md, skill://<name>/references/... and
skill://<name>/assets/... of the active skills (text files, at most 200 KB,
same containment rules as read_skill_file).`,
    },
    {
      beforeOptions: true,
      text: `The server exits when stdin closes (after answering requests in flight) and
stops any toolset processes it started.`,
    },
    {
      beforeOptions: true,
      text: `Active skills come from AGENT_SKILLS (a,b | all | all-untrusted | none), or
from --skills, which overrides it. SKILLS_ALLOWED_TOOLS=on enforces the
activated skill's allowed-tools, as in \`skills chat\`.`,
    },
    {
      title: "Client configuration (e.g. Claude Desktop, Cursor, VS Code)",
      beforeOptions: true,
      text: `
  {"mcpServers": {"skills": {"command": "skills", "args": ["mcp"],
    "env": {"AGENT_SKILLS": "kalshi-markets,hello-extended"}}}}`,
    },
  ],
  flags: {
    skills: {
      type: "string",
      value: "a,b",
      complete: "skill-list",
      description: "Active skills (overrides AGENT_SKILLS)",
    },
    verbose: verboseFlag("One debug line per tool call on stderr"),
    help: HELP_FLAG,
  },
  positionals: [],
} as const satisfies CommandSpec;
