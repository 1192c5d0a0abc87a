/** `skills mcp [--skills a,b]`: serve the active skills to an MCP client over stdio. */

import { UsageError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { commonFlags, parseCommand } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { openSession } from "../session.ts";

export const help = `Usage: skills mcp [--skills a,b]

Serve the active skills to an MCP client over stdio (newline-delimited JSON-RPC on
stdin/stdout; logs on stderr). The client gets exactly the tools \`skills chat\`
sends a model:

  activate_skill, read_skill_file, script_list, script_help, script_run

with the same names, JSON Schemas and {"success", "result"|"error", "message"}
envelopes (as text content; isError set on failures). Activating a skill with a
typed toolset mounts its tools (<skill>__<method>) and sends
notifications/tools/list_changed. The server's instructions carry the
<available_skills> block.

Resources: skill://<name>/SKILL.md, skill://<name>/references/... and
skill://<name>/assets/... of the active skills (text files, at most 200 KB,
same containment rules as read_skill_file).

The server exits when stdin closes (after answering requests in flight) and
stops any toolset processes it started.

Active skills come from AGENT_SKILLS (a,b | all | all-untrusted | none), or
from --skills, which overrides it. SKILLS_ALLOWED_TOOLS=on enforces the
activated skill's allowed-tools, as in \`skills chat\`.

Client configuration (e.g. Claude Desktop, Cursor, VS Code):
  {"mcpServers": {"skills": {"command": "skills", "args": ["mcp"],
    "env": {"AGENT_SKILLS": "kalshi-markets,hello-extended"}}}}

Options:
  --skills a,b   Active skills (overrides AGENT_SKILLS)
  -v, --verbose  One debug line per tool call on stderr
  -h, --help     Show this help
`;

export interface McpOptions extends ParsedCommon {
  skills: string | undefined;
}

export function parse(argv: readonly string[]): McpOptions {
  const { values, positionals } = parseCommand("mcp", argv, { skills: { type: "string" } });
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      "Run `skills mcp --help` for usage",
    );
  }
  return { ...commonFlags(values), skills: values.skills };
}

/** Ctrl-C closes the server (and its toolset processes) instead of killing it. */
export const handlesInterrupt = true;

export async function run(options: McpOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx, options.skills);
  for (const warning of session.activationWarnings) warn(ctx, warning);
  for (const note of session.catalog.notes) debug(ctx, note);
  // Loaded here so the MCP SDK stays off every other command's start-up path.
  const [{ surfaceFactory }, { serveStdio }] = await Promise.all([
    import("../../agent/surface_factory.ts"),
    import("../../mcp/server.ts"),
  ]);
  const log = (message: string) => ctx.stderr.write(`skills mcp: ${message}\n`);
  // The same factory `skills chat` and `skills context` open their surface with.
  const openSurface = surfaceFactory({
    home: session.home,
    catalog: session.catalog,
    allowUntrusted: session.allowUntrusted,
    env: ctx.env,
    // runner/toolset debug lines (argv, durations, problems), as in `skills chat`
    log: (message) => debug(ctx, message),
  });
  const surface = await openSurface(session.active);
  const skills = session.catalog.skills.filter((s) => session.active.has(s.canonical));
  if (skills.length === 0) {
    warn(ctx, "no skills are active: set AGENT_SKILLS or pass --skills (serving no tools)");
  }
  log(
    `serving ${skills.map((s) => s.canonical).join(", ") || "no skills"} over stdio ` +
      `(${surface.listTools().length} tools)`,
  );
  try {
    await serveStdio({
      surface,
      skills,
      version: VERSION,
      log,
      debug: (message) => debug(ctx, message),
      readLine: ctx.readLine,
      write: (text) => ctx.stdout.write(text),
      signal: ctx.signal,
    });
  } finally {
    await surface.close();
  }
  return ctx.signal.aborted ? 130 : 0;
}
