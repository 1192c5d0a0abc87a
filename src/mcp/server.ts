/**
 * `skills mcp`: the tool surface of `skills chat` (src/agent/surface/tools.ts) served to any MCP
 * client with the SDK's low-level Server, so tool names, JSON Schemas and envelopes pass
 * through untouched. Toolset tools mounted by `activate_skill` are announced with
 * `notifications/tools/list_changed`; the active skills' files are resources, and SEP-2640's
 * `skills/list` and `skills/get` describe them with digests (skills_extension.ts). One
 * server per connection: over stdio here (stdout carries only the protocol; logs go to
 * `log`, stderr), one per session over HTTP (http_server.ts).
 */

// The SDK's wildcard export maps `x.js` to a missing `x.js.d.ts`, hence the type hints.
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { type Envelope, fail } from "../core/envelope.ts";
import { isPlainObject } from "../core/manifest/validation.ts";
import type { ToolSurface } from "../agent/surface/tool_surface.ts";
import { LineTransport } from "./line_transport.ts";
import { listSkillResources, readSkillResource } from "./resources.ts";
import { SKILLS_EXTENSION, skillsExtensionHandler } from "./skills_extension.ts";
import {
  INVALID_PARAMS,
  invalidParams,
  ProtocolError,
  RESOURCE_NOT_FOUND,
} from "./protocol_error.ts";

export interface McpServerOptions {
  surface: ToolSurface;
  version: string;
  /** Warnings and errors (stderr). */
  log: (message: string) => void;
  /** Per-call debug lines (stderr, --verbose). */
  debug?: (message: string) => void;
}

/** The envelope as MCP tool-call content: its JSON as text, `isError` on failure. */
export function toolResult(envelope: Envelope): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    isError: !envelope.success,
  };
}

/**
 * `tools/call` params checked here rather than by the SDK, whose schema failure is a
 * -32603 with the schema dumped: a malformed call gets -32602 and one sentence.
 */
function callParams(params: unknown): { name: string; arguments: unknown } {
  if (!isPlainObject(params)) throw invalidParams("tools/call needs params: an object with 'name'");
  if (typeof params.name !== "string") {
    throw invalidParams("tools/call params need 'name', the tool's name as a string");
  }
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) {
    throw invalidParams("tools/call 'arguments' must be an object of the tool's arguments");
  }
  return { name: params.name, arguments: args ?? {} };
}

/**
 * One server per MCP connection over `options.surface`, read as its phases: the server and
 * what it announces, the handlers by what they serve, then the announcements of changes.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = newServer(options.surface, options.version);
  serveUnschemed(server, options);
  announceChanges(server, options.surface, options.log);
  server.onerror = (error) => options.log(`MCP: ${error.message}`);
  return server;
}

/** The server with its capabilities, so a client knows what to ask and to listen for. */
function newServer(surface: ToolSurface, version: string): Server {
  return new Server(
    { name: "skills", title: "Agent Skills", version },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        // SEP-2640 without `directoryRead`: skills/list and skills/get only.
        extensions: { [SKILLS_EXTENSION]: {} },
      },
      ...(surface.systemPrompt ? { instructions: surface.systemPrompt } : {}),
    },
  );
}

/** `tools/list`: the surface's tools as they are now (a toolset mounted adds some). */
async function listTools(surface: ToolSurface, params: unknown) {
  listParams("tools/list", params);
  await surface.refresh();
  return {
    tools: surface.listTools().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object"; [key: string]: unknown },
    })),
  };
}

/**
 * The params of a list request (`tools/list`, `resources/list`, …): none, or an object whose
 * `cursor`, when given, is a string. Checked here rather than by the SDK's schemas, whose
 * failure is a -32603 with the schema dumped.
 */
function listParams(method: string, params: unknown): void {
  if (params === undefined) return;
  if (!isPlainObject(params)) throw invalidParams(`${method} params must be an object`);
  if (params.cursor !== undefined && typeof params.cursor !== "string") {
    throw invalidParams(`${method} 'cursor' must be a string: the nextCursor of an earlier page`);
  }
}

/** The `uri` of a `resources/read` request, checked as `listParams` checks lists. */
function readParams(params: unknown): string {
  if (!isPlainObject(params)) {
    throw invalidParams("resources/read needs params: an object with 'uri'");
  }
  if (typeof params.uri !== "string") {
    throw invalidParams("resources/read params need 'uri', the resource's URI as a string");
  }
  return params.uri;
}

/**
 * `tools/call`: the surface's envelope as the result, a failure included, so one tool's
 * trouble never takes the server down; its params are checked first (`callParams`).
 */
async function callTool(
  options: McpServerOptions,
  params: unknown,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const { name, arguments: args } = callParams(params);
  const started = performance.now();
  let envelope: Envelope;
  try {
    envelope = await options.surface.callTool(name, args, { signal });
  } catch (error) { // the surface never throws; stay up even if it did
    envelope = fail("execution_failed", error instanceof Error ? error.message : String(error));
  }
  const took = ((performance.now() - started) / 1000).toFixed(2);
  options.debug?.(
    `tools/call ${name} → ${envelope.success ? "ok" : envelope.error} in ${took}s`,
  );
  return toolResult(envelope);
}

/**
 * `resources/*`: the active skills' files, listed, templated and read whole (the active skills
 * as they are now: the catalog follows installs and removals). Undefined for another method.
 */
async function resourceRequest(
  options: McpServerOptions,
  method: string,
  params: unknown,
): Promise<Record<string, unknown> | undefined> {
  const { surface } = options;
  switch (method) {
    case "resources/list":
      listParams(method, params);
      await surface.refresh();
      return { resources: listSkillResources(surface.skills()) };
    case "resources/templates/list":
      listParams(method, params);
      await surface.refresh();
      return { resourceTemplates: surface.skills().length === 0 ? [] : [RESOURCE_TEMPLATE] };
    case "resources/read": {
      const uri = readParams(params);
      await surface.refresh();
      const read = await readSkillResource(surface.skills(), uri, (s) => surface.served(s));
      if (!read.ok) {
        const error = read.error as Extract<Envelope, { success: false }>;
        const code = error.error === "not_found" ? RESOURCE_NOT_FOUND : INVALID_PARAMS;
        options.debug?.(`resources/read ${uri} → ${error.error}`);
        throw new ProtocolError(code, error.message, error);
      }
      return { contents: [read.contents] } satisfies ReadResourceResult;
    }
  }
  return undefined;
}

/** The one resource template: any file of an active skill. */
const RESOURCE_TEMPLATE = {
  uriTemplate: "skill://{skill}/{+path}",
  name: "skill-file",
  title: "A file of an active skill",
  // What reads serve (resources.ts, skill_files.ts): any file, whole.
  description: "Any file of an active skill (SKILL.md, references/…, assets/…, " +
    "scripts/…), whole: text, or a base64 blob for a binary file; at most 16 MiB",
};

/**
 * The SDK has no schemas for skills/*, and its own for tools/* and resources/* answer
 * malformed params with -32603 and a schema dump: all of them arrive here, checked by our
 * own code (-32602 and one sentence).
 */
function serveUnschemed(server: Server, options: McpServerOptions): void {
  const { surface } = options;
  const extension = skillsExtensionHandler(
    () => surface.skills(),
    (message) => options.debug?.(message),
    undefined,
    (skill) => surface.served(skill),
  );
  server.fallbackRequestHandler = (async (request, extra) => {
    if (request.method === "tools/call") {
      return await callTool(options, request.params, extra.signal);
    }
    if (request.method === "tools/list") return await listTools(surface, request.params);
    const resources = await resourceRequest(options, request.method, request.params);
    if (resources !== undefined) return resources;
    await surface.refresh();
    return await extension(request);
  }) as NonNullable<Server["fallbackRequestHandler"]>;
}

/**
 * A toolset mounted or a skill added, updated or removed is announced to the client
 * (`list_changed`), until the server closes.
 */
function announceChanges(server: Server, surface: ToolSurface, log: (m: string) => void): void {
  const unsubscribe = surface.onToolsChanged(() => {
    server.sendToolListChanged().catch((error) =>
      log(`could not announce the changed tool list: ${(error as Error).message}`)
    );
  });
  // A skill added, updated or removed changes the resources (and skills/list).
  const unsubscribeSkills = surface.onSkillsChanged(() => {
    server.sendResourceListChanged().catch((error) =>
      log(`could not announce the changed resources: ${(error as Error).message}`)
    );
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    unsubscribeSkills();
    previousOnClose?.();
  };
}

export interface ServeStdioOptions extends McpServerOptions {
  readLine(): Promise<string | null>;
  write(text: string): void;
  /** Aborting it (Ctrl-C) closes the server. */
  signal?: AbortSignal;
}

/** Serves until the input ends (after answering what is in flight) or `signal` aborts. */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  const server = createMcpServer(options);
  const closed = new Promise<void>((resolve) => {
    const inner = server.onclose;
    server.onclose = () => {
      inner?.();
      resolve();
    };
  });
  const transport = new LineTransport({
    readLine: options.readLine,
    write: options.write,
    log: options.log,
  });
  const onAbort = () => void server.close().catch(() => {});
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await server.connect(transport);
    if (options.signal?.aborted) onAbort();
    await closed;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
