/**
 * `skills mcp --http` for tests and the benchmark: the real CLI on 127.0.0.1 port 0 (the
 * URL is read from its stderr), and the official MCP SDK client over Streamable HTTP.
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawnCli } from "../helpers/cli.ts";
import { waitFor } from "../helpers/wait.ts";

/** A token long enough for the server's policy. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

export interface HttpMcpServer extends AsyncDisposable {
  url: URL;
  child: Deno.ChildProcess;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` (Ctrl-C by default) and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** Starts `skills mcp --http 127.0.0.1:0 ...extraArgs` and waits until it listens. */
export async function startHttpMcp(
  env: Record<string, string>,
  extraArgs: string[] = [],
): Promise<HttpMcpServer> {
  const child = spawnCli(["mcp", "--http", "127.0.0.1:0", ...extraArgs], {
    env,
    stdout: "null",
    stderr: "piped",
  });
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  let status: Deno.CommandStatus | undefined;
  child.status.then((s) => status = s);
  const url = await waitFor(() => {
    if (status !== undefined) throw new Error(`skills mcp --http exited early:\n${stderr}`);
    const match = / at (http:\/\/\S+\/mcp) /.exec(stderr);
    return match ? new URL(match[1]!) : undefined;
  }, { what: "skills mcp --http to listen", timeoutMs: 30_000, detail: () => stderr });
  const stop = async (signal: Deno.Signal = "SIGINT") => {
    if (status === undefined) {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    }
    const done = await child.status;
    await reading;
    return done;
  };
  return {
    url,
    child,
    stderr: () => stderr,
    stop,
    async [Symbol.asyncDispose]() {
      if (status === undefined) {
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await stop().finally(() => clearTimeout(timer));
      }
    },
  };
}

export interface HttpClient extends AsyncDisposable {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** Connects the SDK client (initialize included); `token` is sent as a bearer token. */
export async function connectHttp(url: URL, token?: string): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "skills-http-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    transport,
    async [Symbol.asyncDispose]() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}
