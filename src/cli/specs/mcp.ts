/** `skills mcp` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, SURFACE_FLAGS, verboseFlag } from "../spec.ts";
import { number } from "../args.ts";

export const mcpSpec = {
  name: "mcp",
  order: 220,
  summary: "Serve the skills over MCP (stdio or HTTP)",
  guide: "agents-and-mcp.md",
  usage: ["mcp [--skills a,b]", "mcp --http HOST:PORT [--skills a,b] [--session-timeout S]"],
  description: `Serve the active skills to an MCP client over stdio (newline-delimited JSON-RPC on
stdin/stdout; logs on stderr), or to many clients over HTTP with --http. A client
gets exactly the tools \`skills chat\` sends a model:

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
skill://<name>/assets/... of the active skills; any other file of a skill
(scripts/...) can be read too. Reads return the whole file (text, or a base64
blob for binary files) with read_skill_file's containment rules.`,
    },
    {
      title: "Skills extension (SEP-2640)",
      beforeOptions: true,
      text: `
  The server declares io.modelcontextprotocol/skills: skills/list and
  skills/get return each active skill's SKILL.md URI, its front matter as
  written, and every file it serves with its sha256 digest and size, computed
  from the very bytes resources/read returns.`,
    },
    {
      beforeOptions: true,
      text: `Over stdio the server exits when stdin closes (after answering requests in
flight) and stops any toolset processes it started.`,
    },
    {
      title: "HTTP (--http HOST:PORT)",
      beforeOptions: true,
      text: `
  MCP's Streamable HTTP transport at http://HOST:PORT/mcp. Each session (each
  initialize) has its own activation state and toolset processes; a session
  with no request for --session-timeout seconds (default 1800) is closed.
  Every request must carry "Authorization: Bearer $SKILLS_MCP_TOKEN" when the
  variable is set (16 characters at least); without it the server listens
  only on a loopback address (127.0.0.1, ::1, localhost). Requests from a
  browser page of another origin are refused. Ctrl-C closes every session and
  stops their toolset processes. The listening URL is printed on stderr.
  With a token, the 401 names the OAuth protected-resource metadata (RFC 9728,
  /.well-known/oauth-protected-resource/mcp): a bearer token in the header, no
  authorization server. Clients that try OAuth first must be configured with
  the static header instead (see the client configuration below).`,
    },
    {
      beforeOptions: true,
      text: `Active skills come from AGENT_SKILLS (a,b | all | all-untrusted | none), or
from --skills, which overrides it. SKILLS_ALLOWED_TOOLS=on enforces the
activated skill's allowed-tools, as in \`skills chat\`.`,
    },
    {
      title: "Live catalog",
      beforeOptions: true,
      text: `
  Skills added, updated, trusted, untrusted or removed while the server runs
  are served without a restart: clients get notifications/tools/list_changed
  (activate_skill's names) and notifications/resources/list_changed (the
  resources and skills/list). A skill removed or changed after a session
  activated it is deactivated there; activating it again reads it afresh.`,
    },
    {
      title: "Client configuration (e.g. Claude Desktop, Cursor, VS Code)",
      beforeOptions: true,
      text: `
  {"mcpServers": {"skills": {"command": "skills", "args": ["mcp"],
    "env": {"AGENT_SKILLS": "kalshi-markets,hello-extended"}}}}
  {"mcpServers": {"team-skills": {"url": "https://skills.example.com/mcp",
    "headers": {"Authorization": "Bearer <token>"}}}}`,
    },
  ],
  flags: {
    skills: SURFACE_FLAGS.skills,
    http: {
      type: "string",
      value: "HOST:PORT",
      description: "Serve Streamable HTTP at http://HOST:PORT/mcp (0: a free port)",
    },
    "session-timeout": {
      type: "string",
      value: "S",
      parse: number({
        above: 0,
        invalid: (text) =>
          new UsageError(
            `Invalid --session-timeout '${text}'`,
            "Give a number of seconds greater than 0",
          ),
      }),
      description: "With --http: close sessions idle for S seconds (default 1800)",
    },
    workspace: SURFACE_FLAGS.workspace,
    verbose: verboseFlag("One debug line per tool call (and session) on stderr"),
    help: HELP_FLAG,
  },
  positionals: [],
} as const satisfies CommandSpec;
