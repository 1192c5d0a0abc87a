/**
 * `when_to_use`, the field obra/superpowers' first format and the collections that copied it
 * (mrgoonie/claudekit-skills: `debugging` and its sub-skills) write beside `description`: what
 * the skill does in one, when to start it in the other. Claude Code lists it after the
 * description; before, skills warned "unknown field 'when_to_use' is ignored" on every add and
 * validate, and the model was told what the skill does but never when.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

const DESCRIPTION =
  "Systematic debugging frameworks for finding and fixing bugs, with root cause tracing";
const WHEN = "when encountering bugs, test failures or unexpected behavior";

Deno.test("when_to_use reaches what the model is told, and lint says which agents read it", async () => {
  await using tmp = await tempDir("skills-when-to-use-");
  // The collection's layout: a skill under .claude/skills/, its extra fields beside the spec's.
  const skill = join(tmp.path, "kit", ".claude", "skills", "debugging");
  await writeTree(skill, {
    "SKILL.md": [
      "---",
      "name: debugging",
      `description: ${DESCRIPTION}`,
      `when_to_use: ${WHEN}`,
      "version: 1.0.0",
      "---",
      "",
      "# Debugging",
      "",
      "Trace the failure to its cause before changing any code.",
      "",
    ].join("\n"),
  });
  const opts = { env: { SKILLS_HOME: join(tmp.path, "home") }, cwd: tmp.path };

  const validate = await runCli(["validate", skill], opts);
  assert.equal(validate.code, 0, validate.stderr);
  assert.doesNotMatch(validate.stdout + validate.stderr, /unknown field 'when_to_use'/);

  const add = await runCli(["add", skill, "--yes"], opts);
  assert.equal(add.code, 0, add.stderr);
  assert.doesNotMatch(add.stdout + add.stderr, /when_to_use/);

  // info shows it, as a field of its own.
  const info = okJson(await runCli(["info", "debugging", "--json"], opts));
  assert.equal(info.when_to_use, WHEN);
  const text = await runCli(["info", "debugging"], opts);
  assert.match(text.stdout, new RegExp(`When to use\\s+${WHEN}`));

  // What an agent is told of the skill: the description, then when to use it.
  const prompt = await runCli(["prompt", "--skills", "all"], opts);
  assert.equal(prompt.code, 0, prompt.stderr);
  assert.ok(prompt.stdout.includes(`${DESCRIPTION} ${WHEN}`), prompt.stdout);

  // Claude Code's listing counts the two together; Codex lists the description alone.
  const measured = (agent: string) =>
    runCli(["context", "--skills", "all", "--agent", agent, "--json"], opts).then(okJson);
  const claude = (await measured("claude-code")).listing;
  const codex = (await measured("codex")).listing;
  assert.equal(claude.used_chars - codex.used_chars, WHEN.length + 1);

  const lint = await runCli(["lint", skill, "--json"], opts);
  const findings = JSON.parse(lint.stdout).skills[0].findings;
  const when = findings.find((f: { rule: string }) => f.rule === "description-when");
  assert.match(when.message, /'when_to_use' does, which Claude Code and skills read after it/);
  assert.ok(
    !findings.some((f: { message: string }) => /unknown field 'when_to_use'/.test(f.message)),
    JSON.stringify(findings),
  );
});

Deno.test("info, add's summary and --list print a field written as a YAML block scalar on one line, with no `\\n` in it", async () => {
  await using tmp = await tempDir("skills-info-block-");
  // NVIDIA's aiq-research (openai/plugins) writes its description and compatibility so.
  const skill = join(tmp.path, "aiq-lab");
  await writeTree(skill, {
    "SKILL.md": [
      "---",
      "name: aiq-lab",
      "description: |",
      "  Use when asked to run deep research",
      "  through a reachable research backend.",
      "compatibility: |",
      "  Requires Python 3.11+ and network",
      "  access to a local server.",
      "---",
      "",
      "# AIQ lab",
      "",
    ].join("\n"),
  });
  const opts = { env: { SKILLS_HOME: join(tmp.path, "home") }, cwd: tmp.path };
  // The summary add shows before the question, and --list's table, the same way.
  const listed = await runCli(["add", skill, "--list"], opts);
  assert.match(listed.stdout, /aiq-lab .*Use when asked to run deep research through a reachable/);
  const add = await runCli(["add", skill, "--yes"], opts);
  assert.equal(add.code, 0);
  assert.match(add.stderr, /Description: Use when asked to run deep research through a reachable/);
  const text = await runCli(["info", "aiq-lab"], opts);
  assert.match(
    text.stdout,
    /Description\s+Use when asked to run deep research through a reachable research backend\.\n/,
  );
  assert.match(
    text.stdout,
    /Compatibility\s+Requires Python 3\.11\+ and network access to a local server\.\n/,
  );
  assert.doesNotMatch(text.stdout, /\\n/);
});
