/**
 * Which sandbox is in force, and why: `SKILLS_SANDBOX=auto|required|off`.
 *
 *   auto (default)  bubblewrap when it is installed and works here; otherwise policy mode
 *                   (cleared environment, allowlist, limits, no OS isolation), with one
 *                   warning per process
 *   required        bubblewrap or nothing: a run without it is refused
 *   off             policy mode
 *
 * "Works here" is a probe: `bwrap --version`, then a sandbox with the real run's namespace
 * flags around `true`. A success is remembered in `$SKILLS_HOME/.cache/core/` keyed by the
 * bwrap binary (path, inode, size, mtime), with the PATH it was found on, so one-shot
 * commands pay neither the probe (~5 ms) nor the PATH scan; a failure is never remembered.
 * Forging that file gains nothing: it can only make the CLI try a bubblewrap (an absolute
 * path that the binary's --allow-run must still accept), and one that fails fails the run.
 * Whether we are root is taken afresh for every launch (launch.ts).
 */

import { join } from "../os/paths.ts";
import { findOnPath } from "../os/probe.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import { CORE_CACHE_DIR } from "../store/home.ts";
import { SkillError, UsageError } from "../../core/errors.ts";
import type { BwrapFeatures } from "./bwrap.ts";

type SandboxSetting = "auto" | "required" | "off";

export interface BwrapInfo extends BwrapFeatures {
  /** Absolute path of the bwrap that was probed (and that runs). */
  path: string;
}

type SandboxStatus =
  | { kind: "bwrap"; setting: SandboxSetting; bwrap: BwrapInfo; reason: string }
  | { kind: "policy"; setting: SandboxSetting; reason: string; hint?: string };

const SETTINGS: readonly SandboxSetting[] = ["auto", "required", "off"];
const INSTALL_HINT =
  "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";
/** Where a successful probe is remembered (kept by `skills check --repair`). */
export function sandboxProbePath(home: string): string {
  return join(home, CORE_CACHE_DIR, "sandbox-probe.json");
}

/** `SKILLS_SANDBOX`, validated; unset or empty means `auto`. */
function sandboxSetting(env: Readonly<Record<string, string>>): SandboxSetting {
  const raw = (env.SKILLS_SANDBOX ?? "").trim().toLowerCase();
  if (raw === "") return "auto";
  if ((SETTINGS as readonly string[]).includes(raw)) return raw as SandboxSetting;
  throw new UsageError(
    `Invalid SKILLS_SANDBOX '${env.SKILLS_SANDBOX}': expected auto, required or off`,
    "Unset it for the default (auto: the sandbox when bubblewrap works here)",
  );
}

let uid: number | undefined;

/** This process's uid, without --allow-sys: the owner of a file it creates. */
export function currentUid(): number {
  if (uid !== undefined) return uid;
  const file = Deno.makeTempFileSync({ prefix: "skills-uid-" });
  try {
    uid = Deno.statSync(file).uid ?? -1;
  } finally {
    Deno.removeSync(file);
  }
  return uid;
}

const resolved = new Map<string, Promise<SandboxStatus>>();
let warned = false;

/**
 * The sandbox in force for `env` (the caller's environment) and `home`. Never throws for
 * an unusable sandbox: see {@link assertSandbox}. Memoised per process; in `auto` mode the
 * first fallback to policy mode is reported once through `warn`.
 */
export function resolveSandbox(
  env: Readonly<Record<string, string>>,
  home: string,
  warn?: (message: string) => void,
): Promise<SandboxStatus> {
  const setting = sandboxSetting(env);
  const key = `${setting}\0${env.PATH ?? ""}\0${home}`;
  let status = resolved.get(key);
  if (status === undefined) {
    status = probe(setting, env, home);
    resolved.set(key, status);
  }
  return status.then((s) => {
    if (s.kind === "policy" && s.setting === "auto" && !warned && warn) {
      warned = true;
      warn(`${s.reason}: scripts run without the OS sandbox (policy mode)`);
    }
    return s;
  });
}

/** Throws `dependency_unavailable` when SKILLS_SANDBOX=required and no sandbox works. */
export function assertSandbox(status: SandboxStatus): void {
  if (status.kind === "policy" && status.setting === "required") {
    throw new SkillError(
      "dependency_unavailable",
      `Cannot run scripts: SKILLS_SANDBOX=required and ${lowerFirst(status.reason)}`,
      { hint: status.hint ?? "Set SKILLS_SANDBOX=auto to run in policy mode" },
    );
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

async function probe(
  setting: SandboxSetting,
  env: Readonly<Record<string, string>>,
  home: string,
): Promise<SandboxStatus> {
  if (setting === "off") return { kind: "policy", setting, reason: "SKILLS_SANDBOX=off" };
  if (Deno.build.os !== "linux") {
    const reason = Deno.build.os === "darwin"
      ? "No sandbox is applied on macOS yet (see docs/security.md for the sandbox-exec profile)"
      : `No OS sandbox on ${Deno.build.os}`;
    return { kind: "policy", setting, reason };
  }
  const cacheFile = sandboxProbePath(home);
  const cached = readCache(cacheFile);
  // The same PATH found this bwrap last time: no PATH scan (a miss per entry costs).
  const path = cached?.pathEnv === (env.PATH ?? "") && cached.path !== undefined
    ? cached.path
    : findOnPath("bwrap", env);
  if (path === undefined) {
    return {
      kind: "policy",
      setting,
      reason: "Bubblewrap (bwrap) is not installed or not on PATH",
      hint: INSTALL_HINT,
    };
  }
  let key: string;
  try {
    const info = Deno.statSync(path);
    key = [path, info.ino, info.size, info.mtime?.getTime()].join("|");
  } catch (error) {
    return { kind: "policy", setting, reason: `Cannot read ${path}: ${(error as Error).message}` };
  }
  if (cached?.key === key && cached.version !== undefined) {
    return bwrapStatus(setting, { path, version: cached.version, root: cached.root === true });
  }
  // bwrap.ts only for a probe: policy mode, or a remembered probe, never needs it here.
  const { namespaceArgs, parseBwrapVersion } = await import("./bwrap.ts");
  const root = currentUid() === 0;
  const version = parseBwrapVersion(await output(path, ["--version"]) ?? "");
  if (version === undefined) {
    return {
      kind: "policy",
      setting,
      reason: `Bubblewrap at ${path} did not answer --version`,
      hint: INSTALL_HINT,
    };
  }
  const features = { version, root };
  const trueBin = findOnPath("true", env) ?? "/bin/true";
  const args = [
    ...namespaceArgs(features),
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--",
    trueBin,
  ];
  const failure = await runProbe(path, args);
  if (failure !== undefined) {
    return {
      kind: "policy",
      setting,
      reason: `Bubblewrap at ${path} cannot create a sandbox here (${failure})`,
      hint:
        "User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, an AppArmor policy, or a container without them)",
    };
  }
  try {
    Deno.mkdirSync(join(home, CORE_CACHE_DIR), { recursive: true });
    const record = { key, version, root, path, pathEnv: env.PATH ?? "" };
    writeFileAtomicSync(cacheFile, JSON.stringify(record), { durable: false });
  } catch { /* an unwritable home only costs the next probe */ }
  return bwrapStatus(setting, { path, version, root });
}

function bwrapStatus(setting: SandboxSetting, bwrap: BwrapInfo): SandboxStatus {
  return {
    kind: "bwrap",
    setting,
    bwrap,
    reason: `bubblewrap ${bwrap.version.join(".")} at ${bwrap.path}${
      bwrap.root ? " (running as root: scripts run as an unprivileged uid)" : ""
    }`,
  };
}

interface ProbeRecord {
  key?: string;
  version?: BwrapInfo["version"];
  root?: boolean;
  path?: string;
  pathEnv?: string;
}

/** The remembered probe, each field checked (a bad file is as good as none). */
function readCache(file: string): ProbeRecord | undefined {
  try {
    const data = JSON.parse(Deno.readTextFileSync(file));
    if (data === null || typeof data !== "object") return undefined;
    const record: ProbeRecord = {};
    if (typeof data.key === "string") record.key = data.key;
    if (typeof data.path === "string" && data.path.startsWith("/")) record.path = data.path;
    if (typeof data.pathEnv === "string") record.pathEnv = data.pathEnv;
    if (typeof data.root === "boolean") record.root = data.root;
    if (
      Array.isArray(data.version) && data.version.length === 3 &&
      data.version.every((n: unknown) => Number.isInteger(n) && (n as number) >= 0)
    ) record.version = data.version as BwrapInfo["version"];
    return record;
  } catch {
    return undefined;
  }
}

async function output(command: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(command, {
      args,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return out.success ? new TextDecoder().decode(out.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** Undefined when the probe sandbox ran `true`; else the first line of what went wrong. */
async function runProbe(command: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(command, {
      args,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return undefined;
    const text = new TextDecoder().decode(out.stderr).trim().split("\n")[0] ?? "";
    return text === "" ? `exit ${out.code}` : text.slice(0, 200);
  } catch (error) {
    return (error as Error).message;
  }
}
