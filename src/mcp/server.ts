/**
 * `skills mcp`: the tool surface of `skills chat` (src/agent/tools.ts) served to any MCP
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
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import { type Envelope, fail } from "../core/envelope.ts";
import type { ToolSurface } from "../agent/tool_surface.ts";
import type { SkillRecord } from "../runtime/catalog/catalog.ts";
import { LineTransport } from "./line_transport.ts";
import { listSkillResources, readSkillResource } from "./resources.ts";
import { SKILLS_EXTENSION, skillsExtensionHandler } from "./skills_extension.ts";

/** MCP's "resource not found" error code. */
export const RESOURCE_NOT_FOUND = -32002;

export interface McpServerOptions {
  surface: ToolSurface;
  /** The active skills, whose files are offered as resources. */
  skills: readonly SkillRecord[];
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

export function createMcpServer(options: McpServerOptions): Server {
  const { surface, skills, log } = options;
  const server = new Server(
    { name: "skills", title: "Agent Skills", version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: {},
        // SEP-2640 without `directoryRead`: skills/list and skills/get only.
        extensions: { [SKILLS_EXTENSION]: {} },
      },
      ...(surface.systemPrompt ? { instructions: surface.systemPrompt } : {}),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: surface.listTools().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object"; [key: string]: unknown },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const started = performance.now();
    let envelope: Envelope;
    try {
      envelope = await surface.callTool(name, request.params.arguments ?? {}, {
        signal: extra.signal,
      });
    } catch (error) { // the surface never throws; stay up even if it did
      envelope = fail("execution_failed", error instanceof Error ? error.message : String(error));
    }
    const took = ((performance.now() - started) / 1000).toFixed(2);
    options.debug?.(
      `tools/call ${name} → ${envelope.success ? "ok" : envelope.error} in ${took}s`,
    );
    return toolResult(envelope);
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: listSkillResources(skills),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: skills.length === 0 ? [] : [{
      uriTemplate: "skill://{skill}/{+path}",
      name: "skill-file",
      title: "A file of an active skill",
      description: "SKILL.md, references/… or assets/… of an active skill (text, at most 200 KB)",
    }],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const read = await readSkillResource(skills, request.params.uri, (s) => surface.served(s));
    if (!read.ok) {
      const error = read.error as Extract<Envelope, { success: false }>;
      const code = error.error === "not_found" ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams;
      options.debug?.(`resources/read ${request.params.uri} → ${error.error}`);
      throw new McpError(code, error.message, error);
    }
    return { contents: [read.contents] } satisfies ReadResourceResult;
  });

  const extension = skillsExtensionHandler(
    skills,
    (message) => options.debug?.(message),
    undefined,
    (skill) => surface.served(skill),
  );
  // The SDK has no schemas for skills/*: they arrive here, checked by the extension itself.
  server.fallbackRequestHandler = (request) =>
    extension(request) as ReturnType<NonNullable<Server["fallbackRequestHandler"]>>;

  const unsubscribe = surface.onToolsChanged(() => {
    server.sendToolListChanged().catch((error) =>
      log(`could not announce the changed tool list: ${(error as Error).message}`)
    );
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  server.onerror = (error) => log(`MCP: ${error.message}`);
  return server;
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
