import assert from "node:assert/strict";
import {
  captureRequestBody,
  measureContext,
  measureConversation,
} from "../../../src/agent/chat/accounting.ts";
import { resolveProviderConfig } from "../../../src/agent/chat/providers.ts";
import {
  countTokens,
  fixedOverheadTokens,
  requestParts,
  requestTokens,
} from "../../../src/agent/chat/tokens.ts";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { join } from "node:path";
import { withLlmServer } from "../../fixtures/llm_server.ts";
import { tempDir } from "../../helpers/cli.ts";
import { scriptedChatLoop } from "../../helpers/chat_loop.ts";
import { fakeSurface } from "./fake_surface.ts";

Deno.test("countTokens() counts o200k_base tokens", () => {
  assert.equal(countTokens(""), 0);
  assert.equal(countTokens("hello world"), 2);
  assert.equal(countTokens("hello world hello world"), 4);
});

Deno.test("countTokens() counts special-token text as ordinary text instead of throwing", () => {
  assert.ok(countTokens("<|endoftext|>") > 1);
});

Deno.test("countTokens() counts piece by piece exactly as gpt-tokenizer counts the whole text", () => {
  const ordinary = { disallowedSpecial: new Set<string>() };
  const texts = [
    "a  b   \n\n  c\r\n\t x",
    "   ",
    "I'LL say it's 12345678 — naïve café ﬁne Ⅻ",
    "中文テキスト 😀👍🏽 e\u0301 \ud800 lone \udc00",
    "<|endoftext|><|im_start|>user<|im_end|>",
    JSON.stringify({ tools: [{ name: "activate_skill", enum: ["bench-skill-0001", "x"] }] }),
    "x".repeat(5000) + " " + "9".repeat(50),
  ];
  for (const text of [...texts, texts.join("\n")]) {
    assert.equal(countTokens(text), countO200k(text, ordinary), JSON.stringify(text.slice(0, 40)));
  }
});

Deno.test("requestParts() splits an OpenAI chat body into system, tools and conversation", () => {
  const tools = [{ type: "function", function: { name: "a", parameters: { type: "object" } } }];
  const body = {
    model: "m",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "developer", content: [{ type: "text", text: "Use tools." }] },
      { role: "user", content: "hi" },
    ],
    tools,
  };
  const parts = requestParts(body);
  assert.equal(parts.system, "Be brief.\nUse tools.");
  assert.deepEqual(parts.tools, tools);
  assert.deepEqual(parts.conversation, [{ role: "user", content: "hi" }]);
  const tokens = requestTokens(body);
  assert.equal(tokens.system, countTokens("Be brief.\nUse tools."));
  assert.equal(tokens.tools, countTokens(JSON.stringify(tools)));
  assert.equal(tokens.toolCount, 1);
  assert.equal(tokens.fixed, tokens.system + tokens.tools);
  assert.equal(tokens.total, tokens.fixed + countTokens(JSON.stringify(parts.conversation)));
  assert.equal(fixedOverheadTokens(body), tokens.fixed);
});

Deno.test("requestParts() reads the Anthropic system field (string or text blocks)", () => {
  assert.equal(requestParts({ system: "S", messages: [] }).system, "S");
  assert.equal(
    requestParts({ system: [{ type: "text", text: "A" }, { type: "text", text: "B" }] }).system,
    "A\nB",
  );
  assert.deepEqual(requestTokens({ messages: [] }), {
    system: 0,
    tools: 0,
    toolCount: 0,
    conversation: 0,
    fixed: 0,
    total: 0,
  });
});

for (const provider of ["openai", "anthropic", "ollama"]) {
  Deno.test(`captureRequestBody() builds the body ${provider} really sends, without network`, async () => {
    await withLlmServer([{ text: "ok" }], async (server) => {
      const surface = fakeSurface();
      const loop = scriptedChatLoop(server, surface, { provider });
      const config = loop.provider;
      await loop.runTurn("Hello");
      const sent = server.requests[0]!.body;
      // the capture uses the same config but never reaches the server
      const captured = await captureRequestBody(config, surface, [{
        role: "user",
        content: "Hello",
      }]);
      assert.equal(server.requests.length, 1);
      assert.deepEqual(captured, sent);
      assert.ok(fixedOverheadTokens(sent) > 20);
    });
  });
}

Deno.test("measureConversation() separates the fixed overhead from the conversation", async () => {
  const config = resolveProviderConfig({ SKILLS_MODEL: "openai:m" }, { requireKey: false });
  const surface = fakeSurface();
  const empty = await measureConversation(config, surface, []);
  assert.equal(empty.conversation, 0);
  assert.equal(empty.total, empty.fixed);
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
  const later = await measureConversation(config, surface, [
    { role: "user", content: text },
    { role: "assistant", content: [{ type: "text", text: "ok" }] },
  ]);
  assert.equal(later.fixed, empty.fixed);
  assert.ok(later.conversation >= countTokens(text), `${later.conversation}`);
  assert.ok(later.conversation < countTokens(text) + 40, `${later.conversation}`);
});

Deno.test("measureContext() reports each skill's share and what its activation adds", async () => {
  const config = resolveProviderConfig({ SKILLS_MODEL: "openai:m" }, { requireKey: false });
  const opened: ReturnType<typeof fakeSurface>[] = [];
  const report = await measureContext(config, ["demo", "other"], (active) => {
    const surface = fakeSurface({ skills: [...active] });
    opened.push(surface);
    return Promise.resolve(surface);
  });
  assert.deepEqual(report.active, ["demo", "other"]);
  assert.ok(report.fixed.fixed > 0);
  assert.deepEqual(report.tools, ["activate_skill", "echo", "slow"]);
  const demo = report.skills.find((s) => s.name === "demo")!;
  assert.ok(demo.fixed > 0);
  assert.deepEqual(demo.toolsAdded, ["demo__shout"]);
  // the activation adds the body envelope, the call itself and the mounted tool
  assert.ok(demo.activation > countTokens("DEMO BODY"));
  assert.ok(opened.every((s) => s.closed), "every measuring surface is closed");
});

Deno.test("measureContext() is linear: one surface for any number of skills, shares close to the difference", async () => {
  const config = resolveProviderConfig({ SKILLS_MODEL: "openai:m" }, { requireKey: false });
  const names = Array.from({ length: 40 }, (_, i) => `skill-${i}`);
  let opened = 0;
  const open = (active: ReadonlySet<string>) => {
    opened++;
    return Promise.resolve(fakeSurface({ skills: [...active] }));
  };
  const report = await measureContext(config, names, open);
  assert.equal(opened, 1, "one surface, whatever the number of skills (was 2N+1)");
  assert.equal(report.skills.length, names.length);
  // Each share is what the skill's own entry costs: the same as the total minus the total
  // without it, give or take the tokenizer's merges at the boundaries.
  const without = await measureContext(config, names.slice(1), open);
  const difference = report.fixed.fixed - without.fixed.fixed;
  assert.ok(
    Math.abs(report.skills[0]!.fixed - difference) <= 2,
    `${report.skills[0]!.fixed} vs ${difference}`,
  );
});

Deno.test("measureContext() keeps its report under the digest of its inputs and counts changed inputs again", async () => {
  await using home = await tempDir();
  const config = resolveProviderConfig({ SKILLS_MODEL: "openai:m" }, { requireKey: false });
  const open = (active: ReadonlySet<string>) =>
    Promise.resolve(fakeSurface({ skills: [...active] }));
  const counted = await measureContext(config, ["demo", "other"], open);
  const first = await measureContext(config, ["demo", "other"], open, { home: home.path });
  assert.deepEqual(first, counted, "what is kept is what is counted");
  const folder = join(home.path, ".cache", "context");
  const [entry] = [...Deno.readDirSync(folder)].map((e) => join(folder, e.name));
  assert.ok(entry !== undefined);

  // The same inputs read the kept report back: no request is built or counted again.
  const kept = JSON.parse(Deno.readTextFileSync(entry));
  kept.value.fixed.system = 99_999;
  Deno.writeTextFileSync(entry, JSON.stringify(kept));
  const again = await measureContext(config, ["demo", "other"], open, { home: home.path });
  assert.equal(again.fixed.system, 99_999);

  // Another skill set, another model: another key, counted.
  const fewer = await measureContext(config, ["demo", "other2"], open, { home: home.path });
  assert.deepEqual(fewer, await measureContext(config, ["demo", "other2"], open));
  const other = resolveProviderConfig({ SKILLS_MODEL: "anthropic:m" }, { requireKey: false });
  const anthropic = await measureContext(other, ["demo", "other"], open, { home: home.path });
  assert.equal(anthropic.format, "anthropic-messages");
  assert.notEqual(anthropic.fixed.system, 99_999);
  assert.equal(Deno.readDirSync(folder).toArray().length, 3);

  // A kept entry that is not a report for these skills is ignored and counted again.
  kept.value.skills = [];
  Deno.writeTextFileSync(entry, JSON.stringify(kept));
  const recounted = await measureContext(config, ["demo", "other"], open, { home: home.path });
  assert.deepEqual(recounted, counted);
});

Deno.test("measureContext() serves the toolset hosts being prepared while it activates the other skills", async () => {
  const config = resolveProviderConfig({ SKILLS_MODEL: "openai:m" }, { requireKey: false });
  // 300 plain activations: 1.5 s in which the host must answer, enough for a process to start
  // and end on a machine busy with the whole suite (100 — half a second — was not, once).
  const names = ["demo", ...Array.from({ length: 300 }, (_, i) => `plain-${i}`)];
  // Stands in for a toolset host learning its tools: a real process, whose end is I/O the
  // event loop must serve (in turns: ~30 of them for a process's status). Each plain
  // activation is synchronous work, as building a verified copy is: 5 ms of it.
  let prepared = false;
  let activationsAfter = 0;
  const report = await measureContext(config, names, (active) => {
    const surface = fakeSurface({ skills: [...active] });
    const callTool = surface.callTool.bind(surface);
    return Promise.resolve({
      ...surface,
      callTool(name: string, args: unknown, options?: Parameters<typeof callTool>[2]) {
        if (prepared) activationsAfter++;
        const until = performance.now() + 5;
        while (performance.now() < until) { /* building a copy */ }
        return callTool(name, args, options);
      },
      prepareToolsets(wanted: readonly string[]) {
        const done = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn().status
          .then(() => {
            prepared = true;
          });
        return { names: new Set(wanted.filter((name) => name === "demo")), done };
      },
    });
  });
  assert.equal(report.skills.length, names.length);
  assert.deepEqual(report.skills.map((s) => s.name), names, "reported in the order given");
  assert.equal(prepared, true);
  // Waiting on the host only at its own activation (the last) would leave none after it.
  assert.ok(activationsAfter >= 5, `${activationsAfter} activations after the host answered`);
});
