/** `skills call` end to end: the real CLI, the embedded toolset host, real python. */

import assert from "node:assert/strict";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { withoutSandboxNotice } from "../../helpers/sandbox.ts";
import { installLimited, installSkill, skillMd } from "../../helpers/installed_skills.ts";

const FR = '{"name":"Ada","language":"fr"}';

Deno.test("skills call hello-extended greet_in_language prints the greeting", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const human = await runCli(["call", "hello-extended", "greet_in_language", "--input", FR], {
    env,
  });
  assert.deepEqual(
    { ...human, stderr: withoutSandboxNotice(human.stderr) },
    { code: 0, stdout: "Bonjour, Ada!\n", stderr: "" },
  );

  const json = await runCli(
    ["call", "hello-extended", "hello_extended__greet_in_language", "--input", FR, "--json"],
    { env },
  );
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    success: true,
    result: "Bonjour, Ada!",
    message: "Greeted Ada in French",
  });
});

Deno.test("skills call returns the unsupported-language envelope and exits 1", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const input = '{"name":"Ada","language":"xx"}';
  const json = await runCli([
    "call",
    "hello-extended",
    "greet_in_language",
    "--input",
    input,
    "--json",
  ], {
    env,
  });
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.stdout), {
    success: false,
    error: "unsupported_language",
    message: "Language 'xx' is not supported; use one of: en, es, fr, de, ja, zh",
  });
  const human = await runCli(["call", "hello-extended", "greet_in_language", "--input", input], {
    env,
  });
  assert.equal(human.code, 1);
  assert.equal(human.stdout, "");
  assert.match(
    withoutSandboxNotice(human.stderr),
    /^error: Language 'xx' is not supported.*\(unsupported_language\)\n$/,
  );
});

Deno.test("skills call reads --input - from stdin and lists tools with --list", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const multi = await runCli(["call", "hello-extended", "greet_multiple", "--input", "-"], {
    env,
    stdin: '{"names": ["Ada", "Bo"],\n "language": "es"}\n',
  });
  assert.equal(multi.code, 0, multi.stderr);
  assert.deepEqual(JSON.parse(multi.stdout), ["¡Hola, Ada!", "¡Hola, Bo!"]);

  const list = await runCli(["call", "hello-extended", "--list", "--json"], { env });
  assert.equal(list.code, 0, list.stderr);
  const doc = JSON.parse(list.stdout);
  assert.deepEqual(doc.tools.map((t: { name: string }) => t.name), [
    "hello_extended__greet_in_language",
    "hello_extended__greet_multiple",
  ]);
  assert.deepEqual(doc.tools[1].input_schema.properties.names, {
    type: "array",
    items: { type: "string" },
    description: "Names of the people to greet (at least one)",
  });
});

Deno.test("skills call reports usage errors, unknown tools and skills without toolsets", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const badJson = await runCli(["call", "hello-extended", "greet_in_language", "--input", "{x"], {
    env,
  });
  assert.equal(badJson.code, 2);
  assert.match(badJson.stderr, /--input is not valid JSON/);

  const unknown = await runCli(["call", "hello-extended", "nope", "--json"], { env });
  assert.equal(unknown.code, 1);
  assert.equal(JSON.parse(unknown.stdout).error, "not_found");
  assert.match(unknown.stderr, /hint: Available tools: greet_in_language, greet_multiple/);

  const noToolsets = await runCli(["call", "kalshi-markets", "status"], { env });
  assert.equal(noToolsets.code, 1);
  assert.match(noToolsets.stderr, /Skill 'kalshi-markets' has no toolsets/);

  const badName = await runCli(["call", "../etc", "x"], { env });
  assert.equal(badName.code, 2);
  assert.match(badName.stderr, /Invalid skill name/);
});

Deno.test("skills call skips a toolset that fails to import and refuses untrusted skills", async () => {
  await using home = await tempDir();
  await installLimited(home.path);
  await installSkill(home.path, "shady", {
    "SKILL.md": skillMd("shady", ["toolsets:", "  - tools.t:T"], "# Shady"),
    "tools/t.py": "class T:\n    def hi(self) -> str:\n        return 'hi'\n",
  }, { trusted: false });
  const env = { SKILLS_HOME: home.path };
  const ping = await runCli(["call", "limited", "ping", "--input", '{"text":"still here"}'], {
    env,
  });
  assert.equal(ping.code, 0, ping.stderr);
  assert.equal(ping.stdout, "still here\n");
  assert.match(ping.stderr, /warning: Toolset tools\.broken:Broken of skill 'limited' skipped/);

  const shady = await runCli(["call", "shady", "hi", "--json"], { env });
  assert.equal(shady.code, 1);
  assert.equal(JSON.parse(shady.stdout).error, "untrusted");
  assert.match(shady.stderr, /Skill 'shady' is not trusted/);
});

Deno.test("skills call --timeout stops a slow tool with exit 124", async () => {
  await using home = await tempDir();
  await installLimited(home.path);
  const started = performance.now();
  const slow = await runCli(
    ["call", "limited", "sleep", "--input", '{"seconds": 60}', "--timeout", "1"],
    { env: { SKILLS_HOME: home.path } },
  );
  assert.equal(slow.code, 124, slow.stderr);
  assert.match(slow.stderr, /timed out after 1s \(timeout\)/);
  assert.ok(performance.now() - started < 20_000);
});

Deno.test("skills call --list shows each tool's input in text mode", async () => {
  await using home = await tempDir();
  const list = await runCli(["call", "hello-extended", "--list"], {
    env: { SKILLS_HOME: home.path },
  });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^TOOL\s+INPUT\s+DESCRIPTION$/m);
  assert.match(
    list.stdout,
    /^greet_in_language\s+name: string, language\?: string = "en"\s+Greet/m,
  );
  assert.match(list.stdout, /^greet_multiple\s+names: string\[\], language\?: string = "en"\s/m);
  assert.match(list.stderr, /--list --json/);
});
