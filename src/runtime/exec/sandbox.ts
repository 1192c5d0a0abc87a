/**
 * Launching a skill script: choosing the launcher (uv or python3), building the
 * environment (clearEnv + an allowlist), and spawning a child that leads its own process
 * group so that the whole tree (uv → python → any grandchild) can be killed.
 *
 * Killing a tree under the binary's scoped `--allow-run=git,uv,python3,python`:
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

import { DELIMITER, isAbsolute, join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { pep723Dependencies } from "../../core/pep723.ts";
import { KILL_HELPER_SOURCE } from "../../generated/kill_helper_py.ts";

export interface LaunchPlan {
  command: string;
  args: string[];
  launcher: "uv" | "python3" | "python-m-uv";
}

const UV_HINT =
  "Install uv (https://docs.astral.sh/uv/) so `uv run --script` can provide the dependencies, or set SKILLS_UV to its path";

/**
 * `uv run --script <abs> <args>` when uv is on PATH (or SKILLS_UV); else python3
 * (SKILLS_PYTHON) if the PEP 723 block declares no dependencies; else throws
 * SkillError("dependency_unavailable"). On Windows without uv: plain `python` for
 * dependency-free scripts, `python -m uv run --script` otherwise.
 */
export async function planLaunch(
  scriptPath: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os = Deno.build.os,
): Promise<LaunchPlan> {
  const uvArgs = ["run", "--script", scriptPath, ...args];
  const configuredUv = env.SKILLS_UV?.trim();
  if (configuredUv) return { command: configuredUv, args: uvArgs, launcher: "uv" };
  if (findOnPath("uv", env, os)) return { command: "uv", args: uvArgs, launcher: "uv" };

  const windows = os === "windows";
  const python = env.SKILLS_PYTHON?.trim() || (windows ? "python" : "python3");
  let source: string;
  try {
    source = await Deno.readTextFile(scriptPath);
  } catch (error) {
    throw new SkillError(
      "not_found",
      `Cannot read script ${scriptPath}: ${(error as Error).message}`,
    );
  }
  const dependencies = pep723Dependencies(source);
  if (dependencies === "none") {
    return { command: python, args: [scriptPath, ...args], launcher: "python3" };
  }
  if (windows) {
    return { command: python, args: ["-m", "uv", ...uvArgs], launcher: "python-m-uv" };
  }
  const what = dependencies === "unknown"
    ? "declares dependencies this tool cannot read"
    : `needs ${dependencies.join(", ")}`;
  throw new SkillError(
    "dependency_unavailable",
    `Cannot run ${scriptPath}: the script ${what} and uv is not installed`,
    { hint: UV_HINT },
  );
}

/** Whether an executable `name` exists in one of env.PATH's directories. */
export function findOnPath(
  name: string,
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os = Deno.build.os,
): string | undefined {
  const windows = os === "windows";
  const path = env.PATH ?? env.Path ?? "";
  const names = windows ? [`${name}.exe`, `${name}.cmd`, `${name}.bat`] : [name];
  for (const dir of path.split(windows ? ";" : DELIMITER)) {
    // An empty or relative entry means the working directory: never searched.
    if (dir === "" || !isAbsolute(dir)) continue;
    for (const file of names) {
      const candidate = join(dir, file);
      try {
        // Synchronous: a dozen PATH entries are a dozen tiny lookups on every `skills run`,
        // and the async round trips cost more than the lookups.
        const info = Deno.statSync(candidate);
        if (info.isFile && (windows || ((info.mode ?? 0o111) & 0o111) !== 0)) return candidate;
      } catch { /* not here */ }
    }
  }
  return undefined;
}

export interface SandboxedProcess {
  readonly pid: number;
  readonly child: Deno.ChildProcess;
  /** Kills the child and every process it started; safe to call more than once. */
  killTree(): Promise<void>;
}

interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: "piped" | "null";
}

/**
 * Spawns `plan` with an argv array (never a shell), a cleared environment plus `env`,
 * and piped stdout/stderr. On Unix the child leads its own session and process group.
 * Throws `dependency_unavailable` when the launcher cannot be started.
 */
export function spawnSandboxed(plan: LaunchPlan, options: SpawnOptions): SandboxedProcess {
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
  return { pid, child, killTree };
}

function launchError(plan: LaunchPlan, error: unknown): SkillError {
  const name = plan.launcher === "uv" ? "uv" : plan.command;
  if (error instanceof Deno.errors.NotFound) {
    return new SkillError("dependency_unavailable", `Cannot start ${name}: it is not installed`, {
      hint: plan.launcher === "uv"
        ? UV_HINT
        : "Install Python 3 (or uv), or set SKILLS_PYTHON to the interpreter",
    });
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return new SkillError(
      "dependency_unavailable",
      `Cannot start ${plan.command}: ${(error as Error).message}`,
      {
        hint:
          "The skills binary may only run `uv`, `python3` and `python` as found on PATH; point SKILLS_UV/SKILLS_PYTHON at those",
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
