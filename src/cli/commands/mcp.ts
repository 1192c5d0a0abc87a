/**
 * `skills mcp [--skills a,b]`: serve the active skills to an MCP client over stdio, or with
 * `--http HOST:PORT` to many clients over Streamable HTTP (one surface per session).
 */

import { UsageError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { mcpSpec } from "../specs/mcp.ts";
import { surfaceOptions } from "../session.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";
import type { ListenAddress } from "../../mcp/http_guard.ts";

const DEFAULT_SESSION_TIMEOUT_SECONDS = 1800;

export const { help, parse } = defineCommand(mcpSpec, ({ values, positionals, common }) => {
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      "Run `skills mcp --help` for usage",
    );
  }
  if (values["session-timeout"] !== undefined && values.http === undefined) {
    throw new UsageError("--session-timeout applies to --http only", "Run `skills mcp --help`");
  }
  return {
    ...common,
    ...surfaceOptions(values),
    http: values.http,
    sessionTimeoutSeconds: values["session-timeout"] ?? DEFAULT_SESSION_TIMEOUT_SECONDS,
  };
});

type McpOptions = OptionsOf<typeof parse>;

/** Ctrl-C closes the server (and its toolset processes) instead of killing it. */
export const handlesInterrupt = true;

// long because: stdio and HTTP serving share one session, watch and surface set up in order.
export async function run(options: McpOptions, ctx: Context): Promise<number> {
  let http: { address: ListenAddress; token: string | undefined } | undefined;
  if (options.http !== undefined) {
    // Refuse a bad address or an unprotected public one before anything is loaded.
    const { parseListenAddress, checkTokenPolicy } = await import("../../mcp/http_guard.ts");
    const address = parseListenAddress(options.http);
    http = { address, token: checkTokenPolicy(address, ctx.env.SKILLS_MCP_TOKEN) };
  }
  const session = await openSession(ctx, options.skills);
  for (const warning of session.activationWarnings) warn(ctx, warning);
  for (const note of session.catalog.notes) debug(ctx, note);
  // Loaded here so the MCP SDK stays off every other command's start-up path.
  const [{ surfaceFactory, workspaceDir }, { serveStdio }, { watchSession }] = await Promise.all([
    import("../../agent/surface/surface_factory.ts"),
    import("../../mcp/server.ts"),
    import("../../agent/surface/catalog_watch.ts"),
  ]);
  const log = (message: string) => ctx.stderr.write(`skills mcp: ${message}\n`);
  // Skills added, updated, trusted or removed meanwhile are served without a restart.
  const watch = watchSession(ctx, session, options.skills, log);
  // The same factory `skills chat` and `skills context` open their surface with.
  const openSurface = surfaceFactory({
    home: session.home,
    catalog: session.catalog,
    allowUntrusted: session.allowUntrusted,
    env: ctx.env,
    cwd: workspaceDir(ctx.cwd, options.workspace),
    catalogWatch: watch,
    // runner/toolset debug lines (argv, durations, problems), as in `skills chat`
    log: (message) => debug(ctx, message),
  });
  const skills = session.catalog.skills.filter((s) => session.active.has(s.canonical));
  if (skills.length === 0) {
    warn(ctx, "no skills are active: set AGENT_SKILLS or pass --skills (serving no tools)");
  }
  const serving = `${skills.map((s) => `${s.canonical} (${s.scope})`).join(", ") || "no skills"}`;
  watch.start();
  if (http !== undefined) {
    const { serveHttp } = await import("../../mcp/http_server.ts");
    await serveHttp({
      address: http.address,
      token: http.token,
      // One surface per session: its own activation state and toolset processes.
      openSurface: () => openSurface(watch.view.active),
      idleMs: options.sessionTimeoutSeconds * 1000,
      version: VERSION,
      log,
      debug: (message) => debug(ctx, message),
      signal: ctx.signal,
      onListening: ({ hostname, port }) => {
        const host = hostname.includes(":") ? `[${hostname}]` : hostname;
        const guard = http.token === undefined ? "no token: loopback only" : "bearer token";
        log(`serving ${serving} at http://${host}:${port}/mcp (${guard})`);
      },
    });
    watch.stop();
    return 130; // it serves until Ctrl-C
  }
  const surface = await openSurface(session.active);
  log(`serving ${serving} over stdio (${surface.listTools().length} tools)`);
  try {
    await serveStdio({
      surface,
      version: VERSION,
      log,
      debug: (message) => debug(ctx, message),
      readLine: ctx.readLine,
      write: (text) => ctx.stdout.write(text),
      signal: ctx.signal,
    });
  } finally {
    watch.stop();
    await surface.close();
  }
  return ctx.signal.aborted ? 130 : 0;
}
