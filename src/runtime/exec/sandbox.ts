/**
 * Launching a skill script: choosing the launcher (uv or python3; bash, node or deno for other languages), building the
 * environment (clearEnv + an allowlist), and spawning it: inside the OS sandbox
 * (`spawnLaunch` with a request from {@link sandboxRequestFor}; runtime/sandbox) or, in
 * policy mode, as a child that leads its own process group so that the whole tree
 * (uv → python → any grandchild) can be killed (`spawnSandboxed`).
 *
 * Policy mode, killing a tree under the binary's scoped `--allow-run=…,uv,python3,python,…`:
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

import { findOnPath } from "../os/probe.ts";
import { dirname, isAbsolute, join } from "../os/paths.ts";
import { lstatSyncOrNull, removeWorkFolder } from "../os/fs.ts";
import {
  allowedPrograms,
  LANGUAGES,
  type ScriptLanguage,
} from "../../core/scripts/script_language.ts";
import { SkillError, UsageError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { importNameOf, pep723Dependencies, requirementName } from "../../core/scripts/pep723.ts";
import type { NetPolicy } from "../../core/policy/net_grants.ts";
import type { SandboxRequest } from "../sandbox/launch.ts";
import type { SandboxLimits } from "../sandbox/sandbox_init.ts";
import { assertSandbox, resolveSandbox } from "../sandbox/mode.ts";
import type { SkillRecord } from "../catalog/catalog.ts";
import { enforceLaunchPolicy } from "../governance/enforce.ts";

export interface LaunchPlan {
  command: string;
  args: string[];
  launcher: "uv" | "python3" | "python-m-uv" | "bash" | "node" | "deno";
  /** uv will fetch packages (PEP 723 dependencies or a requirements file): the index is granted. */
  fetchesPackages?: boolean;
}

const UV_HINT =
  "Install uv (https://docs.astral.sh/uv/) so `uv run --script` can provide the dependencies, or set SKILLS_UV to its path";

/** The script to launch: its absolute path and language (catalog/contents.ts). */
interface LaunchScript {
  path: string;
  language?: ScriptLanguage | undefined;
}

/**
 * The launcher of a script, by language:
 * - Python: `uv run --script <abs> <args>` when uv is on PATH (or SKILLS_UV), with
 *   `--with-requirements <file>` when the script has no PEP 723 block and a
 *   `requirements.txt` sits in its folder or at the skill root (`skillDir`); else python3
 *   (SKILLS_PYTHON) if nothing needs installing; else `dependency_unavailable` naming what.
 *   On Windows without uv: plain `python`, or `python -m uv run --script` for dependencies.
 * - `.sh`/`.bash`: bash. `.js`/`.mjs`/`.cjs`: node, else deno. `.ts`: deno. Each found on
 *   PATH (the binary may start only those names), else `dependency_unavailable`.
 */
export async function planLaunch(
  script: LaunchScript,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os = Deno.build.os,
  skillDir?: string,
): Promise<LaunchPlan> {
  const scriptPath = script.path;
  const language = script.language ?? "python";
  if (language !== "python") return planOtherLanguage(scriptPath, language, args, env, os);
  const source = readScript(scriptPath);
  // PEP 723 first; a requirements file only for scripts without a block.
  const requirements = hasPep723Block(source) ? undefined : requirementsFile(scriptPath, skillDir);
  const dependencies = pep723Dependencies(source);
  const fetchesPackages = requirements !== undefined || dependencies !== "none";
  const uvArgs = [
    "run",
    ...(requirements === undefined ? [] : ["--no-project", "--with-requirements", requirements]),
    "--script",
    scriptPath,
    ...args,
  ];
  const uv = uvCommand(env, os);
  if (uv !== undefined) return { command: uv, args: uvArgs, launcher: "uv", fetchesPackages };
  const windows = os === "windows";
  const python = env.SKILLS_PYTHON?.trim() || (windows ? "python" : "python3");
  if (!fetchesPackages) {
    return { command: python, args: [scriptPath, ...args], launcher: "python3" };
  }
  const missing = await packagesMissing(python, dependencies, requirements, skillDir, env);
  if (missing === "none") {
    return { command: python, args: [scriptPath, ...args], launcher: "python3" };
  }
  if (windows) {
    return {
      command: python,
      args: ["-m", "uv", ...uvArgs],
      launcher: "python-m-uv",
      fetchesPackages,
    };
  }
  throw dependencyUnavailable(scriptPath, python, requirements, dependencies, missing);
}

/** A Python script's source (its PEP 723 block and the launcher are read from it). */
function readScript(scriptPath: string): string {
  try {
    return Deno.readTextFileSync(scriptPath);
  } catch (error) {
    throw new SkillError(
      "not_found",
      `Cannot read script ${scriptPath}: ${(error as Error).message}`,
    );
  }
}

/** The uv to run with: SKILLS_UV when set, else `uv` when on PATH; undefined without one. */
function uvCommand(
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os,
): string | undefined {
  const configuredUv = env.SKILLS_UV?.trim();
  if (configuredUv) return configuredUv;
  return findOnPath("uv", env, os) ? "uv" : undefined;
}

/**
 * Without uv, declared packages that already import in this python need no installing:
 * `"none"` when every one does; else the ones that do not, or undefined when that cannot
 * be told (a requirements file, dependencies not read, a name not understood, no answer).
 */
async function packagesMissing(
  python: string,
  dependencies: ReturnType<typeof pep723Dependencies>,
  requirements: string | undefined,
  skillDir: string | undefined,
  env: Readonly<Record<string, string>>,
): Promise<"none" | string[] | undefined> {
  const distributions = Array.isArray(dependencies) && requirements === undefined
    ? dependencies.map(requirementName)
    : undefined;
  if (distributions === undefined || !distributions.every((d) => d !== undefined)) {
    return undefined;
  }
  const wanted = distributions as string[];
  const unimportable = await missingModules(python, wanted.map(importNameOf), skillDir, env);
  if (unimportable?.length === 0) return "none";
  if (unimportable === undefined) return undefined;
  return wanted.filter((d) => unimportable.includes(importNameOf(d)));
}

/** Why a Python script cannot start without uv, and what to install (uv, or the packages). */
function dependencyUnavailable(
  scriptPath: string,
  python: string,
  requirements: string | undefined,
  dependencies: ReturnType<typeof pep723Dependencies>,
  missing: string[] | undefined,
): SkillError {
  const what = requirements !== undefined
    ? `needs the packages listed in ${requirements}`
    : dependencies === "unknown"
    ? "declares dependencies this tool cannot read"
    : missing !== undefined
    ? `needs the Python package${missing.length === 1 ? "" : "s"} ${
      missing.join(", ")
    }, not installed for ${python},`
    : `needs ${(dependencies as string[]).join(", ")}`;
  return new SkillError(
    "dependency_unavailable",
    `Cannot run ${scriptPath}: the script ${what} and uv is not installed`,
    {
      hint: missing === undefined
        ? UV_HINT
        : `${UV_HINT}; or install ${
          missing.length === 1 ? "it" : "them"
        } for ${python} yourself: ${python} -m pip install ${missing.join(" ")}`,
    },
  );
}

/** Which of these top-level modules `python` cannot import, by name; memoised per process. */
const probed = new Map<string, Promise<string[] | undefined>>();
const PROBE = "import importlib.util, json, sys\n" +
  "if sys.argv[1]: sys.path.insert(0, sys.argv[1])\n" +
  "print(json.dumps([m for m in sys.argv[2:] if importlib.util.find_spec(m) is None]))";

/**
 * The modules of `modules` that `python` cannot find, as a script would import them (the
 * skill root first on sys.path, no user site-packages: a sandboxed script's HOME is its
 * work folder). Nothing is imported, only looked up. Undefined when python cannot tell.
 */
function missingModules(
  python: string,
  modules: readonly string[],
  skillDir: string | undefined,
  env: Readonly<Record<string, string>>,
): Promise<string[] | undefined> {
  const key = [python, skillDir ?? "", ...modules].join("\0");
  let answer = probed.get(key);
  if (answer === undefined) {
    answer = (async () => {
      try {
        const out = await new Deno.Command(python, {
          args: ["-I", "-c", PROBE, skillDir ?? "", ...modules],
          cwd: "/",
          env: { PATH: env.PATH ?? "/usr/bin:/bin" },
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "null",
          signal: AbortSignal.timeout(10_000),
        }).output();
        if (!out.success) return undefined;
        const list = JSON.parse(new TextDecoder().decode(out.stdout));
        return Array.isArray(list) && list.every((m) => typeof m === "string") ? list : undefined;
      } catch {
        return undefined; // no such python, or it could not answer: uv is needed
      }
    })();
    probed.set(key, answer);
  }
  return answer;
}

/** Whether a Python source has a PEP 723 `# /// script` block (even one without dependencies). */
function hasPep723Block(source: string): boolean {
  return /^# \/\/\/ script\r?$/m.test(source);
}

/**
 * The `requirements.txt` of a script: in its own folder, else at the skill root. Only a
 * regular file counts (never a symlink).
 */
function requirementsFile(scriptPath: string, skillDir: string | undefined): string | undefined {
  const folders = [dirname(scriptPath), ...(skillDir === undefined ? [] : [skillDir])];
  for (const folder of folders) {
    const candidate = join(folder, "requirements.txt");
    const info = lstatSyncOrNull(candidate);
    if (info !== null && info.isFile && !info.isSymlink) return candidate;
  }
  return undefined;
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
      launcher: runner.program as LaunchPlan["launcher"],
    };
  }
  const needed = spec.runners.map((r) => r.program).join(" or ");
  throw new SkillError(
    "dependency_unavailable",
    `Cannot run ${scriptPath}: it needs ${needed}, which is not on PATH`,
    { hint: spec.install },
  );
}

export interface SandboxedProcess {
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

interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: "piped" | "null";
}

/**
 * Spawns `plan` inside the OS sandbox `sandbox` describes (runtime/sandbox), or as
 * {@link spawnSandboxed} does when it is undefined (policy mode). In the sandbox, killing
 * bubblewrap ends everything inside: it runs with --die-with-parent in its own PID
 * namespace, whose processes all die with its first one.
 */
export async function spawnLaunch(
  plan: LaunchPlan,
  options: SpawnOptions & { sandbox?: SandboxRequest | undefined },
): Promise<SandboxedProcess> {
  if (options.sandbox === undefined) return spawnWithWorkDir(plan, options);
  const { prepareSandbox } = await import("../sandbox/launch.ts");
  const uv = plan.launcher === "uv" || plan.launcher === "python-m-uv";
  const request = plan.launcher === "deno"
    ? withDenoAddressSpace(options.sandbox)
    : options.sandbox;
  const launch = await prepareSandbox(plan.command, plan.args, options.env, request, {
    uv,
    fetchesPackages: uv && plan.fetchesPackages === true,
  });
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(launch.command, {
      args: launch.args,
      env: launch.env,
      clearEnv: true,
      stdin: options.stdin ?? "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    await launch.dispose();
    throw new SkillError(
      "dependency_unavailable",
      `Cannot start the sandbox (${launch.command}): ${(error as Error).message}`,
      { hint: "Set SKILLS_SANDBOX=off to run scripts in policy mode" },
    );
  }
  const killTree = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    return Promise.resolve();
  };
  let released: Promise<void> | undefined;
  const release = () =>
    released ??= child.status.then(() => launch.dispose(), () => launch.dispose());
  // bubblewrap sets PWD; idmap.pl drops PERL_BADLANG before the script starts.
  const envNames = [...Object.keys(launch.env).filter((n) => n !== "PERL_BADLANG"), "PWD"];
  return { pid: child.pid, child, killTree, release, envNames: [...new Set(envNames)] };
}

/**
 * Deno reserves tens of GiB of address space at start-up (V8's cages), far past the 4 GiB
 * a Python script gets: the address-space limit, which bounds reservations rather than
 * memory used, is raised for it. The process, CPU and file limits still hold.
 */
const DENO_ADDRESS_SPACE = 256 * 1024 ** 3;

function withDenoAddressSpace(request: SandboxRequest): SandboxRequest {
  const memoryBytes = Math.max(request.limits.memoryBytes, DENO_ADDRESS_SPACE);
  return { ...request, limits: { ...request.limits, memoryBytes } };
}

/**
 * Policy mode: {@link spawnSandboxed} with a fresh work folder of its own as
 * SKILLS_WORK_DIR (as in the sandbox), removed once the process is gone.
 */
function spawnWithWorkDir(plan: LaunchPlan, options: SpawnOptions): SandboxedProcess {
  const workDir = Deno.makeTempDirSync({ prefix: "skills-work-" });
  let spawned: SandboxedProcess;
  try {
    spawned = spawnSandboxed(plan, {
      ...options,
      env: { ...options.env, SKILLS_WORK_DIR: workDir },
    });
  } catch (error) {
    Deno.removeSync(workDir, { recursive: true });
    throw error;
  }
  let released: Promise<void> | undefined;
  const release = () => released ??= spawned.release().then(() => removeWorkFolder(workDir));
  return { ...spawned, release, envNames: [...Object.keys(options.env), "SKILLS_WORK_DIR"] };
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
  const release = () => child.status.then(() => {}, () => {});
  return { pid, child, killTree, release };
}

function warnOnStderr(message: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`warning: ${message}\n`));
  } catch { /* no stderr: nothing to tell */ }
}

/** What a sandboxed launch of one skill needs besides the skill (see {@link sandboxRequestFor}). */
interface SandboxScope {
  /** `$SKILLS_HOME`. */
  home: string;
  /** The caller's effective environment (SKILLS_SANDBOX, SKILLS_ALLOW_NET, HOME, PATH). */
  env: Readonly<Record<string, string>>;
  /** Where the launcher starts. */
  cwd: string;
  /** The caller's directory: the workspace. */
  callerDir?: string | undefined;
  /** Whether scripts may write the workspace, and what to guard inside it. */
  workspace?: SandboxRequest["workspace"];
  /** `--write` folders with their guards. */
  grants?: SandboxRequest["grants"];
  /** False: the manifest's `permissions.network` is not honoured (lint of unreviewed code). */
  declaredNetwork?: boolean | undefined;
  /** Who the skill is, and which install of it (see SandboxRequest). */
  skillKey: string;
  /** {@link skillCacheIdOf} the key, when the caller has it already (a run plan). */
  skillCacheId?: string | undefined;
  skillGeneration: string;
  /** Connections the proxy let through (the run's receipt). */
  onAllowed?: ((target: string) => void) | undefined;
  /** Connections the proxy refused (the run's receipt), besides the user's notice. */
  onDenied?: ((target: string, reason: string) => void) | undefined;
  otherSkills?: readonly string[] | undefined;
  readOnly?: readonly string[] | undefined;
  /** `--allow-net` grants (already checked by the command's parser). */
  allowNet?: readonly string[] | undefined;
  limits: SandboxLimits;
  /**
   * Notices for the user: the sandbox missing in auto mode (once per process), refused
   * connections. Default: `warning: …` lines on stderr (chat, MCP, library users).
   */
  warn?: ((message: string) => void) | undefined;
  log?: ((message: string) => void) | undefined;
}

/** The sandbox mode in force here (bubblewrap, or policy mode and why), said to nobody. */
export function sandboxStatus(
  env: Readonly<Record<string, string>>,
  home: string,
): Promise<{ kind: "bwrap" | "policy"; reason: string }> {
  return resolveSandbox(env, home, () => {});
}

/**
 * Who a skill is, for its sandbox cache and a root CLI's uid: scope, folder and source of
 * the skill as listed (not its verified copy, whose folder changes with every version), so
 * a project skill named like a bundled one never shares the bundled one's cache.
 */
export function skillKeyOf(skill: Pick<SkillRecord, "scope" | "dir" | "entry">): string {
  return `${skill.scope}\0${skill.dir}\0${skill.entry?.source ?? ""}`;
}

/**
 * The name of a skill's cache folder beside its own name: 64 bits of SHA-256 of its key, so
 * a hostile skill cannot search for a key that lands on another's folder. Kept in the run
 * plan with the key (WebCrypto's first digest in a process costs ~0.4 ms).
 */
export async function skillCacheIdOf(skillKey: string): Promise<string> {
  return (await sha256Hex(skillKey)).slice(0, 16);
}

/**
 * Which install of a skill this is, for its cache: installed and updated times of an
 * installed skill, the approved digest of a project skill, the content-addressed folder of
 * a bundled one. A new install (an update, a remove and add) starts with an empty cache.
 */
export function skillGenerationOf(
  skill: Pick<SkillRecord, "dir" | "entry" | "project">,
): string {
  if (skill.entry !== undefined) {
    return `${skill.entry.installed_at}|${skill.entry.updated_at ?? ""}|${
      skill.entry.trusted_digest ?? ""
    }`;
  }
  if (skill.project !== undefined) return `project|${skill.project.trustedDigest ?? ""}`;
  return `dir|${skill.dir}`;
}

/**
 * The OS sandbox for a launch of `skill`, or undefined in policy mode (SKILLS_SANDBOX=off,
 * or auto without a working bubblewrap). Throws `dependency_unavailable` under
 * SKILLS_SANDBOX=required without one, and `usage` for a malformed SKILLS_ALLOW_NET.
 */
export async function sandboxRequestFor(
  skill:
    & Pick<SkillRecord, "dir" | "manifest" | "canonical">
    & Partial<Pick<SkillRecord, "entry" | "project">>,
  scope: SandboxScope,
): Promise<SandboxRequest | undefined> {
  const warn = scope.warn ?? warnOnStderr;
  const status = await resolveSandbox(scope.env, scope.home, warn);
  assertSandbox(status);
  // The organisation's policy (runtime/governance): every launch of a skill's code comes here.
  await enforceLaunchPolicy(skill, {
    env: scope.env,
    home: scope.home,
    callerDir: scope.callerDir,
    sandboxed: status.kind === "bwrap",
    declaredNetwork: scope.declaredNetwork !== false,
    allowNet: scope.allowNet ?? [],
  });
  if (status.kind !== "bwrap") return undefined;
  const network = await networkPolicy(skill, scope, warn);
  return {
    bwrap: status.bwrap,
    skillDir: skill.dir,
    cwd: scope.cwd,
    skillsHome: scope.home,
    skillName: skill.canonical,
    skillKey: scope.skillKey,
    skillCacheId: scope.skillCacheId ?? await skillCacheIdOf(scope.skillKey),
    skillGeneration: scope.skillGeneration,
    callerDir: scope.callerDir,
    workspace: scope.workspace,
    grants: scope.grants,
    otherSkills: scope.otherSkills ?? [],
    readOnly: scope.readOnly ?? [],
    network,
    limits: scope.limits,
    callerEnv: scope.env,
    onDenied: (target, reason) => {
      scope.onDenied?.(target, reason);
      warn?.(`The sandbox refused a connection to ${target}: ${reason}`);
    },
    onAllowed: scope.onAllowed,
    notice: warn,
    log: scope.log,
  };
}

/**
 * The network of a launch: the manifest's hosts (`permissions.network`, unless not honoured)
 * and the user's grants (SKILLS_ALLOW_NET, `--allow-net`); a skill's own grant of an address
 * that is not public is dropped with a warning. Throws `usage` for a malformed
 * SKILLS_ALLOW_NET.
 */
async function networkPolicy(
  skill: Pick<SkillRecord, "manifest" | "canonical">,
  scope: SandboxScope,
  warn: (message: string) => void,
): Promise<NetPolicy> {
  const declared = scope.declaredNetwork === false ? undefined : skill.manifest.network;
  const blank = (values: readonly string[]) =>
    values.every((value) => value.split(",").every((entry) => entry.trim() === ""));
  if (
    (declared === undefined || declared.grants.length === 0) &&
    blank([scope.env.SKILLS_ALLOW_NET ?? "", ...scope.allowNet ?? []])
  ) {
    // No host named anywhere: nothing to parse or check. The policies and the address ranges
    // (three modules, ~0.3 ms) are loaded only for a sandbox that names hosts: policy mode
    // has no proxy, and most scripts no network.
    return { any: declared?.any === true, grants: [] };
  }
  const { formatNetGrant, mergeNetPolicies, namesNonPublicAddress, parseNetGrants } = await import(
    "../../core/policy/net_grants.ts"
  );
  const fromEnv = parseNetGrants([scope.env.SKILLS_ALLOW_NET ?? ""]);
  if (fromEnv.errors.length > 0) {
    throw new UsageError(
      `Invalid SKILLS_ALLOW_NET: ${fromEnv.errors.join("; ")}`,
      "Use a comma-separated list of host or host:port, e.g. SKILLS_ALLOW_NET=api.example.com,127.0.0.1:8080",
    );
  }
  const fromFlags = parseNetGrants(scope.allowNet ?? []);
  // The user's own: a name granted so may reach a private address (net_grants.grantFor).
  const userGrants = [...fromEnv.grants, ...fromFlags.grants].map((grant) => ({
    ...grant,
    byUser: true,
  }));
  // A skill may not grant itself a local, private or metadata address: only the user may.
  const own = (declared?.grants ?? []).filter((grant) => {
    if (!namesNonPublicAddress(grant)) return true;
    const granted = userGrants.some((g) => g.host === grant.host);
    if (!granted) {
      warn(
        `${skill.canonical} declares ${formatNetGrant(grant)}, which is not a public address: ` +
          `it is reached only when you grant it (--allow-net ${formatNetGrant(grant)})`,
      );
    }
    return false;
  });
  return mergeNetPolicies(
    { any: declared?.any === true, grants: own },
    { any: false, grants: userGrants },
  );
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
  const { KILL_HELPER_SOURCE }: typeof import("../../generated/kill_helper_py.d.ts") = await import(
    "../../generated/kill_helper_py.ts"
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
