/**
 * Running one skill script with limits: a timeout that kills the whole process tree,
 * a stdout cap (read incrementally; past the cap the child is stopped), argument limits,
 * cwd = the workspace (else the script's folder), UTF-8 decoding with replacement, a bounded stderr tail,
 * Ctrl-C (AbortSignal) support, an optional streaming mode, and a trace hook. With a
 * sandbox request the script runs inside the OS sandbox (runtime/sandbox), which also
 * enforces the memory, process, CPU and file-size limits.
 */

import { dirname } from "../os/paths.ts";
import { type ErrorCode, SkillError } from "../../core/errors.ts";
import type { StdinReader } from "../../core/io.ts";
import type { Manifest } from "../../core/manifest/manifest.ts";
import type { LoadedSkill, ScriptInfo } from "../catalog/catalog.ts";
import { type LaunchPlan, planLaunch } from "./languages/launch_plan.ts";
import type { LaunchedProcess } from "./spawn/process_group.ts";
import { spawnLaunch } from "./spawn/spawn_plan.ts";
import { feedStdin, MAX_SCRIPT_STDIN_BYTES } from "./stdin_feed.ts";
import type { SandboxRequest } from "../sandbox/launch.ts";
import { afterDelay, delay } from "../os/timer.ts";
import type { RunReceipt } from "./receipt.ts";

const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** The sandbox's address-space limit unless MAX_SCRIPT_MEMORY says otherwise (4 GiB). */
const DEFAULT_MAX_MEMORY_BYTES = 4 * 1024 ** 3;
/** The smallest MAX_SCRIPT_MEMORY that still lets an interpreter start (64 MiB). */
const MIN_MEMORY_BYTES = 64 * 1024 ** 2;
const MAX_ARGS = 100;
const MAX_ARGS_BYTES = 4096;
/** How much of stderr is kept in memory (the tail). */
const STDERR_KEEP_BYTES = 64 * 1024;
/** How much of the stderr tail goes into error messages. */
const STDERR_MESSAGE_BYTES = 500;
/**
 * How much of it the failure hints read: more than a message shows, since Node and Deno name
 * what failed above a stack trace of a dozen lines (`Cannot find package 'puppeteer'`).
 */
const STDERR_HINT_BYTES = 4096;
/** After the child exits, how long its pipes may stay open (a leftover grandchild). */
const PIPE_GRACE_MS = 250;
/** setTimeout's largest delay (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RunLimits {
  timeoutSeconds: number;
  maxOutputBytes: number;
}

/**
 * Effective limits. Precedence: explicit override (`--timeout`) > environment
 * (`SCRIPT_TIMEOUT` seconds, `MAX_SCRIPT_OUTPUT` bytes) > the skill's manifest
 * `limits: {timeout, max_output}` > defaults (60 s, 1 MiB). Unusable environment values
 * are reported through `warn` and ignored.
 */
export function resolveLimits(
  manifest: Pick<Manifest, "limits">,
  env: Readonly<Record<string, string>>,
  overrides: { timeoutSeconds?: number | undefined; maxOutputBytes?: number | undefined } = {},
  warn: (message: string) => void = () => {},
): RunLimits {
  const fromEnv = (name: string, integer: boolean) => positiveFromEnv(env, name, integer, warn);
  return {
    timeoutSeconds: overrides.timeoutSeconds ?? fromEnv("SCRIPT_TIMEOUT", false) ??
      manifest.limits?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    maxOutputBytes: overrides.maxOutputBytes ?? fromEnv("MAX_SCRIPT_OUTPUT", true) ??
      manifest.limits?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
  };
}

function positiveFromEnv(
  env: Readonly<Record<string, string>>,
  name: string,
  integer: boolean,
  warn: (message: string) => void,
): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    warn(`Ignoring ${name}='${raw}': expected a positive ${integer ? "integer" : "number"}`);
    return undefined;
  }
  return value;
}

/**
 * The OS sandbox's address-space limit per process: `MAX_SCRIPT_MEMORY` bytes (at least
 * 64 MiB, so an interpreter still starts), else 4 GiB. Not enforced in policy mode.
 */
export function resolveMemoryLimit(
  env: Readonly<Record<string, string>>,
  warn: (message: string) => void = () => {},
): number {
  const value = positiveFromEnv(env, "MAX_SCRIPT_MEMORY", true, warn);
  return value === undefined ? DEFAULT_MAX_MEMORY_BYTES : Math.max(MIN_MEMORY_BYTES, value);
}

/**
 * Throws `args_too_large` (exit 2) past 100 arguments or 4 KiB in total (UTF-8). `--json`
 * selects the output mode (`skills run … --json`, script_run's `json`) and is added by us
 * in one path and typed by the user in the other: it is never counted, so both paths
 * count the same arguments.
 */
export function checkArgs(args: readonly string[]): void {
  const counted = args.filter((arg) => arg !== "--json");
  if (counted.length > MAX_ARGS) {
    throw new SkillError(
      "args_too_large",
      `Too many arguments: ${counted.length} (max ${MAX_ARGS})`,
    );
  }
  const encoder = new TextEncoder();
  const bytes = counted.reduce((n, a) => n + encoder.encode(a).length, 0);
  if (bytes > MAX_ARGS_BYTES) {
    throw new SkillError(
      "args_too_large",
      `Arguments too large: ${bytes} bytes (max ${MAX_ARGS_BYTES})`,
    );
  }
}

/** `60` → `60s`, `0.5` → `0.5s`. */
export function formatSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(3))}s`;
}

export interface RunTrace {
  skill: string;
  script: string;
  durationMs: number;
  exitCode: number | null;
  bytesOut: number;
  bytesErr: number;
  /** The outcome's error code, null on success, `internal` for an unexpected exception. */
  error: ErrorCode | "internal" | null;
}

export interface RunRequest {
  /** Where the script starts (the workspace); default: the script's folder. */
  cwd?: string | undefined;
  skill: LoadedSkill;
  script: ScriptInfo;
  /** Arguments as given (validated with {@link checkArgs}). */
  args: readonly string[];
  /** The script's complete environment (see `scriptEnvironment`). */
  env: Record<string, string>;
  /** The caller's SKILLS_PYTHON / SKILLS_UV: they choose the launcher, never reach the script. */
  launcherEnv?: Readonly<Record<string, string>> | undefined;
  limits: RunLimits;
  /** The OS sandbox to run in (see exec/spawn/sandbox_request.ts sandboxRequestFor); undefined: policy mode. */
  sandbox?: SandboxRequest | undefined;
  /** JSON mode: append `--json` unless present, and parse stdout. */
  json: boolean;
  /** The run asks the script for its help: it runs even with declared packages missing. */
  help?: boolean | undefined;
  /**
   * Piped into the script as it arrives, up to MAX_SCRIPT_STDIN_BYTES (exec/stdin_feed.ts);
   * absent: stdin is closed.
   */
  stdin?: StdinReader | undefined;
  /** Called once when the stdin is cut at its bound. */
  onStdinCut?: (() => void) | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Streaming mode: stdout chunks as they arrive (still capped). Outside JSON mode stdout
   * is then not kept in memory.
   */
  onStdout?: ((chunk: Uint8Array) => void) | undefined;
  /** stderr chunks as they arrive (the tail is kept either way). */
  onStderr?: ((chunk: Uint8Array) => void) | undefined;
  onTrace?: ((trace: RunTrace) => void) | undefined;
  /** Debug log (the CLI passes `--verbose` output here). */
  log?: ((message: string) => void) | undefined;
}

export interface RunOutcome {
  launcher: LaunchPlan["launcher"];
  /** The script's exit code (128+n when a signal ended it); null when we stopped it. */
  exitCode: number | null;
  /** Decoded stdout up to the cap ("" in streaming mode). */
  stdout: string;
  bytesOut: number;
  bytesErr: number;
  /** The last {@link STDERR_MESSAGE_BYTES} bytes of stderr, decoded. */
  stderrTail: string;
  /** The last {@link STDERR_HINT_BYTES} bytes of stderr, decoded: what the hints read. */
  stderrEnd: string;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  limits: RunLimits;
  /** JSON mode: the parsed stdout when it was one JSON document. */
  parsed: { value: unknown } | undefined;
  /** null when the run succeeded (see {@link classify}). */
  error: "timeout" | "cancelled" | "parse_error" | "execution_failed" | null;
  /** What the run did (set by exec/script_service). */
  receipt?: RunReceipt | undefined;
  /** The names of the variables the script started with (the sandbox's own included). */
  envNames?: string[] | undefined;
}

/**
 * Runs the script. Throws SkillError for problems before it starts (args_too_large,
 * dependency_unavailable, cancelled), and the dependency_unavailable a failed help run
 * started without its packages would have had; everything else after is the outcome.
 */
export async function runScript(request: RunRequest): Promise<RunOutcome> {
  const started = performance.now();
  let outcome: RunOutcome | undefined;
  let thrown: unknown;
  try {
    outcome = await execute(request, started);
    return outcome;
  } catch (error) {
    thrown = error;
    throw error;
  } finally {
    const trace: RunTrace = {
      skill: request.skill.canonical,
      script: request.script.name,
      durationMs: Math.round(performance.now() - started),
      exitCode: outcome?.exitCode ?? null,
      bytesOut: outcome?.bytesOut ?? 0,
      bytesErr: outcome?.bytesErr ?? 0,
      error: outcome ? outcome.error : thrown instanceof SkillError ? thrown.code : "internal",
    };
    request.onTrace?.(trace);
    request.log?.(
      `run ${trace.skill}/${request.script.file}: ${trace.durationMs} ms, exit ${
        trace.exitCode ?? "-"
      }, ${trace.bytesOut} B out, ${trace.bytesErr} B err, ${trace.error ?? "ok"}${
        outcome ? ` (${outcome.launcher})` : ""
      }`,
    );
  }
}

/**
 * One run in order: the launch planned (nothing started when interrupted meanwhile), the
 * process spawned and watched (timeout, Ctrl-C, the stdout cap), its exit and its pipes
 * awaited, what it holds released whatever happened, then the outcome.
 */
async function execute(request: RunRequest, started: number): Promise<RunOutcome> {
  const args = launchArgs(request);
  const plan = await planLaunch(
    request.script,
    args,
    {
      ...request.env,
      ...request.launcherEnv,
    },
    Deno.build.os,
    request.skill.dir,
    request.help,
  );
  if (request.signal?.aborted) throw new SkillError("cancelled", "Interrupted");
  await logLaunch(request, plan);
  const proc = await spawnLaunch(plan, {
    cwd: request.cwd ?? dirname(request.script.path),
    env: request.env,
    sandbox: request.sandbox,
    stdin: request.stdin === undefined ? "null" : "piped",
  });
  const feed = request.stdin === undefined
    ? undefined
    : feedStdin(request.stdin, proc.child.stdin, MAX_SCRIPT_STDIN_BYTES, request.onStdinCut);
  const watch = new RunWatch(proc, request);
  const { out, err } = watch;
  let status: Deno.CommandStatus | undefined;
  try {
    status = await proc.child.status;
    const drained = Promise.all([out.done, err.done]);
    if (!await settlesWithin(drained, PIPE_GRACE_MS)) {
      // A leftover grandchild holds the pipes open: end it, then stop listening.
      await proc.killTree();
      if (!await settlesWithin(drained, PIPE_GRACE_MS)) {
        out.cancel();
        err.cancel();
      }
    }
    await drained;
  } finally {
    feed?.stop();
    watch.end();
    // Never leave a sandbox's work folder behind, even when reading failed.
    if (status === undefined) await proc.killTree();
    await proc.release();
  }
  const outcome = runOutcome(request, plan, status, watch, started);
  // A help run without the packages it declares that failed: the refusal it would have had.
  if (plan.unmet !== undefined && outcome.error === "execution_failed") throw plan.unmet;
  outcome.envNames = proc.envNames;
  return outcome;
}

/** The script's arguments within the limits, `--json` added in JSON mode. */
function launchArgs(request: RunRequest): string[] {
  checkArgs(request.args);
  return request.json && !request.args.includes("--json")
    ? [...request.args, "--json"]
    : [...request.args];
}

/** The command about to start, and the sandbox's network, for `--verbose`. */
async function logLaunch(request: RunRequest, plan: LaunchPlan): Promise<void> {
  request.log?.(`exec ${plan.command} ${plan.args.map((a) => JSON.stringify(a)).join(" ")}`);
  if (request.sandbox !== undefined && request.log !== undefined) {
    const network = request.sandbox.network;
    // describeNetPolicy's "none" without loading the policies: a sandbox that names no host
    // never needs them (exec/spawn/sandbox_request.ts), and policy mode never does.
    const described = !network.any && network.grants.length === 0
      ? "none"
      : (await import("../../core/policy/net_grants.ts")).describeNetPolicy(network);
    request.log(
      `sandbox: bubblewrap, network ${described}${
        request.sandbox.callerDir ? `, caller directory ${request.sandbox.callerDir}` : ""
      }`,
    );
  }
}

/**
 * A started process watched until it ends: the timeout and Ctrl-C stop its whole tree, its
 * stdout is read up to the cap (past it the process is stopped) and its stderr's tail kept.
 * Each flag says why it was stopped; `end()` stops the timer and the Ctrl-C listener.
 */
class RunWatch {
  timedOut = false;
  aborted = false;
  truncated = false;
  readonly out: Pump;
  readonly err: Pump;
  readonly #cancelTimer: () => void;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: () => void;

  constructor(proc: LaunchedProcess, request: RunRequest) {
    const { limits, signal } = request;
    const stop = () => void proc.killTree();
    this.#cancelTimer = afterDelay(
      Math.min(MAX_TIMER_MS, Math.max(1, Math.round(limits.timeoutSeconds * 1000))),
      () => {
        this.timedOut = true;
        stop();
      },
    );
    this.#signal = signal;
    this.#onAbort = () => {
      this.aborted = true;
      stop();
    };
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (signal?.aborted) this.#onAbort();
    this.out = pump(proc.child.stdout, {
      cap: limits.maxOutputBytes,
      keep: request.onStdout === undefined || request.json ? "head" : "none",
      onChunk: request.onStdout,
      onCap: () => {
        this.truncated = true;
        // End the direct child at once (the tree kill needs a helper process to start); what
        // the tree writes meanwhile is drained and dropped.
        try {
          proc.child.kill("SIGKILL");
        } catch { /* already gone */ }
        stop();
      },
    });
    this.err = pump(proc.child.stderr, {
      cap: Infinity,
      keep: "tail",
      onChunk: request.onStderr,
      onCap: () => {},
    });
  }

  end(): void {
    this.#cancelTimer();
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }
}

/** What the run did, from its exit status and the watch; JSON parsed, the error classified. */
function runOutcome(
  request: RunRequest,
  plan: LaunchPlan,
  status: Deno.CommandStatus,
  watch: RunWatch,
  started: number,
): RunOutcome {
  const { timedOut, aborted, truncated, out, err } = watch;
  const stopped = timedOut || aborted || truncated;
  const stdoutBytes = out.bytes();
  const errBytes = err.bytes();
  const stdout = decodeUtf8(truncated ? trimPartialUtf8(stdoutBytes) : stdoutBytes);
  const outcome: RunOutcome = {
    launcher: plan.launcher,
    exitCode: stopped && !status.success ? null : status.code,
    stdout,
    bytesOut: out.total(),
    bytesErr: err.total(),
    stderrTail: stderrTail(errBytes),
    stderrEnd: stderrTail(errBytes, STDERR_HINT_BYTES),
    truncated,
    timedOut,
    aborted,
    durationMs: Math.round(performance.now() - started),
    limits: request.limits,
    parsed: undefined,
    error: null,
  };
  if (request.json && !truncated) {
    outcome.parsed = parseJsonDocument(stdout);
  }
  outcome.error = classify(outcome, request.json);
  return outcome;
}

/** The outcome's error code (null = success). Order: cancel, timeout, exit code, JSON. */
function classify(outcome: RunOutcome, json: boolean): RunOutcome["error"] {
  if (outcome.aborted) return "cancelled";
  if (outcome.timedOut) return "timeout";
  if (outcome.exitCode !== null && outcome.exitCode !== 0) return "execution_failed";
  if (json && outcome.parsed === undefined) return "parse_error";
  return null;
}

/** Parses stdout as exactly one JSON document (surrounding whitespace allowed). */
function parseJsonDocument(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  try {
    return { value: JSON.parse(trimmed) };
  } catch {
    return undefined;
  }
}

const decoder = new TextDecoder("utf-8", { fatal: false });

function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Drops an incomplete UTF-8 sequence at the end (a cut in the middle of a character). */
export function trimPartialUtf8(bytes: Uint8Array): Uint8Array {
  let i = bytes.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 3 && (bytes[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return bytes;
  const lead = bytes[i]!;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > continuation ? bytes.subarray(0, i) : bytes;
}

/** The last {@link STDERR_MESSAGE_BYTES} bytes, starting at a character boundary. */
export function stderrTail(bytes: Uint8Array, limit = STDERR_MESSAGE_BYTES): string {
  let start = Math.max(0, bytes.length - limit);
  while (start < bytes.length && start > 0 && (bytes[start]! & 0xc0) === 0x80) start++;
  return decodeUtf8(bytes.subarray(start)).trimEnd();
}

interface Pump {
  done: Promise<void>;
  cancel(): void;
  /** Bytes kept (head up to the cap, or the tail). */
  bytes(): Uint8Array;
  /** Bytes received (up to the cap for a capped stream). */
  total(): number;
}

/** Reads a stream incrementally; keeps its head (up to `cap`), its tail, or nothing. */
function pump(
  stream: ReadableStream<Uint8Array>,
  options: {
    cap: number;
    keep: "head" | "tail" | "none";
    onChunk: ((chunk: Uint8Array) => void) | undefined;
    onCap: () => void;
  },
): Pump {
  const reader = stream.getReader();
  let chunks: Uint8Array[] = [];
  let kept = 0;
  let total = 0;
  let cancelled = false;
  const cancel = () => {
    if (cancelled) return;
    cancelled = true;
    reader.cancel().catch(() => {});
  };
  const take = (chunk: Uint8Array) => {
    if (options.keep === "none") return;
    chunks.push(chunk);
    kept += chunk.length;
    if (options.keep === "tail" && kept > STDERR_KEEP_BYTES * 2) {
      const all = concat(chunks, kept);
      const tail = all.slice(all.length - STDERR_KEEP_BYTES);
      chunks = [tail];
      kept = tail.length;
    }
  };
  const done = (async () => {
    let capped = false;
    try {
      while (!cancelled) {
        const { value, done } = await reader.read();
        if (done) break;
        // Past the cap the pipe is drained, not closed, until the kill lands: a closed pipe
        // would make the script's next write fail (Python prints a BrokenPipeError
        // traceback) while it is being stopped anyway.
        if (capped) continue;
        let chunk = value;
        const room = options.cap - total;
        const over = chunk.length > room;
        if (over) chunk = chunk.subarray(0, room);
        total += chunk.length;
        if (chunk.length > 0) {
          take(chunk);
          options.onChunk?.(chunk);
        }
        if (over) {
          capped = true;
          options.onCap();
        }
      }
    } catch {
      /* the stream was cancelled or broke: what we have is the result */
    } finally {
      reader.releaseLock();
    }
  })();
  return {
    done,
    cancel,
    bytes: () => {
      const all = concat(chunks, kept);
      return options.keep === "tail" && all.length > STDERR_KEEP_BYTES
        ? all.subarray(all.length - STDERR_KEEP_BYTES)
        : all;
    },
    total: () => total,
  };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** Whether `promise` settles within `ms` (the timer is always cleared). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timeout = delay(ms, false);
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout.promise]);
  } finally {
    timeout.cancel();
  }
}
