/** The author's checks of core/audit/lint_checks.ts, as tables. */

import assert from "node:assert/strict";
import {
  helperModules,
  lintBody,
  lintDescription,
  lintMissingFiles,
  lintNameFolder,
  lintUnreferenced,
  MAX_BODY_TOKENS,
  mentionedPaths,
  missingModule,
  needsTokenCount,
} from "../../../src/core/audit/lint_checks.ts";

const rules = (findings: { rule: string }[]) => findings.map((f) => f.rule);

/** The scripts helperModules reads, from a `file → text` table. */
const sources = (table: Record<string, string>) =>
  Object.entries(table).map(([file, text]) => ({ file, text }));

Deno.test("lintDescription() wants what and when, in the third person, without vague words", () => {
  const table: [string, string[]][] = [
    [
      "Extracts tables and form fields from PDF files. Use when the user asks about a PDF.",
      [],
    ],
    [
      "Reads Kalshi market data. Use it for questions about prediction market prices.",
      [],
    ],
    ["PDF tool.", ["description-short", "description-when"]],
    [
      "I extract tables from PDF files whenever the user asks for the data in them.",
      ["description-first-person"],
    ],
    [
      "We convert documents to Markdown when a user uploads a Word or PDF file.",
      ["description-first-person"],
    ],
    [
      "Helps with various document things when the user needs something done with files.",
      ["description-vague"],
    ],
    [
      "Extracts tables and form fields from PDF files and writes them as CSV files.",
      ["description-when"],
    ],
    // The user's own words in the when, partly quoted: not the description speaking.
    [
      'Reviews code adversarially for correctness and design. Use when users ask to "critically review" my code or a PR.',
      [],
    ],
    // A need the user has, in the when: no vague word of what the skill does.
    [
      "Selects statistical tests and reports them in APA style. Use when you need help choosing a test for your data.",
      [],
    ],
    [
      "Helps with statistics. Use when you need help choosing a test for your data.",
      ["description-vague"],
    ],
    // A moment to use the skill is a when (trailofbits, dotnet, langchain and obra skills).
    [
      "Hunts for the other instances of a bug already found. Use immediately after a vulnerability turns up in one file.",
      [],
    ],
    ["Explores intent and design. You MUST use this before any creative work.", []],
    [
      "Analyzes MSBuild binary logs of failed builds. Only activate in an MSBuild build context.",
      [],
    ],
    ["Routes framework questions to the right guide. INVOKE FIRST for any LangChain project.", []],
    // Using a tool is no when.
    ["Uses Expo DOM components to run web code in a webview on native and web.", [
      "description-when",
    ]],
    // A quoted request holding an apostrophe is the user's words, not the description's.
    [
      "Routes every Expo task to its guide. Load this skill first when the request mentions Expo, as in 'I'm new to Expo, where do I start'.",
      [],
    ],
    // "US" is not "us"; "I/O" is not "I".
    [
      "Looks up US holidays and I/O schedules. Use when the user plans a trip or a release.",
      [],
    ],
  ];
  for (const [description, expected] of table) {
    assert.deepEqual(rules(lintDescription(description, 3)), expected, description);
  }
  assert.equal(lintDescription("PDF tool.", 3)[0]!.line, 3);
  // The when in `when_to_use`: still a warning, since only some agents read that field.
  const split = lintDescription(
    "Extracts tables and form fields from PDF files and writes them as CSV files.",
    3,
    "when a PDF is attached",
  );
  assert.deepEqual(rules(split), ["description-when"]);
  assert.match(split[0]!.message, /'when_to_use' does, which Claude Code and skills read/);
});

Deno.test("lintBody() flags more than 500 lines and, when counted, more than 5,000 tokens", () => {
  assert.deepEqual(lintBody("line\n".repeat(499), 6, undefined), []);
  assert.deepEqual(rules(lintBody("line\n".repeat(501), 6, undefined)), ["body-lines"]);
  assert.deepEqual(rules(lintBody("short", 6, MAX_BODY_TOKENS + 1)), ["body-tokens"]);
  assert.deepEqual(lintBody("short", 6, MAX_BODY_TOKENS), []);
  // A token is at least one byte: up to 5,000 bytes need no tokenizer.
  assert.equal(needsTokenCount(5000), false);
  assert.equal(needsTokenCount(5001), true);
});

Deno.test("mentionedPaths() finds link targets and resource paths, not URLs or anchors", () => {
  const body = [
    "See [the guide](references/guide.md#setup) and ![logo](./assets/logo.png).",
    "Run `python scripts/extract.py --help`; read https://example.com/x.md and [top](#top).",
    "[mail](mailto:a@b.c) [abs](/etc/passwd) [spaced](references/a%20b.md)",
  ].join("\n");
  assert.deepEqual(mentionedPaths(body, 10), [
    { path: "references/guide.md", line: 10 },
    { path: "assets/logo.png", line: 10 },
    { path: "references/guide.md", line: 10 },
    { path: "scripts/extract.py", line: 11 },
    { path: "references/a b.md", line: 12 },
  ]);
});

Deno.test("mentionedPaths() skips example paths: code blocks and paths the agent is not told to open", () => {
  const body = [
    "Add a `references/citations` section to the report.",
    "A script such as `scripts/rotate_pdf.py` would take the page number.",
    "```",
    "python scripts/example_tool.py",
    "```",
    "Run `scripts/real.py` to convert.",
  ].join("\n");
  assert.deepEqual(mentionedPaths(body, 1), [{ path: "scripts/real.py", line: 6 }]);
});

Deno.test("mentionedPaths() skips a link written inside a code span, and an ellipsis for a target", () => {
  const body = [
    // terrylica's issue-create: how an upload looks, not a link of the skill.
    "Use an HTML `<img>` tag, not `![](...)` markdown, and not ``[x](notes.md)`` either.",
    "Fill in [the form](...) later; see [the guide](references/guide.md) now.",
    "`code` then [real](assets/real.png) after it.",
  ].join("\n");
  assert.deepEqual(mentionedPaths(body, 1), [
    { path: "references/guide.md", line: 2 },
    { path: "references/guide.md", line: 2 },
    { path: "assets/real.png", line: 3 },
  ]);
});

Deno.test("mentionedPaths() closes a fenced block as CommonMark does: a longer or other fence holds shorter ones", () => {
  const body = [
    // Gamaroff's qa-review shows a story file, its own code block and links inside.
    "````markdown",
    "## Bug Reports",
    "```",
    "[Paste logs]",
    "```",
    "- [Bug 1](story.8.5.3.bug.1.leak.md)",
    "````",
    "~~~",
    "```",
    "[inside tildes](notes/tilde.md)",
    "~~~",
    "1. A step:",
    "     ```bash",
    "     run scripts/example.py",
    "     ```",
    "See [the guide](references/guide.md).",
  ].join("\n");
  assert.deepEqual(mentionedPaths(body, 1), [
    { path: "references/guide.md", line: 16 },
    { path: "references/guide.md", line: 16 },
  ]);
});

Deno.test("mentionedPaths() reads {baseDir}/ as the skill's folder and skips other placeholders", () => {
  const body = [
    "Consult [verification]({baseDir}/references/verify.md) first.",
    "Helpers: [{baseDir}/resources/helpers.py](${CLAUDE_SKILL_DIR}/resources/helpers.py).",
    "Each generated skill lives at [its folder]({skill-name}/SKILL.md).",
  ].join("\n");
  assert.deepEqual(mentionedPaths(body, 1), [
    { path: "references/verify.md", line: 1 },
    { path: "resources/helpers.py", line: 2 },
  ]);
});

Deno.test("lintDescription() ignores quoted requests, code and model ids in the first-person check", () => {
  const quoted = lintDescription(
    'Deploys web apps to the cloud. Use when the user says "deploy my app" or asks for `my-config`; works with us.anthropic.claude-3 models.',
    3,
  );
  assert.deepEqual(quoted.filter((f) => f.rule === "description-first-person"), []);
  const own = lintDescription(
    "I deploy web apps to the cloud. Use when the user asks to deploy.",
    3,
  );
  assert.equal(own.filter((f) => f.rule === "description-first-person").length, 1);
});

Deno.test("lintMissingFiles() reports each mentioned file or folder the skill lacks, once", () => {
  const files = ["SKILL.md", "references/guide.md", "scripts/extract.py"];
  const mentions = [
    { path: "references/guide.md", line: 5 },
    { path: "references", line: 5 },
    { path: "scripts/missing.py", line: 7 },
    { path: "scripts/missing.py", line: 9 },
    { path: "../other/SKILL.md", line: 9 },
  ];
  const found = lintMissingFiles(mentions, files);
  assert.deepEqual(found.map((f) => [f.rule, f.level, f.line]), [["missing-file", "error", 7]]);
  assert.match(found[0]!.message, /scripts\/missing\.py/);
  // Found beside the skill (its plugin's scripts/): a warning that says where.
  const beside = lintMissingFiles(
    mentions,
    files,
    (path) => path === "scripts/missing.py" ? "../../scripts/missing.py" : undefined,
  );
  assert.deepEqual(beside.map((f) => [f.rule, f.level, f.line]), [
    ["file-outside-skill", "warning", 7],
  ]);
  assert.match(beside[0]!.message, /not in the skill but at \.\.\/\.\.\/scripts\/missing\.py/);
});

Deno.test("mentionedPaths() skips a link to a bare lower-case word, an example's placeholder", () => {
  // github/awesome-copilot's create-llms and md-to-docx, OpenAI's plugins: `[text](relative-url)`.
  const body =
    "Write links as [title](relative-url) or [x](path); see [the guide](references/guide.md) " +
    "and [the licence](LICENSE).";
  assert.deepEqual([...new Set(mentionedPaths(body, 1).map((m) => m.path))], [
    "references/guide.md",
    "LICENSE",
  ]);
});

Deno.test("mentionedPaths() skips a path quoted as a string in inline code, an example of the user's code", () => {
  // UiPath's uipath-coded-apps: the app's asset, imported in the app's own code.
  const body = [
    "Import static assets through the bundler (`import logo from './assets/logo.png'`).",
    "Then run `scripts/build.mjs` and read 'references/guide.md'.",
  ].join("\n");
  assert.deepEqual(mentionedPaths(body, 1).map((m) => m.path), [
    "scripts/build.mjs",
    "references/guide.md",
  ]);
});

Deno.test("a wildcard path names the files it matches: whole, and an error only when it matches none", () => {
  // UiPath's uipath-review: "load … (`references/agents/agents-*-rules.md`)".
  const body = [
    "Load the judgment catalog (`references/agents/agents-*-rules.md`).",
    "Then read references/**/checklist.md and see references/agents/*.yaml.",
  ].join("\n");
  const mentions = mentionedPaths(body, 1);
  assert.deepEqual(mentions.map((m) => m.path), [
    "references/agents/agents-*-rules.md",
    "references/**/checklist.md",
    "references/agents/*.yaml",
  ]);
  const files = [
    "SKILL.md",
    "references/agents/agents-coded-rules.md",
    "references/agents/agents-lowcode-rules.md",
    "references/rpa/deep/checklist.md",
    "references/module-1-slash-commands.md",
  ];
  // A lone capital between separators is a placeholder (github/awesome-copilot's cli-mastery).
  assert.deepEqual(lintMissingFiles([{ path: "references/module-N-*.md", line: 9 }], files), []);
  const found = lintMissingFiles(mentions, files);
  assert.deepEqual(found.map((f) => [f.rule, f.line, f.message]), [
    [
      "missing-file",
      2,
      "the body mentions references/agents/*.yaml, which matches no file of the skill",
    ],
  ]);
});

Deno.test("a placeholder in a resource path is a wildcard; a link into a dot-folder the skill lacks is the project's file", () => {
  const body = [
    "Per-schema definitions live in `references/schema-<id>.json` (one a sector).",
    "Then read references/schemas/{prefix}/<schema>.md for the operation.",
    '  "Diagram truncated; see [full lineage](.dbt-wiki/lineage.md) for the whole graph"',
    "Settings are in [the config](.config/settings.md).",
  ].join("\n");
  const mentions = mentionedPaths(body, 1);
  assert.deepEqual(mentions.map((m) => m.path), [
    "references/schema-*.json",
    "references/schemas/*/*.md",
    ".dbt-wiki/lineage.md",
    ".config/settings.md",
  ]);
  const files = ["SKILL.md", "references/schema-bank.json", ".config/other.md"];
  // The schemas folder is missing for real; the wiki folder is the one the skill writes in the
  // user's project; a dot-folder the skill ships is still its own, and checked.
  assert.deepEqual(lintMissingFiles(mentions, files).map((f) => [f.line, f.message]), [
    [2, "the body mentions references/schemas/*/*.md, which matches no file of the skill"],
    [4, "the body mentions .config/settings.md, which is not in the skill"],
  ]);
});

Deno.test("a link to a web address without its https:// is a missing file that says so", () => {
  const mentions = mentionedPaths(
    "See [the overview](docs.claude.com/en/docs/agent-skills/overview) and [notes](notes.md).\n",
    1,
  );
  assert.deepEqual(lintMissingFiles(mentions, ["SKILL.md"]).map((f) => f.message), [
    "the body mentions docs.claude.com/en/docs/agent-skills/overview, which is not in the skill; a web address needs its https:// (a link without it is a file of the skill)",
    "the body mentions notes.md, which is not in the skill",
  ]);
});

Deno.test("lintMissingFiles() names the skill's file of the same name, the path most often mistyped", () => {
  // K-Dense's neuropixels-analysis: `reference/standard_workflow.md` for references/.
  const files = ["SKILL.md", "references/standard_workflow.md", "a/notes.md", "b/notes.md"];
  const found = lintMissingFiles([
    { path: "reference/standard_workflow.md", line: 3 },
    { path: "references/notes.md", line: 4 },
    { path: "references/absent.md", line: 5 },
  ], files);
  assert.deepEqual(found.map((f) => f.message), [
    "the body mentions reference/standard_workflow.md, which is not in the skill; did you mean references/standard_workflow.md?",
    // Two of that name: no guess.
    "the body mentions references/notes.md, which is not in the skill",
    "the body mentions references/absent.md, which is not in the skill",
  ]);
});

Deno.test("lintUnreferenced() wants every reference, asset and script mentioned somewhere", () => {
  const docs = [
    { path: "SKILL.md", text: "Read references/guide.md. Run `extract` for tables." },
    { path: "references/guide.md", text: "The palette is in palette.json." },
  ];
  const files = [
    "SKILL.md",
    "references/guide.md",
    "references/orphan.md",
    "assets/palette.json",
    "scripts/extract.py",
    "scripts/unused.py",
    "LICENSE.txt",
  ];
  const scripts = [{ file: "extract.py", name: "extract" }, { file: "unused.py", name: "unused" }];
  assert.deepEqual(lintUnreferenced(docs, files, scripts).map((f) => f.file), [
    "references/orphan.md",
    "scripts/unused.py",
  ]);
});

Deno.test("lintNameFolder() compares the name with the folder", () => {
  assert.deepEqual(lintNameFolder("pdf", "pdf", 2), []);
  assert.deepEqual(rules(lintNameFolder("pdf", "pdf-tools", 2)), ["name-folder"]);
});

Deno.test("helperModules(): modules are told from commands by guard, imports and top level", () => {
  const modules = helperModules(
    sources({
      "build.py": "from utils import slug\nif __name__ == '__main__':\n    print(slug('a'))\n",
      "utils.py": "import re\n\ndef slug(t):\n    return re.sub('x', '-', t)\n",
      // Imported, with a guard, and named by the documents: also a command.
      "both.py": 'def f(): pass\nif __name__ == "__main__":\n    f()\n',
      "uses_both.py": "import both\nboth.f()\n",
      // Imported with a guard (a self-test) but never named: a module.
      "check.py": 'def run(): pass\nif __name__ == "__main__":\n    run()\n',
      "package_it.py": "from scripts.check import run\nrun()\n",
      // A package: its __init__ imports the modules, a command imports the package.
      "office/validate.py": "from validators import V\nV()\n",
      "office/validators/__init__.py":
        "from .base import V\nfrom .redline import (\n    R,\n)\nfrom .docx import D\n",
      "office/validators/redline.py": "R = 1\nif __name__ == '__main__':\n    print(R)\n",
      "office/validators/docx.py": "D = 1\nif __name__ == '__main__':\n    print(D)\n",
      "office/validators/base.py": "class V:\n    pass\n\nif __name__ == '__main__':\n    V()\n",
      // No guard, but top-level code: a command.
      "quick.py": "import sys\nprint(sys.version)\n",
      "cli.py": "import argparse\nparser = argparse.ArgumentParser()\nargs = parser.parse_args()\n",
      // No guard, nothing imports it, only definitions (a docstring, a multi-line constant).
      "consts.py": '"""Shared."""\nX = {\n    "a": 1,\n}\nY = """\nprint(1)\n"""\n',
      "office/pack.py": "from helpers.ooxml import NS\nprint(NS)\n",
      "office/helpers/ooxml.py": "NS = {}\n",
      "run.sh": '#!/bin/sh\nsource "$(dirname "$0")/lib.sh"\nmain "$@"\n',
      "lib.sh": "main() { echo hi; }\n",
      "report.ts": "import { fmt } from './lib/fmt.ts';\nconsole.log(fmt(Deno.args));\n",
      "lib/fmt.ts": "export const fmt = (a: string[]) => a.join(' ');\n",
      "tool.mjs": "export function f() {}\nif (import.meta.main) f();\n",
    }),
    (file) => file === "both.py",
  );
  assert.deepEqual(Object.fromEntries(modules), {
    "utils.py": "imported by scripts/build.py",
    "check.py": "imported by scripts/package_it.py",
    "office/validators/base.py": "imported by scripts/office/validators/__init__.py",
    "office/validators/redline.py": "imported by scripts/office/validators/__init__.py",
    "office/validators/docx.py": "imported by scripts/office/validators/__init__.py",
    "office/validators/__init__.py": "imported by scripts/office/validate.py",
    "consts.py": "its top level only imports and defines",
    "office/helpers/ooxml.py": "imported by scripts/office/pack.py",
    "lib.sh": "sourced by scripts/run.sh",
    "lib/fmt.ts": "imported by scripts/report.ts",
  });
});

Deno.test("missingModule() reads Python, Node.js and Deno failures", () => {
  assert.equal(
    missingModule("Traceback ...\nModuleNotFoundError: No module named 'docx.shared'"),
    "docx",
  );
  assert.equal(missingModule("Error: Cannot find module 'pptxgenjs'\nRequire stack:"), "pptxgenjs");
  assert.equal(missingModule('error: Relative import path "zod" not prefixed with / or ./'), "zod");
  assert.equal(missingModule("Script failed with exit code 2\nusage: x"), undefined);
});
