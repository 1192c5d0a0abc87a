/**
 * git, run safely: argv arrays with `--` before positionals (built by pure functions that
 * tests assert), a clean environment (no terminal prompts, no system config, only the
 * transport the source uses, replace refs ignored), hooks disabled, submodules never
 * fetched, a timeout that kills git's whole process group, and 3 attempts with exponential
 * backoff on network errors only.
 */

import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES } from "../../core/manifest/limits.ts";
import type { Transport } from "../../core/sources/sources.ts";
import { afterDelay } from "../os/timer.ts";

const DEFAULT_GIT_TIMEOUT_SECONDS = 120;
const GIT_ATTEMPTS = 3;

type GitFailureKind = "auth" | "network" | "not_found" | "ref_not_found" | "other";

export class GitError extends SkillError {
  readonly kind: GitFailureKind;
  constructor(kind: GitFailureKind, message: string, hint?: string) {
    super("git_failed", message, hint === undefined ? {} : { hint });
    this.name = "GitError";
    this.kind = kind;
  }
}

export interface GitOptions {
  /** The user's environment; git gets a filtered copy. */
  env: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** Per git invocation. Default: SKILLS_GIT_TIMEOUT seconds, else 120 s. */
  timeoutMs?: number;
  /** First retry delay; doubles each time. Default 1000 ms. */
  backoffMs?: number;
  attempts?: number;
  /** Called before each retry (progress output). */
  onRetry?: (attempt: number, delayMs: number, reason: string) => void;
}

/** `-c` settings every git invocation gets. */
export function gitConfigArgs(transport: Transport): string[] {
  const settings = [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "protocol.ext.allow=never",
    `protocol.file.allow=${transport === "file" ? "always" : "never"}`,
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "advice.detachedHead=false",
    "init.defaultBranch=main",
    // A transfer that stalls (under 1 byte/s for 60 s) ends instead of hanging forever.
    "http.lowSpeedLimit=1",
    "http.lowSpeedTime=60",
  ];
  return settings.flatMap((s) => ["-c", s]);
}

/** Environment variables a user may set to steer git's connections. Other GIT_* are dropped. */
const KEPT_GIT_VARS = new Set([
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_SSH_VARIANT",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "GIT_CONFIG_GLOBAL",
  "GIT_EXEC_PATH",
]);

/** The environment git runs with. */
export function gitEnv(
  env: Readonly<Record<string, string>>,
  transport: Transport,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith("GIT_") && !KEPT_GIT_VARS.has(key)) continue;
    if (key === "LANGUAGE" || key.startsWith("LC_")) continue;
    out[key] = value;
  }
  out.GIT_TERMINAL_PROMPT = "0";
  out.GIT_CONFIG_NOSYSTEM = "1";
  out.GIT_ALLOW_PROTOCOL = transport === "file" ? "file" : "https:ssh:git";
  out.LC_ALL = "C";
  // `refs/replace/*` in a repository read in place would let it swap any object for another
  // (a signed commit's tree for a hostile one, an unsigned commit for a signed one): every
  // read and every signature check sees the objects whose hashes were asked for, never a
  // stand-in.
  out.GIT_NO_REPLACE_OBJECTS = "1";
  if (out.GIT_SSH === undefined && out.GIT_SSH_COMMAND === undefined) {
    out.GIT_SSH_COMMAND = "ssh -o BatchMode=yes";
  }
  return out;
}

/**
 * Clones and fetches leave out blobs over MAX_SKILL_FILE_BYTES (`blob:limit` omits blobs of
 * at least n bytes), so a hostile repository's huge files are never downloaded; a server
 * without filter support sends everything, and the cat-file size check refuses it then.
 */
const SIZE_FILTER = `--filter=blob:limit=${MAX_SKILL_FILE_BYTES + 1}`;

/** `git clone` of one branch or tag (or the default branch), shallow. */
export function cloneArgv(
  transport: Transport,
  url: string,
  dest: string,
  options: { branch?: string | undefined; shallow?: boolean; checkout?: boolean } = {},
): string[] {
  const argv = [
    ...gitConfigArgs(transport),
    "clone",
    "--quiet",
    "--no-recurse-submodules",
    SIZE_FILTER,
  ];
  if (options.shallow ?? true) argv.push("--depth", "1", "--no-tags");
  if (options.checkout === false) argv.push("--no-checkout");
  if (options.branch !== undefined) argv.push("--branch", options.branch);
  argv.push("--", url, dest);
  return argv;
}

export function initArgv(transport: Transport, dest: string): string[] {
  return [...gitConfigArgs(transport), "init", "--quiet", "--", dest];
}

/** Fetches exactly one commit into an initialised repository. */
export function fetchCommitArgv(transport: Transport, url: string, sha: string): string[] {
  return [
    ...gitConfigArgs(transport),
    "fetch",
    "--quiet",
    "--depth",
    "1",
    "--no-tags",
    SIZE_FILTER,
    "--",
    url,
    sha,
  ];
}

export function revParseArgv(transport: Transport, rev: string): string[] {
  return [
    ...gitConfigArgs(transport),
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${rev}^{commit}`,
  ];
}

export function lsRemoteArgv(transport: Transport, url: string, refs: readonly string[]): string[] {
  return [...gitConfigArgs(transport), "ls-remote", "--", url, ...refs];
}

/** Sorts git's complaint into what the user can act on. Expects LC_ALL=C output. */
export function classifyGitFailure(stderr: string): GitFailureKind {
  const s = stderr;
  if (
    /Remote branch .* not found|couldn't find remote ref|not our ref|unadvertised object|no such remote ref/i
      .test(s)
  ) return "ref_not_found";
  if (
    /Authentication failed|could not read (Username|Password)|terminal prompts disabled|Permission denied \((publickey|password|keyboard)|returned error: 40[13]|Host key verification failed|invalid credentials/i
      .test(s)
  ) return "auth";
  if (
    /Repository not found|does not appear to be a git repository|returned error: 404|not a git repository|No such file or directory/i
      .test(s)
  ) return "not_found";
  if (
    /Could not resolve host|Connection refused|Connection timed out|Connection reset|Failed to connect|Operation timed out|early EOF|remote end hung up|RPC failed|returned error: 5\d\d|returned error: 429|SSL|TLS|gnutls|Network is unreachable|Temporary failure in name resolution|Could not read from remote repository/i
      .test(s)
  ) return "network";
  return "other";
}

function lastLines(text: string, count = 2): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !/^hint:/.test(l));
  return lines.slice(-count).join(" / ").replace(/^(fatal|error): /, "");
}

/**
 * The error for a failed git command. Messages name no URL (git's detail may): callers add
 * the context, e.g. "Cannot install from <url>: git clone failed: ...". Authentication
 * failures stand on their own: "Repository requires authentication: <url>".
 */
export function gitFailure(verb: string, url: string, stderr: string): GitError {
  const kind = classifyGitFailure(stderr);
  const detail = lastLines(stderr);
  switch (kind) {
    case "auth":
      return new GitError(
        kind,
        `Repository requires authentication: ${url}`,
        "Configure a credential helper (`git config --global credential.helper ...`) or an ssh key, then run the command again; credentials in URLs are refused",
      );
    case "not_found":
      return new GitError(kind, `repository not found (${detail})`, "Check the URL");
    case "network":
      return new GitError(kind, `git ${verb} failed: ${detail}`, "Check the network");
    case "ref_not_found":
      return new GitError(kind, `git ${verb} failed: ${detail}`);
    default:
      return new GitError(kind, `git ${verb} failed: ${detail || "unknown error"}`);
  }
}

export function gitTimeoutMs(env: Readonly<Record<string, string>>): number {
  const raw = Number(env.SKILLS_GIT_TIMEOUT);
  return Number.isFinite(raw) && raw > 0 ? raw * 1000 : DEFAULT_GIT_TIMEOUT_SECONDS * 1000;
}

interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Collector {
  done: Promise<void>;
  cancel(): void;
  text(): string;
}

/** Reads a stream to its end in the background; `text()` once `done` has settled. */
export function collect(stream: ReadableStream<Uint8Array>): Collector {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        chunks.push(value);
      }
    } catch { /* cancelled */ }
  })();
  return {
    done,
    cancel: () => void reader.cancel().catch(() => {}),
    text: () => {
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let offset = 0;
      for (const c of chunks) {
        all.set(c, offset);
        offset += c.length;
      }
      return new TextDecoder().decode(all);
    },
  };
}

/**
 * One git invocation in its own process group. On timeout or abort the group is killed
 * when the permissions allow it (unscoped --allow-run), else git itself; its helpers
 * (git-remote-https, ssh) then see their parent gone, and stalled transfers end on their
 * own (http.lowSpeedTime). We do not wait for helpers still holding the output pipes.
 */
export async function runGit(
  argv: readonly string[],
  transport: Transport,
  options: GitOptions,
  cwd?: string,
): Promise<GitOutput> {
  options.signal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? gitTimeoutMs(options.env);
  const child = new Deno.Command("git", {
    args: [...argv],
    cwd,
    env: gitEnv(options.env, transport),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: Deno.build.os !== "windows",
  }).spawn();
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  let timedOut = false;
  let killed = false;
  const kill = () => {
    killed = true;
    try {
      Deno.kill(-child.pid, "SIGKILL");
      return;
    } catch { /* scoped --allow-run may not signal a group: kill git itself */ }
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const cancelTimer = afterDelay(timeoutMs, () => {
    timedOut = true;
    kill();
  });
  const onAbort = () => kill();
  options.signal?.addEventListener("abort", onAbort);
  try {
    const status = await child.status;
    if (killed) {
      await Promise.race([
        Promise.all([stdout.done, stderr.done]),
        new Promise((r) => setTimeout(r, 200)),
      ]);
      stdout.cancel();
      stderr.cancel();
    } else {
      await Promise.all([stdout.done, stderr.done]);
    }
    options.signal?.throwIfAborted();
    if (timedOut) {
      throw gitTimeout(argv.find((a) => /^[a-z-]+$/.test(a) && a !== "-c") ?? "command", timeoutMs);
    }
    return { code: status.code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    cancelTimer();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

export function gitTimeout(verb: string, timeoutMs: number): SkillError {
  return new SkillError("timeout", `git ${verb} timed out after ${timeoutMs / 1000}s`, {
    hint: "Check the network, or raise SKILLS_GIT_TIMEOUT (seconds)",
  });
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `attempt` up to N times; only GitErrors of kind "network" are retried. */
export async function withRetries<T>(
  options: GitOptions,
  attempt: () => Promise<T>,
  cleanup: () => Promise<void> = () => Promise.resolve(),
): Promise<T> {
  const attempts = options.attempts ?? GIT_ATTEMPTS;
  let delay = options.backoffMs ?? 1000;
  for (let i = 1;; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof GitError) || error.kind !== "network" || i >= attempts) throw error;
      options.onRetry?.(i + 1, delay, error.message);
      await cleanup();
      await abortableSleep(delay, options.signal);
      delay *= 2;
    }
  }
}

/** Runs git and turns a non-zero exit into a classified GitError. */
export async function gitOrThrow(
  verb: string,
  url: string,
  argv: readonly string[],
  transport: Transport,
  options: GitOptions,
  cwd?: string,
): Promise<GitOutput> {
  const out = await runGit(argv, transport, options, cwd);
  if (out.code !== 0) throw gitFailure(verb, url, out.stderr);
  return out;
}

/**
 * Puts a git failure or timeout in the context of the command, following the message
 * grammar ("Cannot install from <url>: git clone timed out after 60s"). Authentication
 * failures and other errors pass through unchanged.
 */
export function inContext(prefix: string, error: unknown): unknown {
  const wrap = (error instanceof GitError && error.kind !== "auth") ||
    (error instanceof SkillError && error.code === "timeout");
  if (!wrap) return error;
  const e = error as SkillError;
  const options = e.hint === undefined
    ? { exitCode: e.exitCode, cause: e }
    : { exitCode: e.exitCode, cause: e, hint: e.hint };
  return e instanceof GitError
    ? Object.assign(new GitError(e.kind, `${prefix}: ${e.message}`, e.hint), { cause: e })
    : new SkillError(e.code, `${prefix}: ${e.message}`, options);
}

/** The commit a fetch or local read produced, and how it was asked for. */
export interface FetchedCommit {
  sha: string;
  /** The branch the checkout follows, when it is one. */
  branch: string | null;
  /** The tag that was checked out, when it is one. */
  tag: string | null;
  /** The ref exactly as requested with --ref / #ref, else null. */
  ref: string | null;
}
