import assert from "node:assert/strict";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { Envelope } from "../../../src/core/envelope.ts";
import type { ToolSurface } from "../../../src/agent/surface/tool_surface.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import { renderAvailableSkills } from "../../../src/agent/surface/system_prompt.ts";
import { type Catalog, loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installLimited, installSkill, skillMd } from "../../helpers/installed_skills.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };
const KALSHI_BODY_LINE = "Public, read-only data from Kalshi's Trade API v2.";
const HELLO_BODY_LINE = "A small example skill that shows both ways a skill can offer";
const GREET = "hello_extended__greet_in_language";

interface Setup extends AsyncDisposable {
  home: string;
  catalog: Catalog;
  surface(active: string[], options?: Partial<SurfaceExtras>): Promise<ToolSurface>;
  logs: string[];
}

interface SurfaceExtras {
  enforceAllowedTools: boolean;
  includeLocation: boolean;
}

/** A temp home with the bundled skills plus `install` run on it; surfaces are closed at the end. */
async function setup(install: (home: string) => Promise<unknown> = async () => {}): Promise<Setup> {
  const dir = await tempDir();
  await install(dir.path);
  const catalog = await loadCatalog(dir.path);
  const surfaces: ToolSurface[] = [];
  const logs: string[] = [];
  return {
    home: dir.path,
    catalog,
    logs,
    async surface(active, extras = {}) {
      const surface = await createToolSurface({
        home: dir.path,
        catalog,
        active: new Set(active),
        env: ENV,
        log: (m) => logs.push(m),
        ...extras,
      });
      surfaces.push(surface);
      return surface;
    },
    async [Symbol.asyncDispose]() {
      await Promise.all(surfaces.map((s) => s.close()));
      await dir[Symbol.asyncDispose]();
    },
  };
}

function names(surface: ToolSurface): string[] {
  return surface.listTools().map((t) => t.name);
}

function resultText(envelope: Envelope): string {
  assert.ok(envelope.success, `expected success, got ${JSON.stringify(envelope)}`);
  return typeof envelope.result === "string" ? envelope.result : JSON.stringify(envelope.result);
}

function errorOf(envelope: Envelope): string {
  assert.equal(envelope.success, false, JSON.stringify(envelope));
  return envelope.success ? "" : envelope.error;
}

/** Tokens of the fixed overhead as an OpenAI chat-completions request carries it. */
function fixedOverhead(surface: ToolSurface): number {
  const tools = surface.listTools().map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  return encode(surface.systemPrompt).length +
    (tools.length === 0 ? 0 : encode(JSON.stringify(tools)).length);
}

Deno.test("createToolSurface() with no active skill sends no skill tools and no skill block", async () => {
  await using s = await setup();
  const surface = await s.surface([]);
  assert.deepEqual(surface.listTools(), []);
  assert.doesNotMatch(surface.systemPrompt, /available_skills|activate_skill/);
  assert.equal(
    errorOf(await surface.callTool("activate_skill", { name: "kalshi-markets" })),
    "not_found",
  );
  assert.ok(fixedOverhead(surface) <= 150);
});

Deno.test("createToolSurface() lists the skill tools with the active skills as the enum", async () => {
  await using s = await setup();
  const surface = await s.surface(["kalshi-markets", "hello-extended"]);
  assert.deepEqual(names(surface), [
    "activate_skill",
    "read_skill_file",
    "script_list",
    "script_help",
    "script_run",
  ]);
  const activate = surface.listTools()[0]!.inputSchema as {
    properties: { name: { enum: string[] } };
  };
  assert.deepEqual(activate.properties.name.enum, ["hello-extended", "kalshi-markets"]);
  assert.match(surface.systemPrompt, /<name>kalshi-markets<\/name>/);
  assert.doesNotMatch(surface.systemPrompt, /<location>/);
});

Deno.test("createToolSurface() keeps the fixed overhead within the token budget", async () => {
  await using s = await setup();
  assert.ok(fixedOverhead(await s.surface([])) <= 150);
  const kalshi = fixedOverhead(await s.surface(["kalshi-markets"]));
  assert.ok(kalshi <= 700, `kalshi-markets: ${kalshi} tokens`);
  const both = fixedOverhead(await s.surface(["kalshi-markets", "hello-extended"]));
  assert.ok(both <= 800, `kalshi-markets + hello-extended: ${both} tokens`);
});

Deno.test("the skill body appears only after activate_skill, and only once", async () => {
  await using s = await setup();
  const surface = await s.surface(["kalshi-markets"]);
  const before = surface.systemPrompt + JSON.stringify(surface.listTools());
  assert.ok(!before.includes(KALSHI_BODY_LINE));
  const first = resultText(await surface.callTool("activate_skill", { name: "Kalshi_Markets" }));
  assert.ok(first.startsWith('<skill_content name="kalshi-markets">\n# Kalshi Markets'));
  assert.ok(first.includes(KALSHI_BODY_LINE));
  assert.match(
    first,
    /<\/skill_content>\n<skill_resources>\nscripts \(script_help, script_run\): event, events, market, markets, orderbook, search, series, series_list, status, trades\nother files under scripts\/ \(read_skill_file\): scripts\/_kalshi\.py\n<\/skill_resources>$/,
  );
  const second = resultText(await surface.callTool("activate_skill", { name: "kalshi-markets" }));
  assert.ok(!second.includes(KALSHI_BODY_LINE));
  assert.match(second, /already active/);
});

Deno.test("activate_skill validates its argument and only knows active skills", async () => {
  await using s = await setup();
  const surface = await s.surface(["kalshi-markets"]);
  // Missing and of the wrong type alike: the call is malformed (invalid_arguments); a
  // name that is given but unacceptable is invalid_name.
  assert.equal(errorOf(await surface.callTool("activate_skill", {})), "invalid_arguments");
  assert.equal(
    errorOf(await surface.callTool("activate_skill", { name: "../etc" })),
    "invalid_name",
  );
  assert.equal(errorOf(await surface.callTool("activate_skill", { name: 5 })), "invalid_arguments");
  assert.equal(errorOf(await surface.callTool("activate_skill", "[1,2]")), "invalid_arguments");
  const inactive = await surface.callTool("activate_skill", { name: "hello-extended" });
  assert.equal(errorOf(inactive), "not_found");
  assert.match(inactive.message, /not active \(active skills: kalshi-markets\)/);
  assert.equal(errorOf(await surface.callTool("no_such_tool", {})), "not_found");
  assert.equal(errorOf(await surface.callTool("../../x", {})), "not_found");
});

Deno.test("hello_extended__greet_in_language appears only after activate_skill hello-extended", async () => {
  await using s = await setup();
  const surface = await s.surface(["hello-extended"]);
  let changes = 0;
  surface.onToolsChanged(() => changes++);
  assert.ok(!names(surface).includes(GREET));
  const early = await surface.callTool(GREET, { name: "Ada", language: "fr" });
  assert.equal(errorOf(early), "not_found");
  assert.match(early.message, /activate_skill with name 'hello-extended' first/);

  const activated = resultText(
    await surface.callTool("activate_skill", { name: "hello-extended" }),
  );
  assert.match(
    activated,
    /tools: hello_extended__greet_in_language, hello_extended__greet_multiple/,
  );
  assert.equal(changes, 1);
  assert.deepEqual(names(surface).slice(-2), [GREET, "hello_extended__greet_multiple"]);
  const greet = surface.listTools().find((t) => t.name === GREET)!;
  assert.equal(greet.description, "Greet one person in the given language.");
  assert.deepEqual((greet.inputSchema as { required: string[] }).required, ["name"]);

  assert.deepEqual(await surface.callTool(GREET, { name: "Ada", language: "fr" }), {
    success: true,
    result: "Bonjour, Ada!",
    message: "Greeted Ada in French",
  });
  const unsupported = await surface.callTool(GREET, { name: "Ada", language: "xx" });
  assert.equal(errorOf(unsupported), "unsupported_language");
  assert.equal(errorOf(await surface.callTool(GREET, { name: 3 })), "invalid_arguments");
  assert.deepEqual(
    await surface.callTool(
      "hello_extended__greet_multiple",
      '{"names":["Ada","Bo"],"language":"de"}',
    ),
    { success: true, result: ["Hallo, Ada!", "Hallo, Bo!"], message: "Greeted 2 people in German" },
  );
  // A second activation does not start another host nor announce a change.
  await surface.callTool("activate_skill", { name: "hello-extended" });
  assert.equal(changes, 1);
});

Deno.test("parallel activations of one skill mount its toolset once", async () => {
  await using s = await setup();
  const surface = await s.surface(["hello-extended"]);
  const results = await Promise.all(
    [1, 2, 3].map(() => surface.callTool("activate_skill", { name: "hello-extended" })),
  );
  assert.equal(results.filter((r) => resultText(r).includes(HELLO_BODY_LINE)).length, 1);
  assert.equal(names(surface).filter((n) => n === GREET).length, 1);
});

Deno.test("script source never appears in tool results unless read_skill_file asks for it", async () => {
  await using s = await setup();
  const surface = await s.surface(["hello-extended"]);
  const source = await Deno.readTextFile(
    join(
      s.catalog.skills.find((k) => k.canonical === "hello-extended")!.dir,
      "scripts",
      "advanced_greeting.py",
    ),
  );
  const distinctive = source.split("\n").filter((l) => l.trim().length > 25).slice(0, 5);
  assert.ok(distinctive.length > 0);
  const results = [
    await surface.callTool("activate_skill", { name: "hello-extended" }),
    await surface.callTool("script_list", {}),
    await surface.callTool("script_help", {
      skill_name: "hello-extended",
      script_name: "advanced_greeting",
    }),
    await surface.callTool("script_run", {
      skill_name: "hello-extended",
      script_name: "advanced_greeting",
      args: ["--name", "Ada"],
    }),
    await surface.callTool(GREET, { name: "Ada" }),
  ];
  const seen = JSON.stringify(results) + surface.systemPrompt + JSON.stringify(surface.listTools());
  for (const line of distinctive) assert.ok(!seen.includes(line.trim()), `leaked: ${line}`);
  const run = results[3]!;
  assert.ok(run.success, JSON.stringify(run));
  assert.match(JSON.stringify(run.result), /Ada/);

  const explicit = resultText(
    await surface.callTool("read_skill_file", {
      skill: "hello-extended",
      path: "scripts/advanced_greeting.py",
    }),
  );
  assert.equal(explicit, source);
});

Deno.test("script tools delegate to the runner and see only active skills", async () => {
  await using s = await setup();
  const surface = await s.surface(["hello-extended"]);
  const list = await surface.callTool("script_list", {});
  assert.ok(list.success);
  assert.deepEqual(Object.keys(list.result as object), ["hello-extended"]);
  assert.equal(
    errorOf(await surface.callTool("script_run", { skill_name: "../etc", script_name: "x" })),
    "invalid_name",
  );
  const inactive = await surface.callTool("script_help", {
    skill_name: "kalshi-markets",
    script_name: "status",
  });
  assert.equal(errorOf(inactive), "not_found");
  assert.equal(
    errorOf(await surface.callTool("script_list", { skill_name: "kalshi-markets" })),
    "not_found",
  );
  assert.equal(
    errorOf(
      await surface.callTool("script_run", { skill_name: "hello-extended", script_name: "nope" }),
    ),
    "not_found",
  );
  assert.equal(
    errorOf(
      await surface.callTool("script_run", {
        skill_name: "hello-extended",
        script_name: "advanced_greeting",
        args: "x",
      }),
    ),
    "invalid_arguments",
  );
});

Deno.test("read_skill_file reads text inside the skill and refuses everything else", async () => {
  const big = "0123456789".repeat(25_000); // 250 KB
  await using s = await setup((home) =>
    installSkill(home, "files", {
      "SKILL.md": skillMd("files", [], "# Files"),
      "references/guide.md": "# Guide\nÜnïcödé text\n",
      "references/big.txt": big,
      "assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]),
      "assets/latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      ".env": "SECRET=1\n",
    }, { trusted: false, symlinks: { "references/escape.md": "/etc/hostname" } })
  );
  const outside = join(s.home, "outside.txt");
  await Deno.writeTextFile(outside, "outside");
  const surface = await s.surface(["files"]);
  const read = (path: unknown, skill: unknown = "files") =>
    surface.callTool("read_skill_file", { skill, path });

  const guide = await read("references/guide.md");
  assert.equal(resultText(guide), "# Guide\nÜnïcödé text\n");
  assert.match(guide.message, /Read files\/references\/guide\.md/);
  assert.match(resultText(await read("./SKILL.md")), /^---\nname: files/);

  const truncated = await read("references/big.txt");
  assert.equal(resultText(truncated).length, 200_000);
  assert.match(truncated.message, /truncated: showing the first 200000 of 250000 bytes/);

  assert.equal(errorOf(await read("assets/logo.png")), "binary_file");
  assert.equal(errorOf(await read("assets/latin1.txt")), "binary_file");
  assert.equal(errorOf(await read("references/escape.md")), "permission_denied");
  assert.equal(errorOf(await read("../outside.txt")), "invalid_path");
  assert.equal(errorOf(await read(outside)), "invalid_path");
  assert.equal(errorOf(await read(".env")), "invalid_path");
  assert.equal(errorOf(await read("references")), "invalid_path");
  assert.equal(errorOf(await read("references/missing.md")), "not_found");
  assert.equal(errorOf(await read(undefined)), "invalid_arguments");
  assert.equal(errorOf(await read("SKILL.md", "../etc")), "invalid_name");
  assert.equal(errorOf(await read("SKILL.md", "kalshi-markets")), "not_found");
});

Deno.test("a toolset that fails to import is reported on activation; the rest keep working", async () => {
  await using s = await setup((home) => installLimited(home));
  const surface = await s.surface(["limited"]);
  const text = resultText(await surface.callTool("activate_skill", { name: "limited" }));
  assert.match(text, /tools: limited__ping, limited__sleep, limited__crash, limited__env/);
  assert.match(text, /unavailable toolsets: tools\.broken:Broken \(ModuleNotFoundError/);
  assert.equal(resultText(await surface.callTool("limited__ping", { text: "hi" })), "hi");
  assert.ok(s.logs.some((l) => l.includes("tools.broken:Broken")));
});

Deno.test("an untrusted skill can be activated but its toolsets are not started", async () => {
  await using s = await setup((home) =>
    installSkill(home, "shady", {
      "SKILL.md": skillMd("shady", ["toolsets:", "  - tools.t:T"], "# Shady body"),
      "tools/t.py": "class T:\n    def hi(self) -> str:\n        return 'hi'\n",
    }, { trusted: false })
  );
  const surface = await s.surface(["shady"]);
  const text = resultText(await surface.callTool("activate_skill", { name: "shady" }));
  assert.match(text, /# Shady body/);
  assert.match(text, /unavailable toolsets: tools\.t:T \(Skill 'shady' is not trusted\)/);
  assert.ok(!names(surface).includes("shady__hi"));
});

Deno.test("allowed-tools enforcement blocks a disallowed call with TOOL_NOT_ALLOWED when on", async () => {
  await using s = await setup((home) => installLimited(home));
  const surface = await s.surface(["hello-extended", "limited"], { enforceAllowedTools: true });
  let changes = 0;
  surface.onToolsChanged(() => changes++);
  await surface.callTool("activate_skill", { name: "hello-extended" });
  assert.equal(resultText(await surface.callTool(GREET, { name: "Ada" })), "Hello, Ada!");

  const limited = await surface.callTool("activate_skill", { name: "limited" });
  assert.match(limited.message, /allowed-tools of 'limited' now limit the tools to: limited__\*/);
  assert.equal(changes, 2);
  assert.ok(!names(surface).includes(GREET));
  assert.ok(names(surface).includes("limited__ping"));
  const blocked = await surface.callTool(GREET, { name: "Ada" });
  assert.equal(errorOf(blocked), "TOOL_NOT_ALLOWED");
  assert.match(blocked.message, /not allowed by the allowed-tools of skill 'limited'/);
  assert.equal(resultText(await surface.callTool("limited__ping", {})), "pong");
  // The skill tools stay allowed.
  assert.ok((await surface.callTool("script_list", {})).success);
  assert.deepEqual(names(surface).slice(0, 5), [
    "activate_skill",
    "read_skill_file",
    "script_list",
    "script_help",
    "script_run",
  ]);

  // Last activation wins: hello-extended has no allowed-tools, so nothing is contracted.
  await surface.callTool("activate_skill", { name: "hello-extended" });
  assert.ok(names(surface).includes(GREET));
  assert.equal(resultText(await surface.callTool(GREET, { name: "Ada" })), "Hello, Ada!");
  assert.equal(changes, 3);
});

Deno.test("allowed-tools changes nothing when enforcement is off", async () => {
  await using s = await setup((home) => installLimited(home));
  const surface = await s.surface(["hello-extended", "limited"]);
  await surface.callTool("activate_skill", { name: "hello-extended" });
  const before = names(surface);
  await surface.callTool("activate_skill", { name: "limited" });
  assert.deepEqual(names(surface), [
    ...before,
    "limited__ping",
    "limited__sleep",
    "limited__crash",
    "limited__env",
  ]);
  assert.equal(resultText(await surface.callTool(GREET, { name: "Ada" })), "Hello, Ada!");
});

Deno.test("an allowlist matching only the skill tools is ignored with a warning", async () => {
  await using s = await setup((home) => installLimited(home, "script_run Read"));
  const surface = await s.surface(["hello-extended", "limited"], { enforceAllowedTools: true });
  await surface.callTool("activate_skill", { name: "hello-extended" });
  await surface.callTool("activate_skill", { name: "limited" });
  assert.ok(s.logs.some((l) => /Ignoring allowed-tools of skill 'limited'/.test(l)));
  assert.equal(resultText(await surface.callTool(GREET, { name: "Ada" })), "Hello, Ada!");
});

Deno.test("includeLocation puts the exact <available_skills> block with SKILL.md paths in the prompt", async () => {
  await using s = await setup();
  const surface = await s.surface(["kalshi-markets"], { includeLocation: true });
  const kalshi = s.catalog.skills.find((k) => k.canonical === "kalshi-markets")!;
  const block = renderAvailableSkills([{
    name: "kalshi-markets",
    description: kalshi.manifest.description,
    location: kalshi.skillMdPath,
  }]);
  assert.ok(surface.systemPrompt.endsWith(`\n\n${block}`));
  assert.match(block, /<location>\/.*\/kalshi-markets\/SKILL\.md<\/location>/);
});

Deno.test("close() stops toolset hosts; later toolset calls fail with an envelope", async () => {
  await using s = await setup();
  const surface = await s.surface(["hello-extended"]);
  await surface.callTool("activate_skill", { name: "hello-extended" });
  await surface.close();
  const after = await surface.callTool(GREET, { name: "Ada" });
  assert.equal(errorOf(after), "execution_failed");
});

Deno.test("script_list sends each script's path relative to its skill, never a local path", async () => {
  await using s = await setup();
  const surface = await s.surface(["hello-extended"]);
  for (const args of [{}, { skill_name: "hello-extended" }]) {
    const list = await surface.callTool("script_list", args);
    assert.ok(list.success, JSON.stringify(list));
    const entries = (list.result as Record<string, { name: string; path: string }[]>)[
      "hello-extended"
    ]!;
    assert.ok(entries.length > 0);
    assert.ok(!JSON.stringify(list).includes(s.home), JSON.stringify(list));
    const greeting = entries.find((e) => e.name === "advanced_greeting")!;
    assert.equal(greeting.path, "scripts/advanced_greeting.py");
  }
});

Deno.test("prepareToolsets learns a toolset's tools ahead of its activation, which then starts no host of its own", async () => {
  await using dir = await tempDir();
  const home = dir.path;
  await installSkill(home, "counted", {
    "SKILL.md": skillMd("counted", ["toolsets:", "  - tools.counted:Counted"], "# Counted"),
    "tools/__init__.py": "",
    "tools/counted.py": [
      "import sys",
      'print("TOOLSET-IMPORTED", file=sys.stderr, flush=True)',
      "",
      "class Counted:",
      "    def ping(self, text: str) -> str:",
      '        """Echo the text."""',
      "        return text",
      "",
    ].join("\n"),
  });
  await installSkill(home, "plain", { "SKILL.md": skillMd("plain", [], "# Plain") });
  const logs: string[] = [];
  const surface = await createToolSurface({
    home,
    catalog: await loadCatalog(home),
    active: new Set(["counted", "plain"]),
    env: ENV,
    log: (message) => logs.push(message),
  });
  try {
    // Only the skill with toolsets is learned; the answer is shared with its activation.
    const prepared = surface.prepareToolsets!(["plain", "counted"]);
    assert.deepEqual([...prepared.names], ["counted"]);
    const activated = await surface.callTool("activate_skill", { name: "counted" });
    await prepared.done; // settled: what the activation took was its answer
    assert.equal(activated.success, true, JSON.stringify(activated));
    assert.ok(surface.listTools().some((t) => t.name === "counted__ping"));
    assert.equal(
      logs.filter((line) => line.includes("TOOLSET-IMPORTED")).length,
      0,
      "the activation took the prepared answer instead of starting a host",
    );
    const called = await surface.callTool("counted__ping", { text: "hi" });
    assert.equal(called.success, true, JSON.stringify(called));
  } finally {
    await surface.close();
  }
});
