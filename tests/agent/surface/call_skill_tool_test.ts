/**
 * Virtual skills on the tool surface: their tools are reached only through
 * `call_skill_tool`, documented on activation, scoped by skill (two skills may both have a
 * `search`), gated by the surface's activation state (rolled back with it), and every
 * outcome is an envelope.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../src/core/envelope.ts";
import { isSkillError } from "../../../src/core/errors.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import type {
  InputCheck,
  VirtualSkill,
  VirtualSkillTool,
} from "../../../src/agent/surface/tool_surface.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { tempDir } from "../../helpers/cli.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

/** A tool whose input must be an object with a string `q`. */
function searchTool(source: string): VirtualSkillTool {
  return {
    name: "search",
    description: `Search ${source}.`,
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    check: (input) => {
      const q = (input as { q?: unknown } | null)?.q;
      return Promise.resolve<InputCheck>(
        typeof q === "string"
          ? { ok: true, value: { q } }
          : { ok: false, message: "q: expected string" },
      );
    },
    handler: (input) => ({ source, hits: [`${source}:${(input as { q: string }).q}`] }),
  };
}

const BOOM: VirtualSkillTool = {
  name: "boom",
  description: "Always fails.",
  inputSchema: { type: "object" },
  check: (input) => Promise.resolve({ ok: true, value: input }),
  handler: () => {
    throw new Error("the handler broke");
  },
};

const DOCS: VirtualSkill = {
  name: "docs",
  description: "Search the documentation.",
  body: "# Docs\n\nDOCS-BODY-MARKER",
  tools: [searchTool("docs"), BOOM],
};
const TICKETS: VirtualSkill = {
  name: "tickets",
  description: "Search the tickets.",
  body: "# Tickets",
  tools: [searchTool("tickets")],
};

async function surfaceWith(virtualSkills: VirtualSkill[], active: string[] = []) {
  const dir = await tempDir();
  const catalog = await loadCatalog(dir.path);
  const surface = await createToolSurface({
    home: dir.path,
    catalog,
    active: new Set(active),
    env: ENV,
    virtualSkills,
    enforceAllowedTools: true,
  });
  return {
    surface,
    async [Symbol.asyncDispose]() {
      await surface.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function failure(envelope: Envelope): [string, string] {
  assert.equal(envelope.success, false, JSON.stringify(envelope));
  return envelope.success ? ["", ""] : [envelope.error, envelope.message];
}

Deno.test("call_skill_tool is one tool: the virtual skills' own tools are never listed", async () => {
  await using s = await surfaceWith([DOCS, TICKETS]);
  const names = s.surface.listTools().map((t) => t.name);
  assert.deepEqual(names, ["activate_skill", "call_skill_tool"]);
  assert.match(s.surface.systemPrompt, /<name>docs<\/name>/);
  assert.match(s.surface.systemPrompt, /<name>tickets<\/name>/);
  assert.doesNotMatch(s.surface.systemPrompt, /search/);
  const activate = s.surface.listTools()[0]!.inputSchema as {
    properties: { name: { enum: string[] } };
  };
  assert.deepEqual(activate.properties.name.enum, ["docs", "tickets"]);
});

Deno.test("activate_skill documents the tools; two skills' tools named search stay apart", async () => {
  await using s = await surfaceWith([DOCS, TICKETS]);
  const [code, message] = failure(
    await s.surface.callTool("call_skill_tool", {
      skill: "docs",
      tool: "search",
      input: { q: "x" },
    }),
  );
  assert.equal(code, "not_found");
  assert.match(message, /call activate_skill with name 'docs' first/);

  const activated = await s.surface.callTool("activate_skill", { name: "docs" });
  assert.ok(activated.success);
  const content = String(activated.result);
  assert.match(content, /DOCS-BODY-MARKER/);
  assert.match(content, /<skill_tools skill="docs">/);
  assert.match(content, /- search: Search docs\.\n {2}input: \{"type":"object","properties":\{"q"/);
  assert.match(content, /call_skill_tool/);

  const docs = await s.surface.callTool("call_skill_tool", {
    skill: "docs",
    tool: "search",
    input: { q: "deno" },
  });
  assert.deepEqual(docs, {
    success: true,
    result: { source: "docs", hits: ["docs:deno"] },
    message: "Called tool 'search' of skill 'docs'",
  });
  // tickets is not activated yet: its search is not reachable, docs' search is not it.
  assert.equal(
    failure(await s.surface.callTool("call_skill_tool", { skill: "tickets", tool: "search" }))[0],
    "not_found",
  );
  await s.surface.callTool("activate_skill", { name: "Tickets" });
  const tickets = await s.surface.callTool("call_skill_tool", {
    skill: "tickets",
    tool: "search",
    input: JSON.stringify({ q: "bug" }), // some models stringify nested arguments
  });
  assert.ok(tickets.success);
  assert.deepEqual(tickets.result, { source: "tickets", hits: ["tickets:bug"] });
});

Deno.test("call_skill_tool answers every failure with an envelope", async () => {
  await using s = await surfaceWith([DOCS]);
  await s.surface.callTool("activate_skill", { name: "docs" });
  const call = (args: unknown) => s.surface.callTool("call_skill_tool", args);

  const [invalid, why] = failure(await call({ skill: "docs", tool: "search", input: { q: 1 } }));
  assert.equal(invalid, "invalid_input");
  assert.match(why, /Invalid input for tool 'search' of skill 'docs': q: expected string/);
  const [failed, broke] = failure(await call({ skill: "docs", tool: "boom" }));
  assert.equal(failed, "execution_failed");
  assert.match(broke, /the handler broke/);
  const [missing, known] = failure(await call({ skill: "docs", tool: "nope" }));
  assert.equal(missing, "not_found");
  assert.match(known, /its tools: search, boom/);
  assert.equal(failure(await call({ skill: "../x", tool: "search" }))[0], "invalid_name");
  assert.equal(failure(await call({ skill: "docs" }))[0], "invalid_arguments");
  assert.equal(failure(await call("not json"))[0], "invalid_arguments");
  assert.equal(failure(await call({ skill: "other", tool: "search" }))[0], "not_found");
  // The model calls a virtual tool by its own name: told how to reach it.
  const [direct, hint] = failure(await s.surface.callTool("search", { q: "x" }));
  assert.equal(direct, "not_found");
  assert.match(hint, /belongs to skill 'docs': call it through call_skill_tool/);
  // A virtual skill has no files or scripts.
  assert.match(
    failure(await s.surface.callTool("activate_skill", { name: "nope" }))[1],
    /not active/,
  );
});

Deno.test("restore() un-activates a virtual skill: its tools need activate_skill again", async () => {
  await using s = await surfaceWith([DOCS]);
  const checkpoint = s.surface.checkpoint();
  await s.surface.callTool("activate_skill", { name: "docs" });
  assert.deepEqual([...s.surface.activated()], ["docs"]);
  const search = { skill: "docs", tool: "search", input: { q: "a" } };
  assert.ok((await s.surface.callTool("call_skill_tool", search)).success);
  await s.surface.restore(checkpoint);
  assert.deepEqual([...s.surface.activated()], []);
  assert.match(failure(await s.surface.callTool("call_skill_tool", search))[1], /first/);
  const again = await s.surface.callTool("activate_skill", { name: "docs" });
  assert.ok(again.success && String(again.result).includes("DOCS-BODY-MARKER"));
});

Deno.test("a stored skill and a virtual one share the surface; names may not clash", async () => {
  await using s = await surfaceWith([DOCS], ["hello-extended"]);
  assert.deepEqual(s.surface.listTools().map((t) => t.name), [
    "activate_skill",
    "read_skill_file",
    "call_skill_tool",
    "script_list",
    "script_help",
    "script_run",
  ]);
  const [code, message] = failure(
    await s.surface.callTool("call_skill_tool", { skill: "hello-extended", tool: "greet" }),
  );
  // A stored skill's toolset tools go through the same dispatcher, once it is activated.
  assert.equal(code, "not_found");
  assert.match(message, /call activate_skill with name 'hello-extended' first/);
  assert.match(
    failure(await s.surface.callTool("read_skill_file", { skill: "docs", path: "SKILL.md" }))[1],
    /defined in code/,
  );

  await assert.rejects(
    surfaceWith([{ ...DOCS, name: "hello-extended" }], ["hello-extended"]),
    (error) => isSkillError(error) && error.code === "conflict",
  );
});
