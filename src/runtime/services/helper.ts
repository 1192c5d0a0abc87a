/**
 * service_helper.py's three jobs, for the rest of the folder: what the binary's own
 * permissions cannot do (its `--allow-run` names programs, never itself; Deno.kill needs an
 * unscoped one; /proc is read only with every permission): start the supervisor detached, read
 * the boot id and processes' start ticks, signal a supervisor that is still the process it was.
 */

// @ts-types="../../generated/service_helper_py.d.ts"
import { SERVICE_HELPER_SOURCE } from "../../generated/service_helper_py.ts";
import { SkillError } from "../../core/errors.ts";
import { findOnPath } from "../os/probe.ts";

/**
 * The python3 the helper runs with (the caller's PATH; a change that fetches nothing passes
 * no environment, and still ends services: the helper's own default PATH then).
 */
function helperPython(env: Readonly<Record<string, string>>): string {
  const python = findOnPath("python3", { ...env, PATH: env.PATH ?? "/usr/bin:/bin" });
  if (python === undefined) {
    throw new SkillError(
      "dependency_unavailable",
      "Cannot control services: python3 is not on PATH (it supervises them)",
    );
  }
  return python;
}

async function runHelper(
  args: string[],
  env: Readonly<Record<string, string>>,
  options: { cwd?: string; passEnv?: boolean } = {},
): Promise<Deno.CommandOutput> {
  return await new Deno.Command(helperPython(env), {
    args: ["-I", "-c", SERVICE_HELPER_SOURCE, ...args],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.passEnv ? { ...env } : { PATH: env.PATH ?? "/usr/bin:/bin" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/** Starts `argv` detached, its output appended to `log`, with the caller's environment. */
export async function detach(
  argv: readonly string[],
  log: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
): Promise<number> {
  const output = await runHelper(["detach", log, ...argv], env, { cwd, passEnv: true });
  const pid = Number(new TextDecoder().decode(output.stdout).trim());
  if (!output.success || !Number.isInteger(pid) || pid <= 0) {
    throw new SkillError(
      "execution_failed",
      `Cannot start the service's supervisor: ${new TextDecoder().decode(output.stderr).trim()}`,
    );
  }
  return pid;
}

export interface Probe {
  bootId: string;
  /** Each pid's start tick, undefined when it is gone (or a zombie). */
  starts: Map<number, string | undefined>;
}

/** This boot's id and the start ticks of `pids`. */
export async function probe(
  pids: readonly number[],
  env: Readonly<Record<string, string>>,
): Promise<Probe> {
  const output = await runHelper(["probe", ...pids.map(String)], env);
  const parsed = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    boot_id: string;
    starts: Record<string, string | null>;
  };
  return {
    bootId: parsed.boot_id,
    starts: new Map(pids.map((pid) => [pid, parsed.starts[String(pid)] ?? undefined])),
  };
}

/** SIGTERM or SIGKILL to `pid` while it is still the process started at `start`. */
export async function signalProcess(
  pid: number,
  start: string,
  name: "TERM" | "KILL",
  env: Readonly<Record<string, string>>,
): Promise<void> {
  await runHelper(["signal", String(pid), start, name], env);
}
