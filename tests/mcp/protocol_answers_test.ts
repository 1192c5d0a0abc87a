/**
 * What `skills mcp` answers when a request is wrong, spoken to in raw JSON-RPC over stdio
 * (the real CLI): the code a client branches on, and a message a person can read once.
 */
import assert from "node:assert/strict";
import { baseEnv, tempDir } from "../helpers/cli.ts";
import { type JsonRpcMessage, spawnMcp } from "../helpers/mcp_stdio.ts";
import { installSkill, skillMd } from "../helpers/installed_skills.ts";

async function serving(
  skills = "hello-extended",
  install: (home: string) => Promise<unknown> = () => Promise.resolve(),
) {
  const dir = await tempDir("skills-mcp-protocol-");
  await install(dir.path);
  const server = spawnMcp(baseEnv({ SKILLS_HOME: dir.path, AGENT_SKILLS: skills }), {
    cwd: dir.path,
  });
  let id = 10;
  return {
    home: dir.path,
    server,
    async request(method: string, params?: unknown): Promise<JsonRpcMessage> {
      const mine = ++id;
      await server.send({ jsonrpc: "2.0", id: mine, method, ...(params ? { params } : {}) });
      return await server.lines.responseTo(mine);
    },
    async [Symbol.asyncDispose]() {
      await server.kill();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("skills mcp answers malformed tools/call params with -32602 and one readable sentence", async () => {
  await using s = await serving();
  await s.server.initialize();
  for (
    const [params, says] of [
      [undefined, /needs params/],
      [{ arguments: {} }, /'name'/],
      [{ name: 42 }, /'name'/],
      [{ name: "activate_skill", arguments: "hello-extended" }, /'arguments' must be an object/],
      [{ name: "activate_skill", arguments: [1] }, /'arguments' must be an object/],
    ] as const
  ) {
    const answer = await s.request("tools/call", params);
    assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
    const message = String(answer.error.message);
    assert.match(message, says);
    // One sentence: no schema dump (JSON, zod's issue list), no line breaks.
    assert.doesNotMatch(message, /[\n{[]/, message);
    assert.ok(message.length < 120, message);
  }
  // A well-formed call still works afterwards.
  const ok = await s.request("tools/call", { name: "script_list", arguments: {} });
  assert.equal(ok.result?.isError, false, JSON.stringify(ok));
});

Deno.test("skills mcp answers malformed list and read params with -32602 and one sentence", async () => {
  await using s = await serving();
  await s.server.initialize();
  for (
    const [method, params, says] of [
      ["resources/read", {}, /'uri'/],
      ["resources/read", { uri: 5 }, /'uri'/],
      ["resources/read", undefined, /needs params/],
      ["tools/list", { cursor: 5 }, /'cursor' must be a string/],
      ["resources/list", { cursor: 5 }, /'cursor' must be a string/],
      ["resources/templates/list", { cursor: {} }, /'cursor' must be a string/],
    ] as const
  ) {
    const answer = await s.request(method, params);
    assert.equal(answer.error?.code, -32602, `${method} ${JSON.stringify(answer)}`);
    const message = String(answer.error.message);
    assert.match(message, says);
    assert.doesNotMatch(message, /[\n{[]/, message);
    assert.ok(message.length < 120, message);
  }
  // Well-formed ones still work: with and without a cursor.
  const tools = await s.request("tools/list", { cursor: "0" });
  assert.ok(Array.isArray(tools.result?.tools), JSON.stringify(tools));
  const listed = await s.request("resources/list");
  const first = listed.result?.resources?.[0]?.uri;
  assert.equal(typeof first, "string", JSON.stringify(listed));
  const read = await s.request("resources/read", { uri: first });
  assert.equal(read.result?.contents?.[0]?.uri, first, JSON.stringify(read));
  const templates = await s.request("resources/templates/list");
  assert.equal(templates.result?.resourceTemplates?.length, 1);
});

Deno.test("skills mcp error messages carry no 'MCP error <code>:' of their own", async () => {
  await using s = await serving();
  await s.server.initialize();
  const answers = [
    await s.request("resources/read", { uri: "skill://hello-extended/nope.md" }),
    await s.request("resources/read", { uri: "skill://hello-extended/../x" }),
    await s.request("skills/get", { uri: "skill://nope/SKILL.md" }),
    await s.request("skills/list", { cursor: "bm9wZQ==" }),
    await s.request("tools/call", { name: 1 }),
  ];
  assert.deepEqual(answers.map((a) => a.error?.code), [-32002, -32602, -32602, -32602, -32602]);
  for (const answer of answers) {
    // Clients print "MCP error -32602: " before the message themselves.
    assert.doesNotMatch(answer.error.message, /MCP error/, answer.error.message);
  }
});

Deno.test("skills mcp's resource template says what reads serve: any file, whole, binary as a blob", async () => {
  const big = "0123456789\n".repeat(30_000); // 330 KB of text: more than the old "200 KB"
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0xd]);
  await using s = await serving("files", (home) =>
    installSkill(home, "files", {
      "SKILL.md": skillMd("files", [], "# Files"),
      "references/big.txt": big,
      "assets/logo.png": png,
      "scripts/tool.py": "print('hi')\n",
    }));
  await s.server.initialize();
  const templates = await s.request("resources/templates/list");
  const [template] = templates.result.resourceTemplates;
  assert.match(template.description, /any file/i);
  assert.match(template.description, /whole/);
  assert.match(template.description, /base64/);
  assert.doesNotMatch(template.description, /200 KB/);

  const text = await s.request("resources/read", { uri: "skill://files/references/big.txt" });
  assert.equal(text.result.contents[0].text.length, big.length);
  const blob = await s.request("resources/read", { uri: "skill://files/assets/logo.png" });
  assert.deepEqual(
    Uint8Array.from(atob(blob.result.contents[0].blob), (c) => c.charCodeAt(0)),
    png,
  );
  const script = await s.request("resources/read", { uri: "skill://files/scripts/tool.py" });
  assert.equal(script.result.contents[0].text, "print('hi')\n");
});

Deno.test("skills mcp tools: a missing argument and a wrong type are both invalid_arguments", async () => {
  await using s = await serving();
  await s.server.initialize();
  const envelope = async (name: string, args: unknown) => {
    const answer = await s.request("tools/call", { name, arguments: args });
    assert.equal(answer.result.isError, true, JSON.stringify(answer));
    return JSON.parse(answer.result.content[0].text);
  };
  const missing = await envelope("activate_skill", {});
  assert.equal(missing.error, "invalid_arguments");
  assert.match(missing.message, /Missing required argument 'name'/);
  const wrongType = await envelope("activate_skill", { name: 5 });
  assert.equal(wrongType.error, "invalid_arguments");
  assert.match(wrongType.message, /'name' must be a string/);
  assert.equal(
    (await envelope("script_help", { skill_name: "hello-extended" })).error,
    "invalid_arguments",
  );
  assert.equal(
    (await envelope("read_skill_file", { skill: [], path: "SKILL.md" })).error,
    "invalid_arguments",
  );
  // A name that is given but unacceptable is still invalid_name.
  assert.equal((await envelope("activate_skill", { name: "../etc" })).error, "invalid_name");
});
