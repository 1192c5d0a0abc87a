/** Running python3 directly (bundled skill scripts, the Python unit tests) in tests. */

import type { CliResult } from "./cli.ts";

/**
 * Runs `python3 <args>` with a clean environment: PATH plus `env`, nothing else, no stdin.
 * Output is decoded as UTF-8.
 */
export async function runPython(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  const output = await new Deno.Command("python3", {
    args,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { PATH: Deno.env.get("PATH") ?? "", ...options.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The interpreter behind `python3` (a pyenv-style shim would add variables of its own). */
export async function realPython(): Promise<string> {
  const out = await new Deno.Command("python3", {
    args: ["-c", "import sys; print(sys.executable)"],
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}
