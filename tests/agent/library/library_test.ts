/**
 * The library as a program uses it: tests/agent/library/program.ts imports only mod.ts (and the
 * AI SDK), runs without write permission in a temp working directory, and reports what it
 * saw. A virtual skill with two tools is activated and dispatched through call_skill_tool
 * (valid input, then invalid: `invalid_input`), a stored skill's reference is read, an
 * invalid SKILL.md throws with its line, the same skill set drives generateText against the
 * scripted LLM server, and the skills home and the working directory are left untouched.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { baseEnv, REPO_ROOT, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

/** Every entry under `root` with its kind, size and modification time, sorted. */
async function snapshot(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      const info = await Deno.lstat(path);
      out.push(
        `${prefix}${entry.name} ${info.isDirectory ? "dir" : info.size} ${info.mtime?.getTime()}`,
      );
      if (entry.isDirectory) await walk(path, `${prefix}${entry.name}/`);
    }
  };
  await walk(root, "");
  return out.sort();
}

Deno.test("a program importing only mod.ts: virtual and stored skills, generateText, no disk writes", async () => {
  await using dir = await tempDir("skills-library-");
  const cwd = join(dir.path, "project");
  const home = join(dir.path, "skills-home");
  const userHome = join(dir.path, "user");
  await Deno.mkdir(home, { recursive: true });
  await Deno.mkdir(userHome, { recursive: true });
  await writeTree(cwd, {
    "skills/notes/SKILL.md":
      "---\nname: notes\ndescription: House style for notes.\n---\n\n# Notes\n\nSee references/style.md.\n",
    "skills/notes/references/style.md": "# Style\n\nSTYLE-MARKER: short sentences.\n",
    "broken/SKILL.md":
      "---\nname: broken\ndescription: Its front matter breaks on line 4.\nversion: [1, 2\n---\n\nBody\n",
  });
  const before = {
    home: await snapshot(home),
    cwd: await snapshot(cwd),
    user: await snapshot(userHome),
  };

  const llm = await startLlmServer([
    { toolCalls: [{ name: "activate_skill", arguments: { name: "weather" } }] },
    {
      toolCalls: [{
        name: "call_skill_tool",
        arguments: { skill: "weather", tool: "forecast", input: { city: "Lisbon" } },
      }],
    },
    { text: "Clear skies in Lisbon tomorrow, 21 °C." },
  ]);
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--cached-only",
        `--config=${join(REPO_ROOT, "deno.json")}`,
        // No --allow-write and no --allow-run: the program cannot write or spawn anything.
        "--allow-read",
        "--allow-env",
        "--allow-net=127.0.0.1",
        "--allow-sys=hostname", // the AI SDK asks for it at import
        join(REPO_ROOT, "tests", "agent", "library", "program.ts"),
      ],
      cwd,
      clearEnv: true,
      env: baseEnv({ HOME: userHome, SKILLS_HOME: home, LLM_BASE_URL: llm.baseUrl }),
      stdout: "piped",
      stderr: "piped",
    }).output();
  } finally {
    await llm.close();
  }
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(output.stdout));

  assert.equal(report.broken.code, "invalid_manifest");
  assert.equal(report.broken.line, 4);
  assert.match(report.broken.file, /broken\/SKILL\.md$/);
  assert.match(report.broken.message, /SKILL\.md:4: invalid YAML/);

  assert.match(report.systemPrompt, /<available_skills>/);
  assert.match(report.systemPrompt, /<name>notes<\/name>/);
  assert.match(report.systemPrompt, /<name>weather<\/name>/);
  assert.doesNotMatch(
    report.systemPrompt,
    /Tomorrow's forecast|Celsius to Fahrenheit/,
    "the tools are disclosed on activation only",
  );
  assert.deepEqual(report.tools, ["activate_skill", "read_skill_file", "call_skill_tool"]);
  assert.ok(report.activate.success);
  assert.match(report.activate.result, /- forecast: Tomorrow's forecast for a city\./);
  assert.match(report.activate.result, /- convert: Celsius to Fahrenheit\./);
  assert.deepEqual(report.valid, {
    success: true,
    result: { city: "Lisbon", sky: "clear", highC: 21 },
    message: "Called tool 'forecast' of skill 'weather'",
  });
  assert.equal(report.invalid.success, false);
  assert.equal(report.invalid.error, "invalid_input");
  assert.match(report.invalid.message, /tool 'convert' of skill 'weather': celsius/);
  assert.ok(report.reference.success);
  assert.match(report.reference.result, /STYLE-MARKER/);
  assert.deepEqual(report.activated, ["weather"]);

  // The model saw the skill tools only, activated the skill, then reached forecast.
  assert.equal(report.generated.text, "Clear skies in Lisbon tomorrow, 21 °C.");
  assert.equal(report.generated.steps, 3);
  const [activation, forecast] = report.generated.toolResults;
  assert.equal(activation.tool, "activate_skill");
  assert.match(activation.output.result, /<skill_tools skill="weather">/);
  assert.deepEqual(forecast, {
    tool: "call_skill_tool",
    output: {
      success: true,
      result: { city: "Lisbon", sky: "clear", highC: 21 },
      message: "Called tool 'forecast' of skill 'weather'",
    },
  });
  const first = llm.requests[0]!.body;
  assert.deepEqual(first.tools.map((t: { function: { name: string } }) => t.function.name), [
    "activate_skill",
    "read_skill_file",
    "call_skill_tool",
  ]);
  assert.match(first.messages[0].content, /<name>weather<\/name>/);
  assert.match(JSON.stringify(llm.requests[2]!.body.messages), /\\"highC\\":21/);

  assert.deepEqual(
    { home: await snapshot(home), cwd: await snapshot(cwd), user: await snapshot(userHome) },
    before,
    "nothing written to the skills home, the working directory or the user's home",
  );
});
