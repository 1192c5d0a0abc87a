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
import { openSession, type Session } from "../../runtime/catalog/catalog_session.ts";
import type { ListenAddress } from "../../mcp/http_guard.ts";
import type { ServeStdioOptions } from "../../mcp/server.ts";
import type { ToolSurface } from "../../agent/surface/tool_surface.ts";
import type { CatalogWatch } from "../../agent/surface/catalog_watch.ts";

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

/** What either transport serves: surfaces opened over the watched catalog, and its log. */
interface Serving {
  /** Opens a surface for a set of active skills (one per HTTP session, one over stdio). */
  openSurface(active: ReadonlySet<string>): Promise<ToolSurface>;
  watch: CatalogWatch;
  log: (message: string) => void;
  /** The stdio server, imported in parallel with the surface modules. */
  serveStdio(options: ServeStdioOptions): Promise<void>;
  /** The skills served with their scopes, for the line that says the server is up. */
  serving: string;
}

/**
 * Serves the active skills until the input ends or Ctrl-C, read as its phases: the HTTP
 * address checked, the session opened, what is served set up, then one transport.
 */
export async function run(options: McpOptions, ctx: Context): Promise<number> {
  const http = await httpPolicy(options, ctx);
  const session = await openSession(ctx, options.skills);
  for (const warning of session.activationWarnings) warn(ctx, warning);
  for (const note of session.catalog.notes) debug(ctx, note);
  const serving = await setUpServing(options, ctx, session);
  serving.watch.start();
  return http !== undefined
    ? await serveOverHttp(options, ctx, serving, http)
    : await serveOverStdio(ctx, serving, session);
}

/** With `--http`: a bad address or an unprotected public one refused before anything is loaded. */
async function httpPolicy(
  options: McpOptions,
  ctx: Context,
): Promise<{ address: ListenAddress; token: string | undefined } | undefined> {
  if (options.http === undefined) return undefined;
  const { parseListenAddress, checkTokenPolicy } = await import("../../mcp/http_guard.ts");
  const address = parseListenAddress(options.http);
  return { address, token: checkTokenPolicy(address, ctx.env.SKILLS_MCP_TOKEN) };
}

/**
 * The catalog watched and the surface factory over it, shared by both transports; the MCP
 * SDK is loaded here so it stays off every other command's start-up path.
 */
async function setUpServing(options: McpOptions, ctx: Context, session: Session): Promise<Serving> {
  const [{ surfaceFactory, workspaceDir }, { serveStdio }, { watchSession }] = await Promise.all([
    import("../../agent/library/surface_factory.ts"),
    import("../../mcp/server.ts"),
    import("../../agent/surface/catalog_watch.ts"),
  ]);
  const log = (message: string) => ctx.stderr.write(`skills mcp: ${message}\n`);
  // Skills added, updated, trusted or removed meanwhile are served without a restart.
  const watch = watchSession(ctx, session, options.skills, log);
  // The same factory `skills chat` and `skills context` open their surface with.
  const openSurface = surfaceFactory({
    location: "resource",
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
  return { openSurface, watch, log, serveStdio, serving };
}

/** Many clients over Streamable HTTP, one surface per session, until Ctrl-C. */
async function serveOverHttp(
  options: McpOptions,
  ctx: Context,
  { openSurface, watch, log, serving }: Serving,
  http: { address: ListenAddress; token: string | undefined },
): Promise<number> {
  const { serveHttp } = await import("../../mcp/http_server.ts");
  await serveHttp({
    address: http.address,
    token: http.token,
    env: ctx.env,
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

/** One client over stdio, on one surface, until its input ends (0) or Ctrl-C (130). */
async function serveOverStdio(
  ctx: Context,
  { openSurface, watch, log, serveStdio, serving }: Serving,
  session: Session,
): Promise<number> {
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
