/**
 * `skills chat -p` (the real CLI) follows the catalog within one turn: a skill installed by
 * `skills add` while the model is thinking is activated by the model's next tool call, and
 * the next request carries it in the system prompt and in activate_skill's names. The model
 * is the scripted local server speaking the OpenAI wire format.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type RecordedLlmRequest, startLlmServer } from "../../fixtures/llm_server.ts";
import { baseEnv, cliArgv, runCli, tempDir } from "../../helpers/cli.ts";
import { skillMd } from "../../helpers/installed_skills.ts";
import { writeTree } from "../../helpers/tree.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function activateNames(request: RecordedLlmRequest): string[] {
  const activate = (request.body.tools as Json[]).find((t) => t.function.name === "activate_skill");
  return activate?.function.parameters.properties.name.enum ?? [];
}

Deno.test("skills chat sees a skill added by skills add during the turn", async () => {
  await using dir = await tempDir("skills-chat-live-");
  const home = join(dir.path, "home");
  await Deno.mkdir(home, { recursive: true });
  const source = join(dir.path, "late-notes");
  await writeTree(source, { "SKILL.md": skillMd("late-notes", [], "# Late\n\nLATE-BODY") });
  const env = baseEnv({
    SKILLS_HOME: home,
    AGENT_SKILLS: "all",
    SKILLS_MODEL: "openai:gpt-test",
    OPENAI_API_KEY: "sk-test",
  });
  const llm = await startLlmServer([
    () => {
      // While the model "thinks", another terminal installs a skill (a real CLI process).
      const [command, ...args] = cliArgv(["add", source, "--yes"]);
      const add = new Deno.Command(command!, {
        args,
        env,
        cwd: dir.path,
        stdout: "null",
        stderr: "piped",
      })
        .outputSync();
      assert.equal(add.code, 0, new TextDecoder().decode(add.stderr));
      return { toolCalls: [{ name: "activate_skill", arguments: { name: "late-notes" } }] };
    },
    { text: "Done." },
  ]);
  try {
    const chat = await runCli(["chat", "-p", "Use the late notes.", "--json"], {
      env: { ...env, SKILLS_BASE_URL: llm.baseUrl },
      cwd: dir.path,
    });
    assert.equal(chat.code, 0, chat.stderr);
    const report = JSON.parse(chat.stdout);
    const [activation] = report.tool_calls;
    assert.equal(activation.result.success, true, JSON.stringify(activation));
    assert.match(activation.result.result, /LATE-BODY/);
  } finally {
    await llm.close();
  }
  const [first, second] = llm.requests;
  assert.ok(!activateNames(first!).includes("late-notes"));
  assert.doesNotMatch(JSON.stringify(first!.body.messages[0]), /late-notes/);
  assert.ok(activateNames(second!).includes("late-notes"));
  assert.match(JSON.stringify(second!.body.messages[0]), /<name>late-notes<\/name>/);
});
