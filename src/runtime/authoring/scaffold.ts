/**
 * `skills init`: the files of a new skill (pure) and writing them without ever
 * overwriting anything (I/O). The scaffold passes `skills validate --strict` and its
 * script runs with `skills run` straight away.
 */

import { dirname, join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName, qualifiedToolName, quoteName } from "../../core/names.ts";
import { lstatOrNull } from "../os/fs.ts";

interface ScaffoldFile {
  /** Relative path with `/` separators. */
  path: string;
  content: string;
  executable?: boolean;
}

interface ScaffoldPlan {
  name: string;
  /** Script file name, e.g. `demo.py`. */
  script: string;
  /** `module.path:Class` when a toolset is scaffolded. */
  toolset?: string;
  files: ScaffoldFile[];
}

const SPEC_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The canonical, spec-valid name for a new skill (`My_Skill` → `my-skill`); throws
 * `invalid_name` for anything `skills validate --strict` would refuse.
 */
export function scaffoldName(input: string): string {
  const canonical = canonicalSkillName(input);
  if (!SPEC_NAME.test(canonical)) {
    throw new SkillError(
      "invalid_name",
      `Invalid skill name: '${
        quoteName(input)
      }' (use lower-case letters and digits joined by single hyphens)`,
      { hint: "For example: `skills init weather-report`" },
    );
  }
  return canonical;
}

/** `my-skill` → `my_skill` (a Python identifier; `3d` → `skill_3d`). */
function pythonModule(name: string): string {
  const snake = name.replaceAll("-", "_");
  return /^[0-9]/.test(snake) ? `skill_${snake}` : snake;
}

/** `my-skill` → `MySkillTools`. */
function className(name: string): string {
  const pascal = name.split("-").map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join("");
  return /^[0-9]/.test(pascal) ? `Skill${pascal}Tools` : `${pascal}Tools`;
}

function title(name: string): string {
  return name.split("-").map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(" ");
}

/** Every file of a new skill. Pure. `name` must already be canonical (see scaffoldName). */
export function planScaffold(name: string, options: { withToolset?: boolean } = {}): ScaffoldPlan {
  const module = pythonModule(name);
  const script = `${module}.py`;
  const files: ScaffoldFile[] = [];
  let toolset: string | undefined;
  if (options.withToolset) {
    const cls = className(name);
    toolset = `toolsets.${module}:${cls}`;
    files.push(
      { path: "toolsets/__init__.py", content: "" },
      { path: `toolsets/${module}.py`, content: toolsetPy(name, cls) },
      { path: `tests/test_${module}.py`, content: toolsetTestPy(module, cls) },
    );
  }
  files.unshift(
    { path: "SKILL.md", content: skillMd(name, script, toolset) },
    { path: `scripts/${script}`, content: scriptPy(name, script), executable: true },
    { path: ".gitignore", content: "__pycache__/\n*.pyc\n" },
  );
  return toolset === undefined ? { name, script, files } : { name, script, toolset, files };
}

function skillMd(name: string, script: string, toolset?: string): string {
  const stem = script.slice(0, -3);
  const metadata = toolset === undefined ? "" : `metadata:\n  toolsets: "${toolset}"\n`;
  const toolsetSection = toolset === undefined ? "" : `
## Toolset tools (called directly once the skill is active)

- \`${qualifiedToolName(name, "greet")}(name, excited=false)\` — one greeting, e.g. \`Hello, Ada!\`.

Each returns \`{"success": true, "result": ..., "message": ...}\` or
\`{"success": false, "error": "<code>", "message": ...}\`.
`;
  return `---
name: ${name}
description: Greets someone by name. Use when the user asks for a greeting. Replace this with what your skill does and when an agent should use it.
compatibility: Requires Python 3.10+ (standard library only)
${metadata}---

# ${title(name)}

Use this skill when the user asks for a greeting. Replace these instructions with the
steps an agent should follow: which script to run for what, in which order, and the
facts it would otherwise get wrong. Name every file the skill ships that the agent
should know about.

## Script (via \`script_help\` / \`script_run\`)

\`${stem}\` greets someone (run it with \`--help\` for every option):

- \`--name NAME\` — who to greet (default \`World\`)
- \`--json\` — print one JSON object: \`{"greeting": "...", "name": "..."}\`

\`\`\`bash
skills run ${name} ${stem} --name Ada --json
\`\`\`

On bad input the script exits non-zero; with \`--json\` it prints \`{"error": "..."}\`.
${toolsetSection}`;
}

function scriptPy(name: string, script: string): string {
  return `#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Greet someone by name: the starting point of the ${name} skill's script.

It runs in the user's directory (the workspace): open the paths the user gives as
given, find files the skill ships from this file (Path(__file__)), write scratch files
to $SKILLS_WORK_DIR and caches to $XDG_CACHE_HOME. Declare every package it imports in
the block above. \`skills lint --guide\` prints the guide for skill authors.
"""

from __future__ import annotations

import argparse
import json
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="${script}",
        description="Greet someone by name.",
        epilog="Example: ${script} --name Ada --json",
    )
    parser.add_argument("--name", default="World", help="who to greet (default World)")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def fail(message: str, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"error": message}))
    else:
        print(f"Error: {message}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    args = build_parser().parse_args(argv)
    name = args.name.strip()
    if not name:
        return fail("--name must not be empty", args.json)
    greeting = f"Hello, {name}!"
    if args.json:
        print(json.dumps({"greeting": greeting, "name": name}, ensure_ascii=False))
    else:
        print(greeting)
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;
}

function toolsetPy(name: string, cls: string): string {
  return `"""${cls}: the typed toolset of the ${name} skill.

Every public method is a tool. Type hints (with \`Annotated\` descriptions) and the
docstring describe it to the model. Return the standard envelope and never raise.
"""

from __future__ import annotations

from typing import Annotated, Any


def _success(result: Any, message: str) -> dict:
    return {"success": True, "result": result, "message": message}


def _error(code: str, message: str) -> dict:
    return {"success": False, "error": code, "message": message}


class ${cls}:
    """Tools of the ${name} skill."""

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def greet(
        self,
        name: Annotated[str, "Name of the person to greet"],
        excited: Annotated[bool, "End with three exclamation marks"] = False,
    ) -> dict:
        """Greet one person by name.

        Returns the greeting text as \`result\`, e.g. "Hello, Ada!".
        """
        if not isinstance(name, str) or not name.strip():
            return _error("invalid_input", "name must be a non-empty string")
        greeting = f"Hello, {name.strip()}{'!!!' if excited else '!'}"
        return _success(greeting, f"Greeted {name.strip()}")
`;
}

function toolsetTestPy(module: string, cls: string): string {
  return `"""Unit tests for ${cls}. Run from the skill folder: python3 -m unittest discover -s tests"""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolsets.${module} import ${cls}  # noqa: E402


class ${cls}Test(unittest.TestCase):
    def setUp(self) -> None:
        self.tools = ${cls}()

    def test_greet_returns_a_success_envelope(self) -> None:
        self.assertEqual(
            self.tools.greet("Ada"),
            {"success": True, "result": "Hello, Ada!", "message": "Greeted Ada"},
        )

    def test_greet_excited(self) -> None:
        self.assertEqual(self.tools.greet(" Ada ", excited=True)["result"], "Hello, Ada!!!")

    def test_greet_rejects_an_empty_name(self) -> None:
        result = self.tools.greet("  ")
        self.assertFalse(result["success"])
        self.assertEqual(result["error"], "invalid_input")


if __name__ == "__main__":
    unittest.main()
`;
}

/**
 * Writes the plan as `<parent>/<name>`. Refuses an existing path (`conflict`); files
 * are written into a hidden sibling first and renamed into place, so a failure never
 * leaves a half-made skill behind. Returns the skill directory.
 */
export async function writeScaffold(parent: string, plan: ScaffoldPlan): Promise<string> {
  const target = join(parent, plan.name);
  const refuse = () =>
    new SkillError("conflict", `Cannot create skill "${plan.name}": ${target} already exists`, {
      hint: "Choose another name or --dir; skills init never overwrites anything",
    });
  if (await lstatOrNull(target)) throw refuse();
  const parentInfo = await lstatOrNull(parent);
  if (parentInfo === null || !parentInfo.isDirectory) {
    throw new SkillError(
      "not_found",
      `Cannot create skill "${plan.name}": directory ${parent} does not exist`,
      { hint: "Create it first or pass an existing --dir" },
    );
  }
  const staging = await Deno.makeTempDir({ dir: parent, prefix: `.${plan.name}.init-` });
  try {
    for (const file of plan.files) {
      const path = join(staging, ...file.path.split("/"));
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeTextFile(path, file.content, { createNew: true });
      if (Deno.build.os !== "windows") await Deno.chmod(path, file.executable ? 0o755 : 0o644);
    }
    if (Deno.build.os !== "windows") await Deno.chmod(staging, 0o755); // makeTempDir made it 0700
    if (await lstatOrNull(target)) throw refuse(); // created meanwhile
    await Deno.rename(staging, target);
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
  return target;
}
