/**
 * The languages skills ship scripts in, told by file extension: Python (PEP 723 or
 * requirements.txt), shell, JavaScript and TypeScript. What a language needs to run is the
 * launcher's business (runtime/exec/sandbox.ts); here is only what a file is.
 */

export type ScriptLanguage = "python" | "bash" | "node" | "typescript";

const BY_EXTENSION: Readonly<Record<string, ScriptLanguage>> = {
  py: "python",
  sh: "bash",
  bash: "bash",
  js: "node",
  mjs: "node",
  cjs: "node",
  ts: "typescript",
};

/** `status.py` → `{ stem: "status", extension: "py", language: "python" }`; else undefined. */
export function splitScriptFile(
  file: string,
): { stem: string; extension: string; language: ScriptLanguage } | undefined {
  const dot = file.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const extension = file.slice(dot + 1).toLowerCase();
  if (!Object.hasOwn(BY_EXTENSION, extension)) return undefined;
  return { stem: file.slice(0, dot), extension, language: BY_EXTENSION[extension]! };
}

/** The language of a script file by its extension, or undefined when it is not one. */
export function scriptLanguage(file: string): ScriptLanguage | undefined {
  return splitScriptFile(file)?.language;
}

/** What a script of each language is run with, as `skills scripts` shows it. */
export const INTERPRETER_LABEL: Readonly<Record<ScriptLanguage, string>> = {
  python: "python",
  bash: "bash",
  node: "node",
  typescript: "deno",
};
