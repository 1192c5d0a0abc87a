/**
 * Invocation controls as published skills set them: `disable-model-invocation` and Codex's
 * `allow_implicit_invocation: false` keep a skill out of the model's catalog while the user
 * can still start it with `/name args` in the REPL ($ARGUMENTS filled in);
 * `user-invocable: false` keeps the user from starting it. Real surface, real loop, the
 * scripted LLM server.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Repl } from "../../../src/agent/chat/repl.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import type { ToolSurface } from "../../../src/agent/surface/tool_surface.ts";
import { memoryOutput } from "../../../src/core/io.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { withLlmServer } from "../../fixtures/llm_server.ts";
import { scriptedChatLoop } from "../../helpers/chat_loop.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

async function skill(root: string, name: string, frontMatter: string, body: string) {
  const dir = join(root, name);
  await writeTree(dir, {
    "SKILL.md":
      `---\nname: ${name}\ndescription: The ${name} skill.\n${frontMatter}---\n\n${body}\n`,
  });
  return dir;
}

async function homeWithSkills(home: string, source: string) {
  const hidden = await skill(
    source,
    "hidden",
    "disable-model-invocation: true\n",
    "Handle $ARGUMENTS carefully.",
  );
  const codexed = await skill(source, "codexed", "", "Codex body.");
  await Deno.mkdir(join(codexed, "agents"));
  await Deno.writeTextFile(
    join(codexed, "agents", "openai.yaml"),
    "interface:\n  display_name: Codexed\npolicy:\n  allow_implicit_invocation: false\n",
  );
  const modelOnly = await skill(source, "model-only", "user-invocable: false\n", "Model body.");
  const normal = await skill(source, "normal", "", "Normal body.");
  for (const dir of [hidden, codexed, modelOnly, normal]) await installFixtureSkill(home, dir);
}

function enumOf(surface: ToolSurface): string[] {
  const activate = surface.listTools().find((t) => t.name === "activate_skill")!;
  const props = activate.inputSchema.properties as { name: { enum: string[] } };
  return [...props.name.enum].sort();
}

Deno.test("skills hidden from the model stay out of its catalog; the user starts them by name", async () => {
  await using home = await tempDir();
  await using source = await tempDir();
  await homeWithSkills(home.path, source.path);
  const catalog = await loadCatalog(home.path);
  const active = new Set(["hidden", "codexed", "model-only", "normal"]);
  const surface = await createToolSurface({ home: home.path, catalog, active, env: ENV });
  try {
    assert.deepEqual(enumOf(surface), ["model-only", "normal"]);
    assert.doesNotMatch(surface.systemPrompt, /<name>hidden<\/name>|<name>codexed<\/name>/);
    assert.match(surface.systemPrompt, /<name>normal<\/name>/);

    const byModel = await surface.callTool("activate_skill", { name: "hidden" });
    assert.equal(byModel.success, false, "the model cannot start a hidden skill");

    const started = await surface.invokeSkill("hidden", "the invoices");
    assert.ok(started.success, JSON.stringify(started));
    assert.match(String(started.result), /Handle the invoices carefully\./);
    assert.deepEqual([...surface.activated()], ["hidden"]);
    const after = await surface.callTool("activate_skill", { name: "hidden" });
    assert.ok(after.success, "once started, the model may use it");

    const refused = await surface.invokeSkill("model-only", "x");
    assert.equal(refused.success, false);
    assert.equal(!refused.success && refused.error, "permission_denied");
    const codex = await surface.invokeSkill("codexed", "");
    assert.ok(codex.success);
  } finally {
    await surface.close();
  }
  const prompt = await runCli(["prompt", "--skills", "all"], { env: { SKILLS_HOME: home.path } });
  assert.match(prompt.stdout, /<name>normal<\/name>/);
  assert.doesNotMatch(prompt.stdout, /<name>hidden<\/name>|<name>codexed<\/name>/);
});

Deno.test("/name args in the REPL sends the skill's instructions, arguments filled in, to the model", async () => {
  await using home = await tempDir();
  await using source = await tempDir();
  await homeWithSkills(home.path, source.path);
  const catalog = await loadCatalog(home.path);
  const surface = await createToolSurface({
    home: home.path,
    catalog,
    active: new Set(["hidden", "normal"]),
    env: ENV,
  });
  try {
    await withLlmServer([{ text: "On it." }], async (server) => {
      const loop = scriptedChatLoop(server, surface);
      const stdout = memoryOutput();
      const stderr = memoryOutput();
      const repl = new Repl({
        loop,
        io: { stdout, stderr, color: false, readLine: () => Promise.resolve(null) },
        skills: [
          { name: "hidden", description: "The hidden skill.", userOnly: true },
          { name: "normal", description: "The normal skill." },
        ],
        openSurface: () => Promise.resolve(surface),
        measure: () => Promise.reject(new Error("unused")),
      });
      await repl.handleLine("/skills");
      assert.match(stdout.text(), /^hidden \(hidden from the model: start it with \/hidden\)/m);
      await repl.handleLine("/hidden the invoices");
      assert.match(stdout.text(), /On it\./);
      const request = server.requests[0]!.body;
      const user = request.messages.filter((m: { role: string }) => m.role === "user").at(-1);
      assert.match(JSON.stringify(user.content), /Handle the invoices carefully\./);
      const system = JSON.stringify(
        request.messages.filter((m: { role: string }) => m.role === "system"),
      );
      assert.doesNotMatch(system, /<name>hidden<\/name>/);
      await repl.handleLine("/nosuch thing");
      assert.match(stderr.text(), /Unknown command '\/nosuch'/);
    });
  } finally {
    await surface.close();
  }
});

Deno.test("skills validate warns about !`command` blocks, which are never run", async () => {
  await using source = await tempDir();
  const dir = await skill(
    source.path,
    "shelly",
    "",
    "Current branch: !`git branch --show-current`",
  );
  const result = await runCli(["validate", dir]);
  assert.equal(result.code, 0);
  assert.match(
    result.stdout,
    /SKILL\.md:\d+: warning: a !`command` block: Claude Code runs it when it loads the skill; skills never runs it/,
  );
});

Deno.test("the model's catalog lists a skill's when_to_use after its description", async () => {
  await using home = await tempDir();
  await using source = await tempDir();
  const dir = await skill(source.path, "invoices", "when_to_use: when invoices arrive\n", "Body.");
  await installFixtureSkill(home.path, dir);
  const catalog = await loadCatalog(home.path);
  const active = new Set(["invoices"]);
  const surface = await createToolSurface({ home: home.path, catalog, active, env: ENV });
  try {
    assert.match(surface.systemPrompt, /The invoices skill\. when invoices arrive/);
  } finally {
    await surface.close();
  }
});
