/**
 * The official MCP SDK client connected to `skills mcp` over stdio (the real CLI, or the
 * artifact CI tests): for tests that act as a host would.
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, cliArgv } from "./cli.ts";

/** The five tools every server of the surface offers (chat, MCP over stdio and HTTP), in order. */
export const SURFACE_TOOLS = [
  "activate_skill",
  "read_skill_file",
  "script_list",
  "script_help",
  "script_run",
];

export interface StdioSession extends AsyncDisposable {
  client: Client;
}

/** `skills mcp ...args` with `env` (on top of the tests' base environment), in `cwd`. */
export async function connectStdio(
  env: Record<string, string>,
  cwd: string,
  args: string[] = [],
): Promise<StdioSession> {
  const [command, ...rest] = cliArgv(["mcp", ...args]);
  const transport = new StdioClientTransport({
    command: command!,
    args: rest,
    env: baseEnv(env),
    cwd,
    stderr: "pipe",
  });
  const client = new Client({ name: "skills-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

/** A tool result's envelope (its one text content, parsed), over stdio or HTTP. */
export function envelopeOf(result: unknown): { success: boolean; [key: string]: unknown } {
  return JSON.parse((result as { content: { text: string }[] }).content[0]!.text);
}
