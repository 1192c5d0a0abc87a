/**
 * `skills mcp` end to end: the official MCP SDK client spawns the real CLI (source, or the
 * bundle with SKILLS_E2E_ARTIFACT) over stdio.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { surfaceFactory } from "../../src/agent/library/surface_factory.ts";
import { loadCatalog } from "../../src/runtime/catalog/catalog.ts";
import { baseEnv, cliArgv, tempDir } from "../helpers/cli.ts";
import { spawnMcp } from "../helpers/mcp_stdio.ts";
import { processesMentioning } from "../helpers/processes.ts";

const ACTIVE = "hello-extended,kalshi-markets";

interface Session extends AsyncDisposable {
  client: Client;
  home: string;
  listChanged: () => number;
  stderr: () => string;
}

async function connect(extraArgs: string[] = []): Promise<Session> {
  const dir = await tempDir("skills-mcp-");
  const [command, ...args] = cliArgv(["mcp", ...extraArgs]);
  const transport = new StdioClientTransport({
    command: command!,
    args,
    env: baseEnv({ SKILLS_HOME: dir.path, AGENT_SKILLS: ACTIVE }),
    cwd: dir.path,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "skills-test", version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(transport);
  return {
    client,
    home: dir.path,
    listChanged: () => changes,
    stderr: () => stderr,
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** The envelope inside a tool result's text content. */
function envelopeOf(result: Awaited<ReturnType<Client["callTool"]>>) {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0]!.type, "text");
  return JSON.parse(content[0]!.text);
}

Deno.test("skills mcp serves the chat tool surface unchanged: five tools, same schemas", async () => {
  await using s = await connect();
  const { tools } = await s.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), [
    "activate_skill",
    "read_skill_file",
    "script_list",
    "script_help",
    "script_run",
  ]);
  // The very definitions the chat loop's surface factory gives for the same skills.
  const catalog = await loadCatalog(s.home);
  const surface = await surfaceFactory({ home: s.home, catalog, env: {}, location: "resource" })(
    new Set(ACTIVE.split(",")),
  );
  try {
    assert.deepEqual(
      tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
      surface.listTools(),
    );
    assert.equal(s.client.getInstructions(), surface.systemPrompt);
  } finally {
    await surface.close();
  }
  assert.deepEqual(s.client.getServerCapabilities()?.tools, { listChanged: true });
});

Deno.test("skills mcp mounts toolset tools on activate_skill, announces them and calls them", async () => {
  await using s = await connect();
  const before = await s.client.listTools();
  assert.ok(!before.tools.some((t) => t.name === "hello_extended__greet_in_language"));

  const activated = await s.client.callTool({
    name: "activate_skill",
    arguments: { name: "hello-extended" },
  });
  assert.equal(activated.isError, false);
  const envelope = envelopeOf(activated);
  assert.equal(envelope.success, true);
  assert.match(envelope.result, /^<skill_content name="hello-extended">/);
  assert.equal(s.listChanged(), 1, "tools/list_changed arrives before the activation result");

  const after = await s.client.listTools();
  const greet = after.tools.find((t) => t.name === "hello_extended__greet_in_language");
  assert.ok(greet, after.tools.map((t) => t.name).join(", "));
  assert.equal(greet.inputSchema.type, "object");
  assert.ok("name" in (greet.inputSchema.properties ?? {}));

  const called = await s.client.callTool({
    name: "hello_extended__greet_in_language",
    arguments: { name: "Ada", language: "fr" },
  });
  assert.equal(called.isError, false);
  assert.equal(envelopeOf(called).result, "Bonjour, Ada!");

  const unsupported = await s.client.callTool({
    name: "hello_extended__greet_in_language",
    arguments: { name: "Ada", language: "xx" },
  });
  assert.equal(unsupported.isError, true);
  assert.equal(envelopeOf(unsupported).error, "unsupported_language");

  // Activating again changes nothing and announces nothing.
  await s.client.callTool({ name: "activate_skill", arguments: { name: "hello-extended" } });
  assert.equal(s.listChanged(), 1);
});

Deno.test("skills mcp script_run returns the greeting; a traversal skill name is invalid_name", async () => {
  await using s = await connect();
  const run = await s.client.callTool({
    name: "script_run",
    arguments: {
      skill_name: "hello-extended",
      script_name: "advanced_greeting",
      args: ["--name", "CI", "--style", "formal"],
    },
  });
  assert.equal(run.isError, false, JSON.stringify(run));
  const envelope = envelopeOf(run);
  assert.equal(envelope.success, true);
  assert.equal(
    envelope.result.greeting,
    "Good day, CI. It is a pleasure to make your acquaintance.",
  );

  const traversal = await s.client.callTool({
    name: "script_run",
    arguments: { skill_name: "../etc", script_name: "passwd" },
  });
  assert.equal(traversal.isError, true);
  assert.equal(envelopeOf(traversal).error, "invalid_name");

  // Failures are results, not protocol errors, and the server keeps serving.
  const missing = await s.client.callTool({
    name: "script_run",
    arguments: { skill_name: "hello-extended", script_name: "nope" },
  });
  assert.equal(missing.isError, true);
  assert.equal(envelopeOf(missing).error, "not_found");
  const unknown = await s.client.callTool({ name: "no_such_tool", arguments: {} });
  assert.equal(unknown.isError, true);
  assert.equal(envelopeOf(unknown).error, "not_found");
  assert.equal((await s.client.listTools()).tools.length, 5);
});

Deno.test("skills mcp lists and reads skill files as resources, refusing traversal", async () => {
  await using s = await connect();
  const { resources } = await s.client.listResources();
  const uris = resources.map((r) => r.uri);
  assert.ok(uris.includes("skill://kalshi-markets/SKILL.md"), uris.join(", "));
  assert.ok(uris.includes("skill://hello-extended/SKILL.md"), uris.join(", "));

  const read = await s.client.readResource({ uri: "skill://kalshi-markets/SKILL.md" });
  const contents = read.contents[0] as { uri: string; mimeType: string; text: string };
  assert.equal(contents.uri, "skill://kalshi-markets/SKILL.md");
  assert.equal(contents.mimeType, "text/markdown");
  assert.match(contents.text, /^---\nname: kalshi-markets\n/);

  const refused = async (uri: string, code: number, message: RegExp) => {
    await assert.rejects(
      s.client.readResource({ uri }),
      (e) => e instanceof McpError && e.code === code && message.test(e.message),
      uri,
    );
  };
  await refused("skill://kalshi-markets/../../x", ErrorCode.InvalidParams, /'\.\.' is not allowed/);
  await refused("skill://kalshi-markets/%2e%2e/%2e%2e/x", ErrorCode.InvalidParams, /'\.\.'/);
  await refused("skill://kalshi-markets//etc/passwd", ErrorCode.InvalidParams, /relative/);
  await refused("skill://../SKILL.md", ErrorCode.InvalidParams, /Invalid skill name/);
  await refused("skill://not-active/SKILL.md", -32002, /not active/);
  await refused("skill://kalshi-markets/nope.md", -32002, /not found/);
  await refused("file:///etc/passwd", ErrorCode.InvalidParams, /skill:\/\//);

  // Still serving after the refusals.
  assert.equal((await s.client.listTools()).tools.length, 5);
});

Deno.test("skills mcp over stdio declares SEP-2640 and answers skills/list and skills/get", async () => {
  await using s = await connect(["--skills", "kalshi-markets"]);
  assert.deepEqual(s.client.getServerCapabilities()?.extensions, {
    "io.modelcontextprotocol/skills": {},
  });
  const Entry = z.looseObject({
    uri: z.string(),
    frontmatter: z.looseObject({ name: z.string() }),
    resources: z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
  });
  const listed = await s.client.request(
    { method: "skills/list", params: {} },
    z.looseObject({ skills: z.array(Entry) }),
  );
  assert.deepEqual(listed.skills.map((e) => e.uri), ["skill://kalshi-markets/SKILL.md"]);
  const skillMd = listed.skills[0]!.resources.find((r) => r.uri === listed.skills[0]!.uri)!;
  const read = await s.client.readResource({ uri: skillMd.uri });
  const bytes = new TextEncoder().encode((read.contents[0] as { text: string }).text);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  assert.equal(
    skillMd.digest,
    `sha256:${Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")}`,
  );
  assert.equal(skillMd.size, bytes.length);
  const got = await s.client.request(
    { method: "skills/get", params: { uri: skillMd.uri } },
    z.looseObject({ skill: Entry }),
  );
  assert.deepEqual(got.skill, listed.skills[0]);
});

Deno.test("skills mcp --skills overrides AGENT_SKILLS for tools, instructions and resources", async () => {
  await using s = await connect(["--skills", "Kalshi_Markets"]);
  const { tools } = await s.client.listTools();
  const activate = tools.find((t) => t.name === "activate_skill");
  assert.deepEqual(
    (activate?.inputSchema.properties as Record<string, { enum: string[] }>).name?.enum,
    ["kalshi-markets"],
  );
  assert.match(s.client.getInstructions() ?? "", /<name>kalshi-markets<\/name>/);
  assert.doesNotMatch(s.client.getInstructions() ?? "", /hello-extended/);
  // Each SKILL.md by the resource a client can read, never a folder of the server's host.
  const instructions = s.client.getInstructions() ?? "";
  assert.match(instructions, /<location>skill:\/\/kalshi-markets\/SKILL\.md<\/location>/);
  assert.ok(!instructions.includes(s.home), "no host path in the instructions");
  assert.doesNotMatch(instructions, /<location>\//);
  const { resources } = await s.client.listResources();
  assert.ok(resources.every((r) => r.uri.startsWith("skill://kalshi-markets/")));
  const hello = await s.client.callTool({
    name: "script_run",
    arguments: { skill_name: "hello-extended", script_name: "advanced_greeting" },
  });
  assert.equal(hello.isError, true);
  assert.equal(envelopeOf(hello).error, "not_found");
});

Deno.test("skills mcp answers malformed input, then exits 0 on stdin close with no child left", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir("skills-mcp-raw-");
  const mcp = spawnMcp(
    { SKILLS_HOME: home.path, AGENT_SKILLS: "hello-extended" },
    { cwd: home.path, stderr: "piped" },
  );
  const child = mcp.child;
  const stderrText = new Response(child.stderr).text();
  const send = mcp.sendLine;
  try {
    await mcp.initialize("raw");
    await send("this is not json");
    await send(`{"jsonrpc":"2.0","id":2,"method":42}`);
    await send(`{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`);
    await send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`);
    await send(
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"activate_skill","arguments":{"name":"hello-extended"}}}`,
    );
    const messages = await mcp.lines.until((m) => m.some((x) => x.id === 5));
    const byId = (id: unknown) =>
      messages.find((m) => m.id === id && ("error" in m || "result" in m));
    assert.equal((byId(null)?.error as { code: number }).code, ErrorCode.ParseError);
    assert.equal((byId(2)?.error as { code: number }).code, ErrorCode.InvalidRequest);
    assert.equal((byId(3)?.error as { code: number }).code, ErrorCode.MethodNotFound);
    // The SDK reports a tools/call that fails its schema as invalid params or internal error.
    assert.ok(
      [ErrorCode.InvalidParams, ErrorCode.InternalError].includes(
        (byId(4)?.error as { code: number }).code,
      ),
    );
    assert.equal((byId(5)?.result as { isError: boolean }).isError, false);
    assert.ok(messages.some((m) => m.method === "notifications/tools/list_changed"));

    // The toolset host runs now (its command line names our temp home) ...
    assert.notDeepEqual(processesMentioning(home.path), []);
    // ... and closing stdin ends the server and every child it started.
    await mcp.closeStdin();
    const rest = await mcp.lines.until(() => false);
    assert.deepEqual(rest, []);
    const status = await child.status;
    assert.equal(status.code, 0);
    assert.deepEqual(processesMentioning(home.path), []);
    const stderr = await stderrText;
    assert.match(stderr, /rejected an MCP message: Parse error/);
  } finally {
    await mcp.kill();
    await stderrText.catch(() => {});
  }
});
