/**
 * One sandboxed launch: turns a launcher command (`python3 script.py …`, `uv run --script
 * …`, the toolset host) into the bubblewrap command that runs it isolated, with its work
 * folder, environment, limits and network, and cleans up afterwards.
 *
 * What a script sees (documented in docs/security.md):
 *   - the whole filesystem read-only; the user's home, /run, $SKILLS_HOME and other skills
 *     replaced by empty folders; its own skill folder read-only;
 *   - a fresh work folder, writable, removed after the run: HOME, TMPDIR and
 *     SKILLS_WORK_DIR point at it; /tmp is private too; a cache folder of the skill's own,
 *     kept between runs (XDG_CACHE_HOME, uv's cache);
 *   - the workspace (the caller's directory) at its own path, as SKILLS_CALLER_DIR, and
 *     its working directory: writable unless read-only was asked for, with guarded paths
 *     read-only and secret files masked (core/policy/workspace_rules.ts); hidden when it is `/`, the
 *     home itself or a folder containing it (the script then starts in its work folder);
 *     as root, the sandbox's uid writes it through an idmapped mount (idmap.pl or init.py);
 *   - no network, except the hosts its manifest declares and the user grants, through the
 *     CLI's proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY); proxy settings of the user's own
 *     environment never reach it;
 *   - limits: processes, address space, CPU seconds, file size (sandbox_init.ts: prlimit or
 *     init.py);
 *   - as root, a uid of the skill's own, named `skills-sandbox` in /etc/passwd and /etc/group
 *     and in USER and LOGNAME (accounts.ts).
 * The mounts themselves are mounts.ts's.
 */

import { basename, DELIMITER, join } from "../os/paths.ts";
import { isWithin, lstatSyncOrNull, removeWorkFolder } from "../os/fs.ts";
import { findOnPath } from "../os/probe.ts";
import type { NetGrant, NetPolicy } from "../../core/policy/net_grants.ts";
import {
  initCommand,
  initEnv,
  type InitOverlay,
  type InitTools,
  perlInit,
  type SandboxLimits,
} from "./sandbox_init.ts";
import { accountNames, type SandboxAccounts, writeSandboxAccounts } from "./accounts.ts";
import { bwrapArgs, LAYER_MOUNT } from "./bwrap.ts";
import type { BwrapInfo } from "./mode.ts";
import { initPython } from "./toolchain.ts";
import { mountPlan, realDir, type WorkspaceMounts } from "./mounts.ts";
import type { NetProxy } from "./proxy.ts";
import type { WorkspaceGuards } from "../../core/policy/workspace_rules.ts";

export interface SandboxRequest {
  bwrap: BwrapInfo;
  /** The skill's folder (real path), bound read-only. */
  skillDir: string;
  /** Where the launcher starts (the script's folder, inside skillDir). */
  cwd: string;
  /** `$SKILLS_HOME`, hidden. */
  skillsHome: string;
  /** The skill's canonical name (names its uv cache). */
  skillName: string;
  /**
   * Who the skill is (scope, project, source): its cache and a root CLI's uid are keyed by
   * it, so two skills of one name never share either.
   */
  skillKey: string;
  /** The skill's cache folder's id beside its name (exec/spawn/skill_identity.ts skillCacheIdOf). */
  skillCacheId: string;
  /**
   * Which install of it this is (when it was installed or last updated): a cache left by an
   * earlier install — one since replaced, or removed and added again — is emptied first.
   */
  skillGeneration: string;
  /** The caller's directory: the workspace (see the header). */
  callerDir?: string | undefined;
  /** The workspace: copy-on-write when it has an overlay (runtime/workspace applies its diff). */
  workspace?: WorkspaceMounts | undefined;
  /** `--write` folders, writable with their own guards. */
  grants?: readonly { dir: string; guards: WorkspaceGuards }[] | undefined;
  /** Other skill folders to hide (project skills in the caller's tree). */
  otherSkills?: readonly string[];
  /** More files or folders bound read-only (the toolset host's source). */
  readOnly?: readonly string[];
  network: NetPolicy;
  limits: SandboxLimits;
  /**
   * A service (`skills run --background`, runtime/services): its loopback ports relayed through
   * Unix sockets in `relayDir` (bound writable), and its `--write` folders inside the overlaid
   * workspace kept live rather than joining the diff.
   */
  service?: { relayDir: string; maxPorts: number } | undefined;
  /** The CLI's own environment: where the home, PATH and the runtime dir are. */
  callerEnv: Readonly<Record<string, string>>;
  /** A connection the proxy refused (target and reason). */
  onDenied?: ((target: string, reason: string) => void) | undefined;
  /** A connection the proxy let through (target). */
  onAllowed?: ((target: string) => void) | undefined;
  /** What the user must be told of a connection (a granted name reaching a private address). */
  notice?: ((message: string) => void) | undefined;
  log?: ((message: string) => void) | undefined;
}

/** How the launcher behaves, as exec/spawn/spawn_plan.ts knows it. */
interface LauncherTraits {
  /** uv: it gets a cache of its own per skill, kept between runs. */
  uv?: boolean;
  /** uv fetches the script's dependencies: the package index is granted (see {@link uvIndexGrants}). */
  fetchesPackages?: boolean;
}

/**
 * The skill's own cache folder, kept between runs and writable by that skill's sandboxes
 * only: its XDG_CACHE_HOME (kalshi-markets keeps its market list there) and uv's cache.
 */
function skillCacheDir(skillsHome: string, skillName: string, skillCacheId: string): string {
  return join(skillsHome, ".cache", "skills", `${skillName}-${skillCacheId}`);
}

function fnv1a(text: string): number {
  let hash = 2166136261;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash;
}

/**
 * Makes `cache` exist for this install of the skill: one an earlier install left (the skill
 * since updated, or removed and added again) is moved aside and removed, so nothing that
 * version planted — data, uv environments — is served to this one. Moving aside first means
 * a run of the old install that already bound the folder keeps its own. Runs that start
 * together would each find the marker stale and move aside the folder another just made:
 * the switch is made under a lock of its own, and the marker read again there.
 */
function freshCache(cache: string, generation: string): void {
  // Beside the folder, not in it: $SKILLS_HOME is hidden from every sandbox, so no script
  // can forge which install its cache belongs to.
  const marker = `${cache}.generation`;
  const current = () => {
    try {
      return Deno.readTextFileSync(marker);
    } catch {
      return undefined; // a new cache, or one from before the marker
    }
  };
  if (current() === generation) return;
  Deno.mkdirSync(join(cache, ".."), { recursive: true });
  using lock = Deno.openSync(`${cache}.lock`, { create: true, write: true });
  lock.lockSync(true);
  if (current() === generation) return;
  if (lstatSyncOrNull(cache) !== null) {
    const aside = `${cache}.old-${crypto.randomUUID().slice(0, 8)}`;
    Deno.renameSync(cache, aside);
    try {
      Deno.removeSync(aside, { recursive: true });
    } catch { /* what cannot be removed stays aside, never served again */ }
  }
  Deno.mkdirSync(cache, { recursive: true });
  Deno.writeTextFileSync(marker, generation);
}

/**
 * The hosts uv needs to fetch a script's dependencies: PyPI, or the indexes the user's own
 * environment names (UV_INDEX_URL, UV_DEFAULT_INDEX, UV_INDEX, UV_EXTRA_INDEX_URL).
 */
export function uvIndexGrants(env: Readonly<Record<string, string>>): NetGrant[] {
  const urls = ["UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX", "UV_EXTRA_INDEX_URL"]
    .flatMap((name) => (env[name] ?? "").split(/\s+/))
    .map((entry) => entry.replace(/^[^=]*=(?=\w+:\/\/)/, "")) // UV_INDEX's `name=url`
    .filter((entry) => entry !== "");
  const grants: NetGrant[] = [];
  for (const text of urls) {
    try {
      const url = new URL(text);
      if (url.protocol !== "https:" && url.protocol !== "http:") continue;
      const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
      grants.push({ host: url.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port });
    } catch { /* not a URL: uv will say so */ }
  }
  if (!["UV_INDEX_URL", "UV_DEFAULT_INDEX"].some((name) => env[name])) {
    grants.push({ host: "pypi.org", port: 443 }, { host: "files.pythonhosted.org", port: 443 });
  }
  return grants;
}

/** A launch ready to spawn, and what to clean up after it. */
interface SandboxedLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  workDir: string;
  /** Removes the work folder and stops the proxy. Safe to call more than once. */
  dispose(): Promise<void>;
}

/** The loopback port the init helper relays to the proxy, inside the sandbox's own network. */
const BRIDGE_PORT = 3128;
const PROXY_URL = `http://127.0.0.1:${BRIDGE_PORT}`;
/** Proxy settings in any spelling: the user's never reach a sandboxed script. */
const PROXY_VARIABLE = /^(https?|all|no|ftp|socks|rsync)_proxy$/i;
/** Locations in the (hidden) home that a script would write to and fail; the sandbox sets its own. */
const HOME_POINTERS = [
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "UV_CACHE_DIR",
];
/** First unprivileged uid a root CLI runs sandboxes as (far above any real account). */
const ROOT_RUN_UID_BASE = 2_000_000_000;

/** Every `name` on PATH, in order (absolute paths). */
function allOnPath(name: string, env: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const dir of (env.PATH ?? "").split(DELIMITER)) {
    if (dir === "" || !dir.startsWith("/")) continue;
    const candidate = join(dir, name);
    const info = lstatSyncOrNull(candidate) === null ? null : Deno.statSync(candidate);
    if (info?.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) found.push(candidate);
  }
  return found;
}

/**
 * util-linux's `name` from the system's own folders (not PATH: one stat instead of a miss
 * per PATH entry, and never a look-alike from a user's folder).
 */
function systemTool(name: string): string | undefined {
  for (const dir of ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    const path = `${dir}/${name}`;
    if (lstatSyncOrNull(path) !== null) return path;
  }
  return undefined;
}

/**
 * The uid a root CLI runs a skill as: stable per skill and home (its cache folder stays
 * its own across versions), distinct between skills.
 */
function rootRunUid(skillsHome: string, skillKey: string): number {
  return ROOT_RUN_UID_BASE + (fnv1a(`${skillsHome}\0${skillKey}`) % 100_000_000);
}

/** The script's environment inside the sandbox (see the header). */
function sandboxEnv(
  env: Readonly<Record<string, string>>,
  workDir: string,
  callerDir: string | undefined,
  network: boolean,
  uid: number | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (PROXY_VARIABLE.test(name) || HOME_POINTERS.includes(name)) continue;
    if (name === "SKILLS_PARENT_PID" || name === "XDG_RUNTIME_DIR") continue;
    out[name] = value;
  }
  out.HOME = workDir;
  out.TMPDIR = workDir;
  delete out.TMP;
  delete out.TEMP;
  out.SKILLS_WORK_DIR = workDir;
  // A root CLI's sandbox runs as the skill's uid, named in its account files (accounts.ts).
  if (uid !== undefined) Object.assign(out, accountNames(env));
  if (callerDir !== undefined) out.SKILLS_CALLER_DIR = callerDir;
  else delete out.SKILLS_CALLER_DIR;
  if (network) {
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
      out[name] = PROXY_URL;
      out[name.toLowerCase()] = PROXY_URL;
    }
  }
  return out;
}

/**
 * Prepares the sandboxed form of `command args` (an absolute path or a name found on the
 * caller's PATH) with the script's environment `env`. The caller spawns the result and
 * awaits `dispose()` once the process is gone. Built in order: the work folder (and, as
 * root, the uid it is given to), the network policy, the init helper's tools, the mounts,
 * the skill's cache, the proxy, the folders mapped for the uid, the init command; one
 * dispose undoes whatever of it was made.
 */
export async function prepareSandbox(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  request: SandboxRequest,
  traits: LauncherTraits = {},
): Promise<SandboxedLaunch> {
  const callerEnv = request.callerEnv;
  const launcher = command.startsWith("/") ? command : findOnPath(command, callerEnv) ?? command;
  const workDir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills-work-" }));
  let proxy: NetProxy | undefined;
  let accounts: SandboxAccounts | undefined;
  let disposed: Promise<void> | undefined;
  const dispose = () => disposed ??= releaseLaunch(proxy, workDir, accounts);
  try {
    // Root or not, from the folder just made (the probe's answer may be another user's).
    const owner = Deno.statSync(workDir).uid ?? undefined;
    const root = owner === 0;
    request = { ...request, bwrap: { ...request.bwrap, root } };
    const uid = root ? giveWorkDir(workDir, request) : undefined;
    if (uid !== undefined) accounts = writeSandboxAccounts(uid, workDir);
    const { policy, network } = await launchNetwork(request, traits);
    // A root CLI's `--write` folders are mounted idmapped for the uid, and an overlay
    // workspace over its idmapped lower layer, by idmap.pl or init.py.
    const idmapping = root && (request.grants?.length ?? 0) > 0;
    const overlay = request.workspace?.overlay !== undefined;
    // A service's port relay lives in init.py, as the proxy's bridge does.
    const relays = network || request.service !== undefined;
    const tools = initTools(launcher, env, callerEnv, { relays, idmapping, root, overlay });
    const plan = mountPlan(
      { ...request, root, uid: owner },
      workDir,
      sandboxExecutables(launcher, tools, traits, callerEnv),
    );
    plan.accounts = accounts;
    // The skill's cache, kept between runs (per skill, so no skill can poison another's
    // packages or data).
    const cache = skillCacheDir(request.skillsHome, request.skillName, request.skillCacheId);
    const extraEnv = mountCache(cache, plan, uid, request, traits);
    let bridge: { port: number; socket: string } | undefined;
    if (network) {
      const { startNetProxy } = await import("./proxy.ts");
      proxy = await startNetProxy(policy, {
        onDenied: request.onDenied,
        onAllowed: request.onAllowed,
        notice: request.notice,
        log: request.log,
      });
      plan.readOnly.push(proxy.dir);
      bridge = { port: BRIDGE_PORT, socket: proxy.socketPath };
    }
    if (request.service !== undefined) showRelayFolder(request.service.relayDir, plan, uid);
    const launched = [launcher, ...args];
    const init = initRequest(plan, request, { uid, idmapping, bridge, workDir }, launched);
    const inner = initCommand(init, tools);
    Object.assign(extraEnv, initEnv(init, tools));
    request.log?.(launchLine(inner, launched.length, workDir, accounts));
    return {
      command: request.bwrap.path,
      args: bwrapArgs(
        { ...request.bwrap, idmap: init.idmap.length > 0, overlay: init.overlay?.engine },
        plan,
        inner,
      ),
      env: { ...sandboxEnv(env, workDir, plan.callerDir, network, uid), ...extraEnv },
      workDir,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** What a launch made, released side by side: the run's output waits on these removals. */
async function releaseLaunch(
  proxy: NetProxy | undefined,
  workDir: string,
  accounts: SandboxAccounts | undefined,
): Promise<void> {
  await Promise.all([
    proxy?.close(),
    removeWorkFolder(workDir),
    accounts === undefined ? undefined : Deno.remove(accounts.dir, { recursive: true }),
  ]);
}

/**
 * A service's relay folder, where init makes a socket per port it listens on: writable inside,
 * and under a root CLI the uid's (init runs as the uid by then).
 */
function showRelayFolder(dir: string, plan: MountPlan, uid: number | undefined): void {
  if (uid !== undefined) Deno.chownSync(dir, uid, uid);
  plan.writable.push(dir);
}

/**
 * The launch's network policy (a uv that fetches packages gets its indexes too) and whether
 * it has any network at all.
 */
async function launchNetwork(
  request: SandboxRequest,
  traits: LauncherTraits,
): Promise<{ policy: NetPolicy; network: boolean }> {
  let policy = request.network;
  if (traits.uv && traits.fetchesPackages) {
    const { mergeNetPolicies } = await import("../../core/policy/net_grants.ts");
    policy = mergeNetPolicies(policy, { any: false, grants: uvIndexGrants(request.callerEnv) });
  }
  // net_grants.allowsNetwork's test, spelled out: a run without a network never loads the
  // policies (exec/spawn/sandbox_request.ts), and this is all it would need of them.
  return { policy, network: policy.any || policy.grants.length > 0 };
}

/**
 * What init does before the launcher: the limits, a root CLI's uid, the proxy relay, the
 * folders it mounts (idmapped `--write` folders, the workspace's overlay) and where it then
 * starts (a folder it mounts is entered only once mounted).
 */
function initRequest(
  plan: MountPlan,
  request: SandboxRequest,
  run: {
    uid: number | undefined;
    idmapping: boolean;
    bridge: { port: number; socket: string } | undefined;
    workDir: string;
  },
  command: string[],
) {
  const { uid, idmapping, bridge, workDir } = run;
  const mapped = uid === undefined || !idmapping ? [] : mappedFolders(plan, request);
  const overlay = workspaceOverlay(plan, request, uid);
  const cwd = enterAfterMounts(
    plan,
    [...mapped, ...overlay ? [{ path: overlay.dir }] : []],
    workDir,
  );
  const service = request.service;
  const live = service === undefined || overlay === undefined
    ? []
    : (request.grants ?? []).map((grant) => grant.dir).filter((dir) => isWithin(overlay.dir, dir));
  return {
    limits: request.limits,
    uid,
    bridge,
    cwd,
    idmap: mapped,
    overlay,
    command,
    relay: service === undefined ? undefined : { dir: service.relayDir, limit: service.maxPorts },
    live,
  };
}

/**
 * `--verbose`'s line for a launch: the init command up to the launcher, the run's folders.
 * The launched command ends `inner`, so the launcher is found by position, never by name:
 * the Python init form and a Python script may start the same `/usr/bin/python3`. The init's
 * program and its JSON config are elided; its other arguments are paths and numbers, shown
 * whole however long (by length, a deep workspace's `overlay:DIR` was elided too).
 */
function launchLine(
  inner: readonly string[],
  launchedLength: number,
  workDir: string,
  accounts: SandboxAccounts | undefined,
): string {
  const shown = inner.slice(0, inner.length - launchedLength + 1)
    .map((a) => a.includes("\n") || /^[{[]/.test(a) ? "<source>" : a).join(" ");
  const folders = `work folder ${workDir}${
    accounts === undefined ? "" : `; accounts ${accounts.dir}`
  }`;
  return `sandbox: ${shown} …; ${folders}`;
}

/** The mount plan of one launch (sandbox/mounts.ts). */
type MountPlan = ReturnType<typeof mountPlan>;

/**
 * A root CLI's work folder given to the uid the skill runs as (returned). bubblewrap enters
 * the working directory before init drops to the uid, as root without CAP_DAC_OVERRIDE: it
 * may traverse, never list (the folder is out of sight of every other sandbox anyway, the
 * host's /tmp being replaced).
 */
function giveWorkDir(workDir: string, request: SandboxRequest): number {
  const uid = rootRunUid(request.skillsHome, request.skillKey);
  Deno.chownSync(workDir, uid, uid);
  Deno.chmodSync(workDir, 0o711);
  return uid;
}

/**
 * prlimit and setpriv from the system; for a root CLI's idmapped folders without a network,
 * the system's Perl when it may run idmap.pl (sandbox_init.perlInit); and the Python init
 * helper when it is needed (a network, idmapped folders Perl cannot map, or a system tool
 * missing: the Perl form needs none of them, but with the workspace hidden there is nothing
 * to map and the util-linux form runs): a real interpreter rather than a shim if there is one.
 */
function initTools(
  launcher: string,
  env: Readonly<Record<string, string>>,
  callerEnv: Readonly<Record<string, string>>,
  needs: { relays: boolean; idmapping: boolean; root: boolean; overlay: boolean },
): InitTools {
  // Relaying (the proxy's bridge, a service's ports) is init.py's alone.
  const { relays: network, idmapping, root, overlay } = needs;
  const tools: InitTools = {
    prlimit: systemTool("prlimit"),
    setpriv: systemTool("setpriv"),
  };
  // The Perl form mounts a root CLI's kernel overlay and idmapped folders; init.py the rest.
  if ((idmapping || (overlay && root)) && !network) {
    tools.perl = perlInit(systemTool("perl"), Deno.build.arch, env);
  }
  const python = network || (overlay && !root) ||
    ((idmapping || overlay) && tools.perl === undefined);
  if (python || tools.prlimit === undefined || (root && tools.setpriv === undefined)) {
    const candidates = [
      ...(basename(launcher).startsWith("python") ? [launcher] : []),
      ...(env.SKILLS_PYTHON?.startsWith("/") ? [env.SKILLS_PYTHON] : []),
      ...allOnPath("python3", callerEnv),
    ];
    tools.python = initPython(candidates);
    if (tools.python === undefined) throw new Error("no python3 on PATH to start the sandbox");
  }
  return tools;
}

/** The programs the sandbox shows: the launcher, the init tools, and for uv the python3 on PATH. */
function sandboxExecutables(
  launcher: string,
  tools: InitTools,
  traits: LauncherTraits,
  callerEnv: Readonly<Record<string, string>>,
): string[] {
  const executables = [
    launcher,
    ...[tools.python, tools.prlimit, tools.setpriv, tools.perl?.path].filter(
      (p): p is string => p !== undefined,
    ),
  ];
  // uv looks for an interpreter on PATH itself.
  const pathPython = traits.uv ? findOnPath("python3", callerEnv) : undefined;
  if (pathPython !== undefined) executables.push(pathPython);
  return executables;
}

/**
 * The skill's cache made fresh for its generation, the uid's, and writable; uv's cache
 * inside it and the Pythons uv manages read-only. Returns the environment that points there.
 */
function mountCache(
  cache: string,
  plan: MountPlan,
  uid: number | undefined,
  request: SandboxRequest,
  traits: LauncherTraits,
): Record<string, string> {
  freshCache(cache, request.skillGeneration);
  if (uid !== undefined && Deno.statSync(cache).uid !== uid) Deno.chownSync(cache, uid, uid);
  plan.writable.push(cache);
  const extraEnv: Record<string, string> = { XDG_CACHE_HOME: cache };
  if (traits.uv) {
    extraEnv.UV_CACHE_DIR = join(cache, "uv");
    const callerEnv = request.callerEnv;
    const pythons = realDir(
      callerEnv.UV_PYTHON_INSTALL_DIR ??
        join(callerEnv.HOME ?? "/nonexistent", ".local/share/uv/python"),
    );
    if (pythons !== undefined) plan.readOnly.push(pythons);
  }
  return extraEnv;
}

/**
 * Folders the sandbox's uid writes through an idmapped mount (a root CLI): the caller's
 * writable folder and the `--write` grants, each with the `.git` folders pinned inside it.
 */
function mappedFolders(
  plan: MountPlan,
  request: SandboxRequest,
): { path: string; pins: string[] }[] {
  const pinsIn = (dir: string, pins: readonly string[] | undefined) =>
    (pins ?? []).filter((pin) => isWithin(dir, pin));
  // A grant inside an overlay workspace is part of it (its writes join the diff): mounting
  // it idmapped again, inside the merged view, would fail.
  const overlaid = plan.layer !== undefined ? plan.callerDir : undefined;
  return [
    ...(plan.callerWritable && plan.callerDir !== undefined
      ? [{ path: plan.callerDir, pins: pinsIn(plan.callerDir, plan.pins) }]
      : []),
    ...(request.grants ?? []).map((grant) => grant.dir)
      .filter((dir) => overlaid === undefined || !isWithin(overlaid, dir))
      .map((path) => ({ path, pins: pinsIn(path, plan.writablePins) })),
  ];
}

/**
 * The overlay init.py mounts over the workspace, when the plan shows the workspace and asks
 * for one: the run folder's upper layer given to a root CLI's uid first (the merged view's top
 * is the upper layer's), and the secret masks init makes once it is mounted.
 */
function workspaceOverlay(
  plan: MountPlan,
  request: SandboxRequest,
  uid: number | undefined,
): InitOverlay | undefined {
  const asked = request.workspace?.overlay;
  if (asked === undefined || plan.callerDir === undefined || plan.layer === undefined) {
    return undefined;
  }
  if (uid !== undefined) Deno.chownSync(join(asked.layer, "upper"), uid, uid);
  return {
    engine: asked.engine,
    dir: plan.callerDir,
    layer: LAYER_MOUNT,
    fuse: asked.fuse,
    masks: plan.overlayMasks,
    hide: [
      ...plan.hideSecond.filter((path) =>
        path !== plan.callerDir && isWithin(plan.callerDir!, path)
      ),
      ...plan.overlayHidden,
    ],
    shown: plan.overlayShown,
  };
}

/**
 * Folders mounted by init (idmapped `--write` folders, an overlay workspace) are entered only
 * once they are mounted: bubblewrap starts in the work folder, and init enters the real
 * working directory (returned) once the mounts are made and, as root, it is the uid.
 */
function enterAfterMounts(
  plan: MountPlan,
  mapped: readonly { path: string }[],
  workDir: string,
): string | undefined {
  if (!mapped.some(({ path }) => isWithin(path, plan.chdir))) return undefined;
  const cwd = plan.chdir;
  plan.chdir = workDir;
  return cwd;
}
