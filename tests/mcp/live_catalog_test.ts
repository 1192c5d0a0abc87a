/**
 * `skills mcp` follows the catalog while it serves: `skills add` and `skills remove`, run as
 * real CLI processes during a session, are announced with `notifications/tools/list_changed`
 * and `notifications/resources/list_changed`, and the lists the official SDK client asks for
 * next (activate_skill's names, resources, SEP-2640's skills/list) say what is installed now.
 * A removed skill is not served any more, even by a session that had activated it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  McpError,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { baseEnv, cliArgv, runCli, tempDir } from "../helpers/cli.ts";
import { waitFor } from "../helpers/wait.ts";
import { skillMd } from "../helpers/installed_skills.ts";
import { connectHttp, startHttpMcp } from "./http_fixture.ts";
import { envelopeOf } from "../helpers/mcp_client.ts";
import { writeTree } from "../helpers/tree.ts";
import { SKIP_SLOW } from "../helpers/quick.ts";

/** A skill folder to install from, outside the skills home. */
async function writeSource(root: string, name: string): Promise<string> {
  const dir = join(root, "sources", name);
  await writeTree(dir, {
    "SKILL.md": skillMd(name, [], `# ${name}\n\nLIVE-${name}`),
    "references/notes.md": "notes\n",
  });
  return dir;
}

/** Counts the two list_changed notifications a client receives. */
function countChanges(client: Client) {
  const seen = { tools: 0, resources: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.tools++);
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void seen.resources++);
  return seen;
}

async function activateNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  const activate = tools.find((t) => t.name === "activate_skill");
  const schema = activate?.inputSchema as { properties: { name: { enum: string[] } } } | undefined;
  return schema?.properties.name.enum ?? [];
}

async function skillsListed(client: Client): Promise<string[]> {
  const listed = await client.request(
    { method: "skills/list", params: {} },
    z.looseObject({ skills: z.array(z.looseObject({ uri: z.string() })) }),
  );
  return listed.skills.map((s) => s.uri);
}

Deno.test("skills mcp over stdio announces skills add and skills remove run during a session", {
  ignore: SKIP_SLOW,
}, async () => {
  await using dir = await tempDir("skills-mcp-live-");
  const home = join(dir.path, "home");
  const env = baseEnv({ SKILLS_HOME: home, AGENT_SKILLS: "all" });
  const source = await writeSource(dir.path, "fresh-notes");
  const [command, ...args] = cliArgv(["mcp"]);
  const transport = new StdioClientTransport({ command: command!, args, env, cwd: dir.path });
  const client = new Client({ name: "skills-live-test", version: "1.0.0" });
  const seen = countChanges(client);
  await client.connect(transport);
  try {
    assert.ok(!(await activateNames(client)).includes("fresh-notes"));
    assert.equal(seen.tools, 0);
    assert.equal(client.getServerCapabilities()?.resources?.listChanged, true);
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);

    const add = await runCli(["add", source, "--yes"], { env, cwd: dir.path });
    assert.equal(add.code, 0, add.stderr);
    await waitFor(() => seen.tools > 0 && seen.resources > 0, { what: "list_changed after add" });
    assert.ok((await activateNames(client)).includes("fresh-notes"));
    assert.ok(
      (await client.listResources()).resources.some((r) =>
        r.uri === "skill://fresh-notes/SKILL.md"
      ),
    );
    assert.ok((await skillsListed(client)).includes("skill://fresh-notes/SKILL.md"));
    const activated = await client.callTool({
      name: "activate_skill",
      arguments: { name: "fresh-notes" },
    });
    assert.match(String(envelopeOf(activated).result), /LIVE-fresh-notes/);

    const before = { ...seen };
    const remove = await runCli(["remove", "fresh-notes", "--yes"], { env, cwd: dir.path });
    assert.equal(remove.code, 0, remove.stderr);
    await waitFor(() => seen.tools > before.tools && seen.resources > before.resources, {
      what: "list_changed after remove",
    });
    assert.ok(!(await activateNames(client)).includes("fresh-notes"));
    assert.ok(!(await skillsListed(client)).includes("skill://fresh-notes/SKILL.md"));
    // Activated before, removed now: neither its files nor its instructions are served.
    await assert.rejects(
      client.readResource({ uri: "skill://fresh-notes/references/notes.md" }),
      (e) => e instanceof McpError && e.code === -32002,
    );
    const again = envelopeOf(
      await client.callTool({ name: "activate_skill", arguments: { name: "fresh-notes" } }),
    );
    assert.equal(again.error, "not_found");
  } finally {
    await client.close();
  }
});

Deno.test(
  "skills mcp --http: an open session hears of a skill added meanwhile; a new one starts with it",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir("skills-mcp-live-http-");
    const home = join(dir.path, "home");
    const env = baseEnv({ SKILLS_HOME: home, AGENT_SKILLS: "all" });
    const source = await writeSource(dir.path, "late-notes");
    await using server = await startHttpMcp(env);
    await using first = await connectHttp(server.url);
    const seen = countChanges(first.client);
    assert.ok(!(await activateNames(first.client)).includes("late-notes"));

    const add = await runCli(["add", source, "--yes"], { env, cwd: dir.path });
    assert.equal(add.code, 0, add.stderr);
    // The notification reaches the session over its standalone GET stream.
    await waitFor(() => seen.tools > 0 && seen.resources > 0, {
      what: "list_changed over HTTP",
      detail: () => server.stderr(),
    });
    assert.ok((await activateNames(first.client)).includes("late-notes"));
    await using second = await connectHttp(server.url);
    assert.ok((await activateNames(second.client)).includes("late-notes"));
    assert.ok((await skillsListed(second.client)).includes("skill://late-notes/SKILL.md"));
  },
);
