/**
 * The launch plan of a skill script: the program and argv that start it, by its language
 * (core/scripts/script_language.ts): Python's own way (./python.ts), else the first of the
 * language's runners on PATH. Never a shell line.
 */

import { findOnPath } from "../../os/probe.ts";
import {
  LANGUAGES,
  type RunnerProgram,
  type ScriptLanguage,
} from "../../../core/scripts/script_language.ts";
import { SkillError } from "../../../core/errors.ts";
import { planPython, type PythonLaunch } from "./python.ts";

export interface LaunchPlan {
  command: string;
  args: string[];
  /** Python's own (uv, python3, `python -m uv`) or a runner of the language table. */
  launcher: PythonLaunch["launcher"] | RunnerProgram;
  /** uv will fetch packages (PEP 723 dependencies or a requirements file): the index is granted. */
  fetchesPackages?: boolean;
  /** A help run started without packages it declares: raised if it fails (python.ts). */
  unmet?: SkillError;
}

/** The script to launch: its absolute path and language (catalog/contents.ts). */
interface LaunchScript {
  path: string;
  language?: ScriptLanguage | undefined;
}

/**
 * The launcher of a script, by language:
 * - Python: uv, or python3 when nothing needs installing ({@link planPython}).
 * - `.sh`/`.bash`: bash. `.js`/`.mjs`/`.cjs`: node, else deno. `.ts`: deno. Each found on
 *   PATH (the binary may start only those names), else `dependency_unavailable`.
 * `help`: the run asks the script for its help (python.ts runs it even with packages missing).
 */
export async function planLaunch(
  script: LaunchScript,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os = Deno.build.os,
  skillDir?: string,
  help = false,
): Promise<LaunchPlan> {
  const language = script.language ?? "python";
  if (language !== "python") return planOtherLanguage(script.path, language, args, env, os);
  return await planPython(script.path, args, env, os, skillDir, help);
}

/**
 * bash, node (or deno) and deno scripts: the first of the language's runners on PATH
 * (core/scripts/script_language.ts), never a shell line.
 */
function planOtherLanguage(
  scriptPath: string,
  language: Exclude<ScriptLanguage, "python">,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os,
): LaunchPlan {
  const spec = LANGUAGES[language];
  for (const runner of spec.runners) {
    if (!findOnPath(runner.program, env, os)) continue;
    return {
      command: runner.program,
      args: [...runner.args, scriptPath, ...args],
      launcher: runner.program,
    };
  }
  const needed = spec.runners.map((r) => r.program).join(" or ");
  throw new SkillError(
    "dependency_unavailable",
    `Cannot run ${scriptPath}: it needs ${needed}, which is not on PATH`,
    { hint: spec.install },
  );
}
