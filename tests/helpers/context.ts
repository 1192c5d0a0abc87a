/** A command's context for runtime tests: memory outputs, no terminal, no input. */

import { type Context, memoryOutput } from "../../src/core/io.ts";

/** A non-terminal context in `cwd` with exactly `env` (give SKILLS_HOME, HOME and PATH). */
export function memoryContext(env: Record<string, string>, cwd = "/"): Context & {
  stdout: ReturnType<typeof memoryOutput>;
  stderr: ReturnType<typeof memoryOutput>;
} {
  return {
    env,
    cwd,
    stdout: memoryOutput(),
    stderr: memoryOutput(),
    isTty: false,
    stdoutIsTty: false,
    signal: new AbortController().signal,
    verbose: false,
    color: false,
    readLine: () => Promise.resolve(null),
  };
}
