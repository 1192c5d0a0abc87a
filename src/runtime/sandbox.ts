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

import { DELIMITER, join } from "../core/paths.ts";
import { envMatcher, isBaseEnvName } from "../core/env_policy.ts";
import { SkillError } from "../core/errors.ts";
import { quoteName } from "../core/names.ts";
import type { SkillRecord } from "./catalog.ts";

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
    if (dir === "") continue;
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

/**
 * The dependencies a PEP 723 `# /// script` block declares: "none" when there is no block
 * or `dependencies` is missing/empty, the list when it has entries, "unknown" when the
 * block cannot be read (treated as needing uv).
 */
export function pep723Dependencies(source: string): "none" | "unknown" | string[] {
  const lines = source.split(/\r?\n/);
  const start = lines.findIndex((l) => l === "# /// script");
  if (start === -1) return "none";
  const body: string[] = [];
  let closed = false;
  for (const line of lines.slice(start + 1)) {
    if (line === "# ///") {
      closed = true;
      break;
    }
    if (line === "#") body.push("");
    else if (line.startsWith("# ")) body.push(line.slice(2));
    else return "unknown";
  }
  if (!closed) return "unknown";
  const toml = body.join("\n");
  const match = /^dependencies\s*=\s*/m.exec(toml);
  if (match === null) return "none";
  // `dependencies` must be a top-level key: no [table] header before it.
  if (/^\s*\[/m.test(toml.slice(0, match.index))) return "none";
  const items = scanTomlStringArray(toml.slice(match.index + match[0].length));
  if (items === undefined) return "unknown";
  return items.length === 0 ? "none" : items;
}

/** Reads a TOML array of strings (`["a", 'b[x]>=1', ...]`, comments and newlines allowed). */
function scanTomlStringArray(text: string): string[] | undefined {
  if (text[0] !== "[") return undefined;
  const items: string[] = [];
  let i = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "]") return items;
    if (c === "#") {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end + 1;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = "";
      while (j < text.length && text[j] !== c) {
        if (c === '"' && text[j] === "\\") j++;
        value += text[j] ?? "";
        j++;
      }
      if (j >= text.length) return undefined;
      items.push(value);
      i = j + 1;
    } else if (c === "," || /\s/.test(c)) i++;
    else return undefined;
  }
  return undefined;
}

/** Set for every script: Python writes UTF-8 to pipes on every platform (Windows too). */
export const FIXED_SCRIPT_ENV: Readonly<Record<string, string>> = { PYTHONUTF8: "1" };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment for one of `skill`'s scripts: the base set (PATH, HOME, LANG, LC_*, ...)
 * and the variables matching the skill's `permissions.env`, taken from `source`, plus
 * {@link FIXED_SCRIPT_ENV}. `extra` holds `--env NAME` / `--env NAME=VALUE` requests; each
 * name must be covered by the allowlist (or be a base variable), else `permission_denied`.
 */
export function scriptEnvironment(
  skill: SkillRecord,
  source: Readonly<Record<string, string>>,
  extra: readonly string[] = [],
): Record<string, string> {
  const allowed = envMatcher(skill.manifest.envPatterns);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (isBaseEnvName(name) || allowed(name)) env[name] = value;
  }
  for (const request of extra) {
    const eq = request.indexOf("=");
    const name = eq === -1 ? request : request.slice(0, eq);
    if (!ENV_NAME.test(name)) {
      throw new SkillError("usage", `Invalid environment variable name: '${quoteName(name)}'`);
    }
    if (!allowed(name) && !isBaseEnvName(name)) {
      throw new SkillError("permission_denied", `Env var '${name}' not in allowlist`, {
        hint: skill.manifest.envPatterns.length === 0
          ? `Skill '${skill.canonical}' allows no extra variables (permissions.env is empty)`
          : `Skill '${skill.canonical}' allows: ${skill.manifest.envPatterns.join(", ")}`,
      });
    }
    if (eq !== -1) env[name] = request.slice(eq + 1);
  }
  return { ...env, ...FIXED_SCRIPT_ENV };
}

export interface SandboxedProcess {
  readonly pid: number;
  readonly child: Deno.ChildProcess;
  /** Kills the child and every process it started; safe to call more than once. */
  killTree(): Promise<void>;
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
 * Freezes then SIGKILLs every process in the session/process group `root` (the child we
 * spawned detached) and every ppid-descendant of those; repeats until nothing is left
 * (at most 5 rounds). Without /proc (macOS) it kills the process group.
 */
const KILL_HELPER = `
import os, signal, sys
root = int(sys.argv[1])
me = os.getpid()
def tree():
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()
    parent, found = {}, set()
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                data = f.read()
            fields = data[data.rindex(b")") + 2:].split()
            pid, ppid, pgrp, sid = int(name), int(fields[1]), int(fields[2]), int(fields[3])
        except (OSError, ValueError, IndexError):
            continue
        parent[pid] = ppid
        if pgrp == root or sid == root:
            found.add(pid)
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    found.discard(me)
    return found
for _ in range(5):
    pids = tree()
    for pid in pids:
        try: os.kill(pid, signal.SIGSTOP)
        except OSError: pass
    try: os.killpg(root, signal.SIGKILL)
    except OSError: pass
    for pid in pids:
        try: os.kill(pid, signal.SIGKILL)
        except OSError: pass
    if not pids:
        break
`;

/** Runs {@link KILL_HELPER} with the first python that starts; false when none does. */
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
  if (plan.launcher === "python3") add(plan.command);
  add("python3");
  add("python");
  if (plan.launcher === "uv") add(plan.command, ["run", "--no-project", "--quiet", "python"]);
  // The helper shares our process group, so it must not watch us (parent_watch.ts).
  const { SKILLS_PARENT_PID: _, ...helperEnv } = env;
  for (const [command, prefix] of candidates) {
    try {
      const status = await new Deno.Command(command, {
        args: [...prefix, "-c", KILL_HELPER, String(root)],
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
