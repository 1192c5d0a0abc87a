/**
 * `lintSkillDir` on real skill directories, with their scripts run through the real runner
 * (python3): `skills init` output lints clean, with and without a toolset; each author
 * problem is found where it is; `runScripts: false` runs nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type LintOptions, lintSkillDir } from "../../../src/runtime/audit/lint.ts";
import { planScaffold, writeScaffold } from "../../../src/runtime/authoring/scaffold.ts";
import { countTokens } from "../../../src/agent/chat/tokens.ts";
import { tempDir } from "../../helpers/cli.ts";
import { writeSample } from "../../fixtures/audit_corpus.ts";

function options(home: string, extra: Partial<LintOptions> = {}): LintOptions {
  return {
    home,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    runScripts: true,
    timeoutSeconds: 20,
    countTokens: (text) => Promise.resolve(countTokens(text)),
    ...extra,
  };
}

const PEP723 = '# /// script\n# requires-python = ">=3.9"\n# dependencies = []\n# ///\n';

Deno.test("skills init output lints clean, with and without a toolset (scripts run)", async () => {
  await using tmp = await tempDir();
  for (const withToolset of [false, true]) {
    const name = withToolset ? "tooled-demo" : "plain-demo";
    const dir = await writeScaffold(tmp.path, planScaffold(name, { withToolset }));
    const report = await lintSkillDir(dir, options(join(tmp.path, "home")));
    assert.equal(report.name, name);
    assert.deepEqual(report.findings, [], name);
  }
});

Deno.test("lint finds each author problem where it is", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "reporter");
  const long = Array.from({ length: 520 }, (_, i) => `Step ${i}: keep going.`).join("\n");
  await writeSample(dir, {
    "SKILL.md": `---
name: report-tool
description: I help with various report things.
version: 1.0.0
---
# Reports

Run \`quiet\` and \`chatty\` as needed; the template is in [the guide](references/guide.md).
Details live in references/missing.md.
${long}
`,
    "references/guide.md": "# Guide\n",
    "assets/unused.png": "not really a png\n",
    "scripts/quiet.py": `${PEP723}import sys\nsys.exit(3)\n`,
    "scripts/chatty.py": `${PEP723}print("hello there")\n`,
  });
  const report = await lintSkillDir(dir, options(join(tmp.path, "home")));
  const got = report.findings.map((f) => `${f.rule} ${f.file}${f.line ? `:${f.line}` : ""}`);
  assert.deepEqual(got, [
    "name-folder SKILL.md:2",
    "description-short SKILL.md:3",
    "description-first-person SKILL.md:3",
    "description-when SKILL.md:3",
    "description-vague SKILL.md:3",
    "portability SKILL.md:4",
    "body-lines SKILL.md:6",
    "missing-file SKILL.md:9",
    "unreferenced-file assets/unused.png",
    "script-json scripts/chatty.py",
    "script-help scripts/quiet.py",
  ]);
  const levels = new Map(report.findings.map((f) => [f.rule, f.level]));
  assert.equal(levels.get("missing-file"), "error");
  assert.equal(levels.get("script-json"), "warning");
  const json = report.findings.find((f) => f.rule === "script-json")!;
  assert.match(json.message, /printed something other than one JSON document .*hello there/);
  const help = report.findings.find((f) => f.rule === "script-help")!;
  assert.match(help.message, /`quiet --help` failed \(execution_failed/);

  const offline = await lintSkillDir(dir, options(join(tmp.path, "home"), { runScripts: false }));
  assert.deepEqual(offline.findings.filter((f) => f.rule.startsWith("script-")), []);
});

Deno.test("a body over 5,000 tokens is counted with the tokenizer; a short one never loads it", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "wordy");
  const words = Array.from({ length: 6000 }, (_, i) => `word${i}`).join(" ");
  await writeSample(dir, {
    "SKILL.md":
      `---\nname: wordy\ndescription: Explains everything at length. Use when the user wants detail.\n---\n${words}\n`,
  });
  let calls = 0;
  const counting = (text: string) => {
    calls++;
    return Promise.resolve(countTokens(text));
  };
  const report = await lintSkillDir(dir, options(tmp.path, { countTokens: counting }));
  assert.deepEqual(report.findings.map((f) => f.rule), ["body-tokens"]);
  assert.equal(calls, 1);

  const short = join(tmp.path, "short");
  await writeSample(short, {
    "SKILL.md":
      "---\nname: short\ndescription: Says one thing briefly. Use when the user wants a summary.\n---\nBrief.\n",
  });
  calls = 0;
  assert.deepEqual(
    (await lintSkillDir(short, options(tmp.path, { countTokens: counting }))).findings,
    [],
  );
  assert.equal(calls, 0);
});

Deno.test("a skill that does not validate is reported with its errors", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "broken");
  await writeSample(dir, { "SKILL.md": "---\nname: broken\n---\nbody\n" });
  const report = await lintSkillDir(dir, options(tmp.path));
  assert.deepEqual(report.findings.map((f) => [f.rule, f.level]), [["invalid", "error"]]);
});

Deno.test("a script that cannot start here (dependencies without uv) is reported as not run", async () => {
  await using tmp = await tempDir();
  // A PATH with python3 but no uv, as on a fresh machine.
  const bin = join(tmp.path, "bin");
  await Deno.mkdir(bin);
  const python = await new Deno.Command("sh", { args: ["-c", "command -v python3"] }).output();
  await Deno.symlink(new TextDecoder().decode(python.stdout).trim(), join(bin, "python3"));
  const dir = join(tmp.path, "needy");
  await writeSample(dir, {
    "SKILL.md":
      "---\nname: needy\ndescription: Fetches pages over HTTP/2. Use when the user asks for a page.\n---\nRun `fetch` with a URL.\n",
    "scripts/fetch.py":
      '# /// script\n# dependencies = ["httpx"]\n# ///\nimport httpx\nprint("{}")\n',
  });
  const report = await lintSkillDir(dir, {
    ...options(join(tmp.path, "home")),
    env: { PATH: bin, HOME: tmp.path },
    // No bwrap on this PATH: policy mode, as agreed to (the point here is the runner's answer).
    policyModeAgreed: true,
  });
  assert.deepEqual(report.findings.map((f) => f.rule), ["script-unchecked"]);
  assert.match(report.findings[0]!.message, /`fetch` was not run: .*uv is not installed/);
});

Deno.test("helper modules are not linted as commands; a missing module is reported as such", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "office-tools");
  const json = 'import json, sys\nif "--help" in sys.argv:\n    print("usage: x [--json]")\n' +
    "else:\n    print(json.dumps({}))\n";
  await writeSample(dir, {
    "SKILL.md": `---
name: office-tools
description: Builds and packs office documents. Use when the user asks for a .docx report.
---
# Office tools

Run \`build\` to make the report, \`office/pack\` to pack it, \`convert\` to convert it,
\`render\` to render it and \`tables\` to extract tables.
`,
    // A command that imports its helper; the helper has no __main__ guard.
    "scripts/build.py": `${PEP723}from utils import slug\n\ndef main():\n    ${
      json.replaceAll("\n", "\n    ").trimEnd()
    }\n\nif __name__ == "__main__":\n    main()\n`,
    "scripts/utils.py": '"""Shared helpers."""\nimport re\n\nSEP = "-"\n\n' +
      "def slug(text):\n    return re.sub(r'\\W+', SEP, text).strip(SEP)\n",
    // A package-style import of a nested helper.
    "scripts/office/pack.py": `${PEP723}from helpers.ooxml import NS\n${json}`,
    "scripts/office/helpers/ooxml.py": 'NS = {"w": "urn:w"}\n',
    // A helper nobody imports, but which only defines things.
    "scripts/constants.py": "from pathlib import Path\n\nROOT = Path(__file__).parent\n",
    // Shell: a library another script sources.
    "scripts/convert.sh": '#!/bin/bash\n. "$(dirname "$0")/common.sh"\n' +
      'if [ "$1" = "--help" ]; then echo "usage: convert"; else echo "{}"; fi\n',
    "scripts/common.sh": 'log() { echo "$*" >&2; }\n',
    // JavaScript: a module another script imports.
    "scripts/render.mjs": "import { fmt } from './lib/format.mjs';\n" +
      "console.log(process.argv.includes('--help') ? 'usage: render' : JSON.stringify(fmt()));\n",
    "scripts/lib/format.mjs": "export function fmt() {\n  return {};\n}\n",
    // A command whose third-party module is not installed here (and not declared).
    "scripts/tables.py": `${PEP723}import skills_lint_fixture_dependency\nprint("{}")\n`,
  });
  const report = await lintSkillDir(dir, options(join(tmp.path, "home")));
  const got = report.findings.map((f) => `${f.rule} ${f.file}`);
  assert.deepEqual(
    got,
    ["script-missing-module scripts/tables.py"],
    JSON.stringify(report.findings),
  );
  assert.match(
    report.findings[0]!.message,
    /`tables` was not run: missing module skills_lint_fixture_dependency \(declare it in the script's PEP 723/,
  );
  assert.equal(report.scriptsRun, true);
});

/** `skills lint` of `dir` without running its scripts: the findings, and each one's rule, level and line. */
async function lintWithoutRuns(dir: string, home: string) {
  const { findings } = await lintSkillDir(dir, options(home, { runScripts: false }));
  return { findings, where: findings.map((f) => [f.rule, f.level, f.line]) };
}

Deno.test("a path found beside the skill (its plugin's scripts/) is a warning saying where, not a missing file", async () => {
  await using tmp = await tempDir();
  const plugin = join(tmp.path, "handbook-plugin");
  await writeSample(plugin, {
    "scripts/validate.py": "print('ok')\n",
    "skills/generator/SKILL.md": `---
name: generator
description: Generates handbook skills from sections. Use when the user asks for a new handbook skill.
---
# Generator

Read [the template]({baseDir}/references/template.md), then run the validator:
\`uv run scripts/validate.py --skill {name}\`. Then open references/gone.md.
`,
    "skills/generator/references/template.md": "# Template\n",
  });
  const { findings, where } = await lintWithoutRuns(
    join(plugin, "skills", "generator"),
    join(tmp.path, "home"),
  );
  assert.deepEqual(where, [["file-outside-skill", "warning", 8], ["missing-file", "error", 8]]);
  assert.match(
    findings[0]!.message,
    /scripts\/validate\.py, which is not in the skill but at \.\.\/\.\.\/scripts\/validate\.py/,
  );
  assert.match(findings[1]!.message, /references\/gone\.md/);
});

Deno.test("a path at the top of the repository above a plugin's skill is found there, and not past the repository", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await writeSample(repo, {
    "scripts/validate-skills.py": "print('ok')\n",
    "plugins/build/skills/build/SKILL.md": `---
name: build
description: Builds the agent. Use when the user asks to build it.
---
# Build

Validation passes with \`python3 scripts/validate-skills.py\`; see references/above.md.
`,
  });
  // Beyond the repository's top (its .git), nothing is looked at.
  await Deno.mkdir(join(repo, ".git"));
  await writeSample(tmp.path, { "references/above.md": "# Above the repository\n" });
  const { findings, where } = await lintWithoutRuns(
    join(repo, "plugins", "build", "skills", "build"),
    join(tmp.path, "home"),
  );
  assert.deepEqual(where, [["file-outside-skill", "warning", 7], ["missing-file", "error", 7]]);
  assert.match(findings[0]!.message, /at \.\.\/\.\.\/\.\.\/\.\.\/scripts\/validate-skills\.py/);
  assert.match(findings[1]!.message, /references\/above\.md, which is not in the skill$/);
});

Deno.test("a path found in a sibling skill (the one its text names) is a warning saying where", async () => {
  await using tmp = await tempDir();
  // OpenAI's plugins: swiftui-patterns points at "build-run-debug and its references/run.md".
  const skills = join(tmp.path, "macos-plugin", "skills");
  await writeSample(skills, {
    "patterns/SKILL.md": `---
name: patterns
description: Lays out macOS app windows. Use when the user builds a macOS app's windows.
---
# Patterns

Use the contract of \`build-run\` and its \`references/run.md\` file. Then open references/gone.md.
`,
    "build-run/SKILL.md":
      "---\nname: build-run\ndescription: Builds and runs macOS apps. Use when the user runs one.\n---\n# Build\n",
    "build-run/references/run.md": "# Run\n",
    // A folder that is no skill is not looked in.
    "notes/references/gone.md": "# Gone\n",
  });
  const { findings, where } = await lintWithoutRuns(
    join(skills, "patterns"),
    join(tmp.path, "home"),
  );
  assert.deepEqual(where, [["file-outside-skill", "warning", 7], ["missing-file", "error", 7]]);
  assert.match(
    findings[0]!.message,
    /references\/run\.md, which is not in the skill but at \.\.\/build-run\/references\/run\.md: an agent that installs the skill alone will not have it/,
  );
  assert.match(findings[1]!.message, /references\/gone\.md, which is not in the skill$/);
});

Deno.test("icons Codex's agents/openai.yaml names are referenced; an asset nothing names is not", async () => {
  await using tmp = await tempDir();
  // OpenAI's plugins: 109 of their skills' "unreferenced" files were these icons.
  const dir = join(tmp.path, "calendar");
  await writeSample(dir, {
    "SKILL.md":
      "---\nname: calendar\ndescription: Finds free slots in a calendar. Use when the user plans a meeting.\n---\n# Calendar\n",
    "agents/openai.yaml":
      'interface:\n  display_name: "Calendar"\n  icon_small: "./assets/icon.png"\n  icon_large: "./assets/logo.png"\n',
    "assets/icon.png": "png\n",
    "assets/logo.png": "png\n",
    "assets/spare.png": "png\n",
  });
  const { findings } = await lintWithoutRuns(dir, join(tmp.path, "home"));
  assert.deepEqual(findings.map((f) => `${f.rule} ${f.file}`), [
    "unreferenced-file assets/spare.png",
  ]);
});

Deno.test("a file the body names in a hidden folder of the skill is there; one it names that is missing is not", async () => {
  await using tmp = await tempDir();
  // A project bootstrapper's templates for the project's .claude/rules/, kept as assets.
  const dir = join(tmp.path, "kickoff");
  await writeSample(dir, {
    "SKILL.md":
      "---\nname: kickoff\ndescription: Sets up a project's agent rules. Use when a project starts.\n---\n" +
      "# Kickoff\n\nWrite `.claude/rules/api.md` from `assets/.claude/rules/api.md.template`, and\n" +
      "`.claude/rules/db.md` from `assets/.claude/rules/db.md.template`.\n",
    "assets/.claude/rules/api.md.template": "# API rules\n",
  });
  const { findings } = await lintWithoutRuns(dir, join(tmp.path, "home"));
  assert.deepEqual(findings.map((f) => `${f.rule} ${f.message}`), [
    "missing-file the body mentions assets/.claude/rules/db.md.template, which is not in the skill",
  ]);
});
