/**
 * `skills mcp --http` end to end: the real CLI serving Streamable HTTP, the official MCP SDK
 * client connecting to it. Bearer tokens, the same tools and resources as stdio, SEP-2640
 * (digests equal a fresh sha256 of the files), one activation state per session, idle
 * expiry, DELETE, and Ctrl-C closing every session and its toolset processes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { loadCatalog } from "../../src/runtime/catalog/catalog.ts";
import { installSkill, skillMd } from "../helpers/installed_skills.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { descendants, survivors } from "../helpers/processes.ts";
import { SKIP_SLOW } from "../helpers/quick.ts";
import { waitFor } from "../helpers/wait.ts";
import { connectHttp, startHttpMcp, TEST_TOKEN } from "./http_fixture.ts";
import { envelopeOf, SURFACE_TOOLS } from "../helpers/mcp_client.ts";
import { initializeRequest } from "../helpers/mcp_stdio.ts";
import { sha256Digest } from "../helpers/bytes.ts";

const LINUX_ONLY = Deno.build.os !== "linux";

/** Whether `pid` is the server's reader of the socket tables (src/mcp/socket_tables.ts). */
function isTableReader(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("/proc/net/tcp");
  } catch {
    return false;
  }
}

/** The server's processes split: its sessions' toolset hosts, and its reader of the socket tables. */
function serverChildren(server: number): { hosts: number[]; readers: number[] } {
  const all = descendants(server);
  return { hosts: all.filter((p) => !isTableReader(p)), readers: all.filter(isTableReader) };
}
const GREET = "hello_extended__greet_in_language";

const SkillEntrySchema = z.object({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
});
const ListSkillsSchema = z.looseObject({
  skills: z.array(SkillEntrySchema),
  nextCursor: z.string().optional(),
});
const GetSkillSchema = z.looseObject({ skill: SkillEntrySchema });

function httpCode(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}

Deno.test(
  "skills mcp --http: 401 without the token; with it tools, resources, skills/list and skills/get",
  { ignore: SKIP_SLOW },
  async () => {
    await using home = await tempDir("skills-mcp-http-");
    await using server = await startHttpMcp({
      SKILLS_HOME: home.path,
      AGENT_SKILLS: "hello-extended,kalshi-markets",
      SKILLS_MCP_TOKEN: TEST_TOKEN,
    });

    await assert.rejects(connectHttp(server.url), (e) => httpCode(e) === 401);
    await assert.rejects(connectHttp(server.url, `${TEST_TOKEN}x`), (e) => httpCode(e) === 401);
    const raw = await fetch(server.url, { method: "POST", body: "{}" });
    assert.equal(raw.status, 401);
    assert.match(raw.headers.get("www-authenticate") ?? "", /^Bearer /);
    await raw.body?.cancel();

    await using a = await connectHttp(server.url, TEST_TOKEN);
    assert.deepEqual(a.client.getServerCapabilities()?.extensions, {
      "io.modelcontextprotocol/skills": {},
    });
    const { tools } = await a.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), SURFACE_TOOLS);
    const { resources } = await a.client.listResources();
    assert.ok(resources.some((r) => r.uri === "skill://hello-extended/SKILL.md"));

    const catalog = await loadCatalog(home.path);
    const dirOf = (name: string) => catalog.skills.find((s) => s.canonical === name)!.dir;
    const read = await a.client.readResource({ uri: "skill://kalshi-markets/SKILL.md" });
    assert.equal(
      (read.contents[0] as { text: string }).text,
      await Deno.readTextFile(join(dirOf("kalshi-markets"), "SKILL.md")),
    );

    const listed = await a.client.request({ method: "skills/list", params: {} }, ListSkillsSchema);
    assert.deepEqual(listed.skills.map((s) => s.uri), [
      "skill://hello-extended/SKILL.md",
      "skill://kalshi-markets/SKILL.md",
    ]);
    for (const entry of listed.skills) {
      const name = entry.frontmatter.name;
      assert.ok(entry.resources.some((r) => r.uri === entry.uri), "SKILL.md is in the manifest");
      assert.ok(entry.resources.some((r) => r.uri.includes("/scripts/")), "so are the scripts");
      for (const resource of entry.resources) {
        const path = decodeURIComponent(resource.uri.slice(`skill://${name}/`.length));
        const bytes = await Deno.readFile(join(dirOf(name), path));
        assert.equal(resource.digest, await sha256Digest(bytes), resource.uri);
        assert.equal(resource.size, bytes.length, resource.uri);
      }
      const got = await a.client.request(
        { method: "skills/get", params: { uri: entry.uri } },
        GetSkillSchema,
      );
      assert.deepEqual(got.skill, entry);
    }
    await assert.rejects(
      a.client.request(
        { method: "skills/get", params: { uri: "skill://nope/SKILL.md" } },
        GetSkillSchema,
      ),
      (e) => httpCode(e) === -32602,
    );

    // One activation state per session: b does not see what a mounted.
    await using b = await connectHttp(server.url, TEST_TOKEN);
    const activated = envelopeOf(
      await a.client.callTool({ name: "activate_skill", arguments: { name: "hello-extended" } }),
    );
    assert.ok(activated.success);
    assert.ok((await a.client.listTools()).tools.some((t) => t.name === GREET));
    assert.ok(!(await b.client.listTools()).tools.some((t) => t.name === GREET));
    const run = envelopeOf(
      await b.client.callTool({
        name: "script_run",
        arguments: {
          skill_name: "hello-extended",
          script_name: "advanced_greeting",
          args: ["--name", "Ada"],
        },
      }),
    );
    assert.ok(run.success, JSON.stringify(run));
  },
);

Deno.test(
  "skills mcp --http: 32 concurrent sessions each see only their own skill's toolset tools",
  {
    ignore: LINUX_ONLY || SKIP_SLOW,
  },
  async () => {
    await using home = await tempDir("skills-mcp-http-");
    const names = Array.from({ length: 32 }, (_, i) => `team-${String(i + 1).padStart(2, "0")}`);
    for (const name of names) {
      await installSkill(home.path, name, {
        "SKILL.md": skillMd(name, ["toolsets:", "  - tools.team:Team"], `# ${name}`),
        "tools/__init__.py": "",
        "tools/team.py":
          `class Team:\n    """The ${name} toolset."""\n\n    def whoami(self) -> str:\n        """Say which skill this is."""\n        return "${name}"\n`,
      });
    }
    await using server = await startHttpMcp({
      SKILLS_HOME: home.path,
      AGENT_SKILLS: "all",
      SKILLS_MCP_TOKEN: TEST_TOKEN,
    });
    const clients = await Promise.all(names.map(() => connectHttp(server.url, TEST_TOKEN)));
    try {
      await Promise.all(clients.map(async ({ client }, i) => {
        const name = names[i]!;
        const activated = envelopeOf(
          await client.callTool({ name: "activate_skill", arguments: { name } }),
        );
        assert.ok(activated.success, JSON.stringify(activated));
        const mounted = (await client.listTools()).tools.map((t) => t.name).filter((t) =>
          t.includes("__")
        );
        const own = `${name.replace("-", "_")}__whoami`;
        // (The activation says why a toolset did not mount: its problems are in the content.)
        assert.deepEqual(
          mounted,
          [own],
          `session ${i} sees only its own toolset; activation: ${JSON.stringify(activated)}`,
        );
        const who = envelopeOf(await client.callTool({ name: own, arguments: {} }));
        assert.deepEqual(who.result, name);
        const other = envelopeOf(
          await client.callTool({ name: `${names[(i + 1) % 32]!.replace("-", "_")}__whoami` }),
        );
        assert.equal(other.error, "not_found");
      }));
      // Ctrl-C with every session open: each session's toolset host is stopped, and the one
      // process that told the 32 sessions' clients apart ends with the server.
      const { hosts, readers } = serverChildren(server.child.pid);
      assert.ok(hosts.length >= 32, `${hosts.length} toolset processes for 32 sessions`);
      assert.equal(readers.length, 1, "one reader of the socket tables for 32 sessions");
      const status = await server.stop("SIGINT");
      assert.equal(status.code, 130, server.stderr());
      assert.deepEqual(await survivors([...hosts, ...readers], 10_000), []);
      assert.match(server.stderr(), /closed 32 sessions/);
    } finally {
      await Promise.allSettled(clients.map((c) => c.client.close()));
    }
  },
);

Deno.test("skills mcp --http closes idle sessions and ended ones with their toolset processes", {
  ignore: LINUX_ONLY || SKIP_SLOW,
}, async () => {
  await using home = await tempDir("skills-mcp-http-");
  await using server = await startHttpMcp({
    SKILLS_HOME: home.path,
    AGENT_SKILLS: "hello-extended",
    SKILLS_MCP_TOKEN: TEST_TOKEN,
  }, ["--session-timeout", "1", "--verbose"]);
  const activate = { name: "activate_skill", arguments: { name: "hello-extended" } };
  // A toolset's host starts at its first call (its tool list is kept by the toolset's digest,
  // so an activation alone may start none): each session calls a toolset tool.
  const greet = { name: GREET, arguments: { name: "Ada", language: "fr" } };

  // DELETE (the client ends the session): its toolset host stops at once.
  const ended = await connectHttp(server.url, TEST_TOKEN);
  await ended.client.callTool(activate);
  await ended.client.callTool(greet);
  const endedHosts = serverChildren(server.child.pid).hosts;
  assert.ok(endedHosts.length > 0, "a toolset host runs");
  await ended[Symbol.asyncDispose]();
  assert.deepEqual(await survivors(endedHosts), []);

  // Idle for longer than --session-timeout: closed, and the session id is no longer known.
  await using idle = await connectHttp(server.url, TEST_TOKEN);
  await idle.client.callTool(activate);
  await idle.client.callTool(greet);
  const idleHosts = serverChildren(server.child.pid).hosts;
  assert.ok(idleHosts.length > 0);
  await waitFor(() => /closed \(idle\)/.test(server.stderr()), {
    what: "the idle session to be closed",
    detail: server.stderr,
  });
  assert.deepEqual(await survivors(idleHosts), []);
  await assert.rejects(idle.client.listTools(), (e) => httpCode(e) === 404);
});

Deno.test("skills mcp --http refuses a public address without a token, and a short token", async () => {
  await using home = await tempDir("skills-mcp-http-");
  const env = { SKILLS_HOME: home.path, AGENT_SKILLS: "none" };
  const open = await runCli(["mcp", "--http", "0.0.0.0:0"], { env });
  assert.equal(open.code, 1);
  assert.match(open.stderr, /Refusing to serve MCP on 0\.0\.0\.0.*without a token/);
  assert.match(open.stderr, /SKILLS_MCP_TOKEN/);
  const short = await runCli(["mcp", "--http", "127.0.0.1:0"], {
    env: { ...env, SKILLS_MCP_TOKEN: "short" },
  });
  assert.equal(short.code, 1);
  assert.match(short.stderr, /too short/);
  const bad = await runCli(["mcp", "--http", "8080"], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Invalid --http address '8080'/);
  const stray = await runCli(["mcp", "--session-timeout", "5"], { env });
  assert.equal(stray.code, 2);
});

Deno.test("skills mcp --http refuses foreign origins and hosts, and requests outside a session", async () => {
  await using home = await tempDir("skills-mcp-http-");
  await using server = await startHttpMcp({ SKILLS_HOME: home.path, AGENT_SKILLS: "none" });
  const post = (headers: Record<string, string>, body: unknown, url = server.url) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const initialize = initializeRequest();
  const cases: [Record<string, string>, unknown, number, URL?][] = [
    [{ origin: "https://evil.example" }, initialize, 403],
    [{}, { jsonrpc: "2.0", id: 1, method: "tools/list" }, 400],
    [{ "mcp-session-id": "no-such-session" }, { jsonrpc: "2.0", id: 1, method: "tools/list" }, 404],
    [{}, initialize, 404, new URL("/other", server.url)],
  ];
  for (const [headers, body, status, url] of cases) {
    const response = await post(headers, body, url);
    assert.equal(response.status, status, JSON.stringify(headers));
    await response.body?.cancel();
  }
  // A DNS-rebinding page reaches 127.0.0.1 under its own name (fetch cannot set Host).
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(server.url.port) });
  const body = JSON.stringify(initialize);
  await conn.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: evil.example:${server.url.port}\r\n` +
      "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  ));
  const reply = await new Response(conn.readable).text();
  assert.match(reply, /^HTTP\/1\.1 403 /);
  assert.match(reply, /Host evil\.example is not a loopback name/);

  // Loopback without a token: an ordinary local client connects.
  await using local = await connectHttp(server.url);
  assert.deepEqual((await local.client.listTools()).tools, []);
});
