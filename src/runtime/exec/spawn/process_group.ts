/**
 * Policy mode's spawn: the script's process leads its own process group so that the whole
 * tree (uv → python → any grandchild) can be killed.
 *
 * Killing a tree under the binary's scoped `--allow-run=…,uv,python3,python,…`:
 * `Deno.kill` (any pid, incl. `-pgid`) requires *unscoped* --allow-run and reading /proc
 * requires --allow-all, so neither is available to the compiled binary. What is: the
 * `ChildProcess.kill()` of our own child, and spawning python. So the child is spawned
 * with `detached: true` (on Unix Deno calls setsid(): the child leads a new session and
 * process group), and `killTree()` runs a tiny python helper that freezes and SIGKILLs
 * every process of that group/session plus any ppid-descendant that left it (Linux
 * /proc walk; elsewhere `killpg`). If no python can be spawned it falls back to
 * `Deno.kill(-pgid)` (works under unscoped permissions) and finally kills the direct child.
 * Windows: only the direct child is killed (`taskkill /T` is not in the binary's
 * allow-run list).
 */

import { findOnPath } from "../../os/probe.ts";
import { isAbsolute } from "../../os/paths.ts";
import { allowedPrograms, LANGUAGES } from "../../../core/scripts/script_language.ts";
import { SkillError } from "../../../core/errors.ts";
import type { LaunchPlan } from "../languages/launch_plan.ts";
import { UV_HINT } from "../languages/python.ts";

/** A started script (in the OS sandbox or policy mode's process group). */
export interface LaunchedProcess {
  readonly pid: number;
  readonly child: Deno.ChildProcess;
  /** The names of the variables the script starts with (the receipt's `env`). */
  readonly envNames?: string[] | undefined;
  /** Kills the child and every process it started; safe to call more than once. */
  killTree(): Promise<void>;
  /**
   * Waits for the child to exit, then cleans up after it (the OS sandbox's work folder and
   * proxy). Safe to call more than once.
   */
  release(): Promise<void>;
}

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: "piped" | "null";
}

/**
 * Spawns `plan` with an argv array (never a shell), a cleared environment plus `env`,
 * and piped stdout/stderr. On Unix the child leads its own session and process group.
 * Throws `dependency_unavailable` when the launcher cannot be started.
 */
export function spawnProcessGroup(plan: LaunchPlan, options: SpawnOptions): LaunchedProcess {
  const windows = Deno.build.os === "windows";
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(plan.command, {
      args: plan.args,
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: options.stdin ?? "null",
      stdout: "piped",
      stderr: "piped",
      detached: !windows,
    }).spawn();
  } catch (error) {
    throw launchError(plan, error);
  }
  const pid = child.pid;
  let killing: Promise<void> | undefined;
  const killTree = () => {
    killing ??= (async () => {
      if (!windows) {
        const helped = await runKillHelper(pid, plan, options.env);
        if (!helped) {
          try {
            Deno.kill(-pid, "SIGKILL");
          } catch { /* needs unscoped --allow-run; the direct child is killed below */ }
        }
      }
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
    })();
    return killing;
  };
  const release = () => child.status.then(() => {}, () => {});
  return { pid, child, killTree, release };
}

function launchError(plan: LaunchPlan, error: unknown): SkillError {
  const name = plan.launcher === "uv" ? "uv" : plan.command;
  if (error instanceof Deno.errors.NotFound) {
    const language = (Object.values(LANGUAGES)).find((spec) =>
      spec.runners.some((r) => r.program === plan.launcher)
    );
    return new SkillError("dependency_unavailable", `Cannot start ${name}: it is not installed`, {
      hint: plan.launcher === "uv" ? UV_HINT : language?.install ?? LANGUAGES.python.install,
    });
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    const names = allowedPrograms().filter((p) => !["git", "bwrap", "ssh-keygen"].includes(p));
    return new SkillError(
      "dependency_unavailable",
      `Cannot start ${plan.command}: ${(error as Error).message}`,
      {
        hint: `The skills binary may only run ${
          names.map((n) => `\`${n}\``).join(", ")
        } as found on PATH; point SKILLS_UV/SKILLS_PYTHON at those`,
      },
    );
  }
  return new SkillError(
    "execution_failed",
    `Cannot start ${plan.command}: ${(error as Error)?.message ?? String(error)}`,
  );
}

/**
 * Runs the kill helper (kill_helper.py beside this file, embedded at build time) with the
 * first python that starts; false when none does.
 */
async function runKillHelper(
  root: number,
  plan: LaunchPlan,
  env: Record<string, string>,
): Promise<boolean> {
  const candidates: [string, string[]][] = [];
  const add = (command: string, prefix: string[] = []) => {
    if (!candidates.some(([c, p]) => c === command && p.join(" ") === prefix.join(" "))) {
      candidates.push([command, prefix]);
    }
  };
  // Absolute interpreters, found on PATH's absolute entries, never in the user's directory.
  const absolute = (name: string) => isAbsolute(name) ? name : findOnPath(name, env) ?? name;
  if (plan.launcher === "python3") add(absolute(plan.command));
  add(absolute("python3"));
  add(absolute("python"));
  if (plan.launcher === "uv") {
    add(absolute(plan.command), ["run", "--no-project", "--quiet", "python"]);
  }
  // The helper shares our process group, so it must not watch us (parent_watch.ts).
  const { SKILLS_PARENT_PID: _, ...helperEnv } = env;
  // Loaded only when a tree must be killed: a script that exits by itself never needs it.
  const { KILL_HELPER_SOURCE }: typeof import("../../../generated/kill_helper_py.d.ts") =
    await import(
      "../../../generated/kill_helper_py.ts"
    );
  for (const [command, prefix] of candidates) {
    try {
      // -I: no working directory or script directory on sys.path, no PYTHON* variables, no
      // user site: a signal.py where the user stands is never imported. cwd "/" as well.
      const status = await new Deno.Command(command, {
        args: [...prefix, "-I", "-c", KILL_HELPER_SOURCE, String(root)],
        cwd: "/",
        env: helperEnv,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      if (status.success) return true;
    } catch { /* try the next one */ }
  }
  return false;
}
