/** `skills mcp [--skills a,b]`: serve the active skills to an MCP client over stdio. */

import { UsageError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { mcpSpec } from "../specs/mcp.ts";
import { openSession } from "../session.ts";

export const help = renderHelp(mcpSpec);

interface McpOptions extends ParsedCommon {
  skills: string | undefined;
}

export function parse(argv: readonly string[]): McpOptions {
  const { values, positionals } = parseSpec(mcpSpec, argv);
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
    cwd: ctx.cwd,
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
