/**
 * The languages skills ship scripts in, as one table: a language is one row (its file
 * extensions, the interpreters a `#!` line may name, the programs that run it in order of
 * preference, the label `skills scripts` shows and what to install when none is there).
 * Launching (runtime/exec/languages/launch_plan.ts) and the binary's `--allow-run` list (deno.json, checked
 * by tests/architecture) are read from here; Python's dependency handling (uv, PEP 723,
 * requirements.txt) is the launcher's own. Adding a language is adding a row.
 */

interface LanguageSpec {
  /** Lower-case extensions without the dot. */
  extensions: readonly string[];
  /** Interpreter names a `#!` line may give (`#!/usr/bin/env node`, `#!/bin/bash`). */
  shebang: readonly string[];
  /**
   * The programs that run a script, tried in order on PATH (the binary may start only
   * these names): `{ program, args }` where `args` come before the script's path.
   */
  runners: readonly { program: string; args: readonly string[] }[];
  /** What `skills scripts` and `script_list` say runs it. */
  label: string;
  /** Said when no runner is on PATH. */
  install: string;
  /**
   * Names that start an entry of an install prefix's `lib/` when the prefix is this
   * language's (`lib/python3.12`, `lib/node_modules`): the sandbox shows such a prefix whole
   * for its runner (runtime/sandbox/toolchain.ts), not the runner's file alone.
   */
  prefixLib?: readonly string[];
}

export const LANGUAGES = {
  python: {
    extensions: ["py"],
    shebang: ["python"],
    // uv first when the script needs packages (runtime/exec/languages/python.ts decides).
    runners: [{ program: "uv", args: ["run", "--script"] }, { program: "python3", args: [] }, {
      program: "python",
      args: [],
    }],
    label: "python",
    install: "Install Python 3 (or uv), or set SKILLS_PYTHON to the interpreter",
    prefixLib: ["python"],
  },
  bash: {
    extensions: ["sh", "bash"],
    shebang: ["bash", "sh"],
    runners: [{ program: "bash", args: [] }],
    label: "bash",
    install: "Install bash",
  },
  node: {
    extensions: ["js", "mjs", "cjs"],
    shebang: ["node", "nodejs"],
    // Deno without prompts (there is no terminal to ask on); the sandbox is the boundary.
    runners: [{ program: "node", args: [] }, {
      program: "deno",
      args: ["run", "--allow-all", "--no-prompt"],
    }],
    label: "node",
    install: "Install Node.js (https://nodejs.org/) or Deno (https://deno.com/)",
    prefixLib: ["node_modules"],
  },
  typescript: {
    extensions: ["ts"],
    shebang: ["deno"],
    // Sloppy imports: TypeScript written for Node imports a sibling module under its compiled
    // `.js` name (the NodeNext convention, as tsc and tsx resolve it), which Deno resolves only so.
    // The flag's first spelling: Deno 1.39 and later take it (`--sloppy-imports` only 2.4 on).
    runners: [{
      program: "deno",
      args: ["run", "--allow-all", "--no-prompt", "--unstable-sloppy-imports"],
    }],
    label: "deno",
    install: "Install Deno (https://deno.com/)",
  },
} as const satisfies Readonly<Record<string, LanguageSpec>>;

/** A language of the table: `python`, `bash`, `node`, `typescript`. */
export type ScriptLanguage = keyof typeof LANGUAGES;

/** A program a language's runner starts (`uv`, `python3`, `bash`, …), as the table names it. */
export type RunnerProgram = (typeof LANGUAGES)[ScriptLanguage]["runners"][number]["program"];

/** Programs the CLI itself starts besides the languages' runners (git, the sandbox, ssh-keygen). */
const OWN_PROGRAMS = ["git", "bwrap", "ssh-keygen"];

/** Every program a language's runner starts (uv, python3, python, bash, node, deno), once each. */
export function runnerPrograms(): RunnerProgram[] {
  const programs: RunnerProgram[] = [];
  for (const spec of Object.values(LANGUAGES)) {
    for (const { program } of spec.runners) if (!programs.includes(program)) programs.push(program);
  }
  return programs;
}

/** Every program name the binary may start: its `--allow-run` list, in a stable order. */
export function allowedPrograms(): string[] {
  return [...OWN_PROGRAMS, ...runnerPrograms().filter((p) => !OWN_PROGRAMS.includes(p))];
}

const BY_EXTENSION = new Map<string, ScriptLanguage>(
  (Object.entries(LANGUAGES) as [ScriptLanguage, LanguageSpec][]).flatMap(([language, spec]) =>
    spec.extensions.map((extension) => [extension, language] as const)
  ),
);

/** `status.py` → `{ stem: "status", extension: "py", language: "python" }`; else undefined. */
export function splitScriptFile(
  file: string,
): { stem: string; extension: string; language: ScriptLanguage } | undefined {
  const dot = file.lastIndexOf(".");
  if (dot <= 0 || file.lastIndexOf("/") > dot) return undefined;
  const extension = file.slice(dot + 1).toLowerCase();
  const language = BY_EXTENSION.get(extension);
  if (language === undefined) return undefined;
  return { stem: file.slice(0, dot), extension, language };
}

/**
 * The language a `#!` first line names (`#!/usr/bin/env bash`, `#!/bin/sh`,
 * `#!/usr/bin/env -S deno run`), or undefined: how an extension-less script is told.
 */
export function shebangLanguage(firstLine: string): ScriptLanguage | undefined {
  const match = /^#!\s*(\S+)(.*)$/.exec(firstLine.trim());
  if (match === null) return undefined;
  let program = match[1]!.split("/").pop()!;
  if (program === "env") {
    // `env [-S] [VAR=value…] program`: the first word that is neither an option nor an assignment.
    program = match[2]!.trim().split(/\s+/).find((word) =>
      word !== "" && !word.startsWith("-") && !word.includes("=")
    ) ?? "";
  }
  program = program.replace(/(?<=[a-z])[\d.]+$/, ""); // python3.11, python3 → python
  for (const [language, spec] of Object.entries(LANGUAGES) as [ScriptLanguage, LanguageSpec][]) {
    if (spec.shebang.includes(program)) return language;
  }
  return undefined;
}
