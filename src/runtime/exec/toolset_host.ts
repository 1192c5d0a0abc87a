/**
 * Runs a skill's typed toolsets out of process: the embedded standard-library Python host
 * (toolset_host.py beside this file) is materialised under `$SKILLS_HOME/.cache/core/`, started through
 * the sandbox (trust and integrity check, env allowlist, own process group) and spoken to
 * over JSON lines. One host process per skill; calls are serialised, each with a timeout
 * that kills the whole tree. A host that dies or is killed is restarted on the next call.
 *
 * Starting a host checks the skill (trust, integrity, the launch policy) and learns its
 * tools; the process itself starts only when the tool list is not known for exactly these
 * inputs (toolsets/description_cache.ts: the digest of the verified files, the host, the
 * interpreter, the environment, the sandbox), else at the first call — where the skill is
 * checked again and the host asked again.
 */

import { isAbsolute, join } from "../os/paths.ts";
import { type Envelope, fail } from "../../core/envelope.ts";
import { EXIT_FAILURE, SkillError, toolsetErrorCode } from "../../core/errors.ts";
import {
  array,
  boolean,
  formatIssue,
  isPlainObject,
  matches,
  number,
  object,
  string,
  unknownValue,
  validate,
} from "../../core/manifest/validation.ts";
// @ts-types="../../generated/toolset_host_py.d.ts"
import { TOOLSET_HOST_HASH, TOOLSET_HOST_SOURCE } from "../../generated/toolset_host_py.ts";
import type { LoadedSkill } from "../catalog/catalog.ts";
import { exists, writeFileAtomic } from "../os/fs.ts";
import { CORE_CACHE_DIR } from "../store/home.ts";
import { scriptEnvironment } from "../../core/policy/env_policy.ts";
import type { LaunchPlan } from "./languages/launch_plan.ts";
import type { LaunchedProcess } from "./spawn/process_group.ts";
import { sandboxRequestFor } from "./spawn/sandbox_request.ts";
import { skillGenerationOf, skillKeyOf } from "./spawn/skill_identity.ts";
import { spawnLaunch } from "./spawn/spawn_plan.ts";
import { verifiedSkillAndDigest } from "../trust/snapshot.ts";
import type { SandboxRequest } from "../sandbox/launch.ts";
import { descriptionKey, readDescription, writeDescription } from "./toolsets/description_cache.ts";
import { findOnPath } from "../os/probe.ts";
import { parentWatchEnv } from "./parent_watch.ts";

/** One public method of a toolset class, as the host describes it. */
export interface ToolsetMethod {
  /** The method name, e.g. `greet_in_language`. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A toolset that could not be loaded (reported and skipped; the others keep working). */
interface ToolsetLoadError {
  toolset: string;
  message: string;
}

export interface ToolsetHostOptions {
  home: string;
  /** The effective environment; the host receives only the skill's allowlisted part. */
  env: Readonly<Record<string, string>>;
  log?: (message: string) => void;
  /** Per-call (and start-up) timeout; default the skill's `limits.timeout` or 60 s. */
  timeoutMs?: number;
  /** `AGENT_SKILLS=all-untrusted`: the trust gate lets an untrusted skill's toolsets run. */
  allowUntrusted?: boolean;
  /** Notices (a missing sandbox, a refused connection); default: stderr. */
  warn?: (message: string) => void;
  /** Start the host even when its description is kept: the doctor's check that it starts. */
  startProcess?: boolean;
}

const DEFAULT_TOOLSET_TIMEOUT_MS = 60_000;
/** The host's limits in the OS sandbox: like a script's, without a CPU-time cap (it lives long). */
const HOST_LIMITS = { processes: 256, cpuSeconds: -1, fileSizeBytes: 1024 ** 3 };
const HOST_MEMORY_BYTES = 4 * 1024 ** 3;
/** Largest accepted arguments document (JSON bytes). */
const MAX_TOOLSET_ARGS_BYTES = 64 * 1024;
/** Largest accepted response line; the host itself caps results at 1 MB. */
const MAX_LINE_CHARS = 2 * 1024 * 1024;
const STDERR_TAIL_CHARS = 2000;
const CLOSE_GRACE_MS = 2000;

/** Where the embedded host is written (content-addressed, so versions never mix). */
export function toolsetHostPath(home: string): string {
  return join(home, CORE_CACHE_DIR, `toolset_host-${TOOLSET_HOST_HASH}.py`);
}

async function materializeHost(home: string): Promise<void> {
  const path = toolsetHostPath(home);
  if (!(await exists(path))) {
    await Deno.mkdir(join(home, CORE_CACHE_DIR), { recursive: true });
    await writeFileAtomic(path, TOOLSET_HOST_SOURCE);
  }
}

/** The argv for the host: plain Python (the host is standard library only), never a shell. */
export function hostLaunchPlan(
  hostPath: string,
  skill: Pick<LoadedSkill, "dir" | "manifest">,
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os = Deno.build.os,
): LaunchPlan {
  const configured = env.SKILLS_PYTHON?.trim() || (os === "windows" ? "python" : "python3");
  // An absolute interpreter from PATH's absolute entries (never the working directory's);
  // -s: no user site-packages. (Not -I: it would drop the parent watch's PYTHONPATH; the host
  // removes the working and its own directory from sys.path itself.)
  const python = isAbsolute(configured)
    ? configured
    : findOnPath(configured, env, os) ?? configured;
  return {
    command: python,
    args: ["-B", "-s", hostPath, skill.dir, ...skill.manifest.toolsets],
    launcher: "python3",
  };
}

/** A host ready to launch: the checked skill, its argv, environment and sandbox. */
interface Launch {
  skill: LoadedSkill;
  plan: LaunchPlan;
  hostEnv: Record<string, string>;
  sandbox: SandboxRequest | undefined;
  /** The key of its description; undefined when the interpreter is no file to identify. */
  key: string | undefined;
}

interface Pending {
  resolve: (document: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** One running host process. */
class HostProcess {
  readonly #process: LaunchedProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, Pending>();
  readonly #log: ((message: string) => void) | undefined;
  readonly done: Promise<void>;
  #nextId = 1;
  #stderrTail = "";
  alive = true;

  constructor(process: LaunchedProcess, log: ((message: string) => void) | undefined) {
    this.#process = process;
    this.#log = log;
    this.#writer = process.child.stdin.getWriter();
    this.done = Promise.all([this.#readStdout(), this.#readStderr(), process.release()])
      .then(() => this.#exited());
  }

  get stderrTail(): string {
    return this.#stderrTail.trim();
  }

  async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!this.alive) throw new Error("the toolset host is not running");
    const id = this.#nextId++;
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    const line = `${JSON.stringify({ id, ...body })}\n`;
    try {
      await this.#writer.write(new TextEncoder().encode(line));
    } catch (error) {
      this.#pending.delete(id);
      throw new Error(`the toolset host stopped reading (${(error as Error).message})`);
    }
    return await reply;
  }

  async kill(): Promise<void> {
    this.alive = false;
    await this.#process.killTree();
    await this.#writer.abort().catch(() => {});
    await this.done;
  }

  /** Asks the host to stop, then kills it if it has not exited after a grace period. */
  async shutdown(): Promise<void> {
    if (!this.alive) return await this.done;
    this.alive = false;
    await this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), CLOSE_GRACE_MS);
    });
    const outcome = await Promise.race([this.done.then(() => "done" as const), grace]);
    clearTimeout(timer);
    if (outcome === "late") await this.#process.killTree();
    await this.done;
  }

  async #readStdout(): Promise<void> {
    let buffer = "";
    const reader = this.#process.child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) !== -1) {
          this.#dispatch(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
        }
        if (buffer.length > MAX_LINE_CHARS) {
          this.#failAll(new Error("the toolset host sent an oversized response"));
          buffer = "";
          this.alive = false;
          await this.#process.killTree();
        }
      }
    } catch {
      /* the stream is gone: the process ended */
    } finally {
      reader.releaseLock();
    }
  }

  async #readStderr(): Promise<void> {
    const reader = this.#process.child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#stderrTail = (this.#stderrTail + value).slice(-STDERR_TAIL_CHARS);
        for (const line of value.split("\n")) {
          if (line.trim() !== "") this.#log?.(`toolset: ${line}`);
        }
      }
    } catch {
      /* ignore */
    } finally {
      reader.releaseLock();
    }
  }

  #dispatch(line: string): void {
    if (line.trim() === "") return;
    let document: unknown;
    try {
      document = JSON.parse(line);
    } catch {
      this.#log?.(`toolset host sent a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (!matches(RESPONSE, document)) return;
    const pending = this.#pending.get(document.id);
    if (pending === undefined) return;
    this.#pending.delete(document.id);
    pending.resolve(document);
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #exited(): void {
    this.alive = false;
    const tail = this.stderrTail;
    this.#failAll(
      new Error(`the toolset host exited${tail === "" ? "" : `\nstderr: ${tail.slice(-500)}`}`),
    );
  }
}

/**
 * The describes under way in this process, by description key: starts of the same toolsets
 * with the same inputs (skills context warming a toolset while it activates other skills)
 * share one host's answer.
 */
const describing = new Map<string, Promise<void>>();

/**
 * A skill's toolsets. `start()` loads them and learns their methods; `call()` runs one.
 * Never throws from `call()`: every problem is an envelope.
 */
export class ToolsetHost {
  readonly skill: LoadedSkill;
  methods: ToolsetMethod[] = [];
  errors: ToolsetLoadError[] = [];
  readonly #options: ToolsetHostOptions;
  readonly #timeoutMs: number;
  #process: HostProcess | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(skill: LoadedSkill, options: ToolsetHostOptions) {
    this.skill = skill;
    this.#options = options;
    const limit = skill.manifest.limits?.timeoutSeconds;
    this.#timeoutMs = options.timeoutMs ??
      (limit !== undefined ? limit * 1000 : DEFAULT_TOOLSET_TIMEOUT_MS);
  }

  /**
   * Checks `skill` and learns its toolsets' tools: from the description kept for exactly
   * these inputs, else by starting the host and asking it. Throws SkillError
   * (`untrusted`, `integrity_mismatch`, `dependency_unavailable`, `execution_failed`, ...).
   */
  static async start(skill: LoadedSkill, options: ToolsetHostOptions): Promise<ToolsetHost> {
    const host = new ToolsetHost(skill, options);
    try {
      const launch = await host.#prepare();
      const { key } = launch;
      if (key === undefined || options.startProcess === true) {
        await host.#spawn(launch);
        return host;
      }
      // A host of this process already asking the same toolsets: its answer is kept under
      // this key, so wait for it rather than start a second host (a failed one is no answer:
      // this start asks for itself).
      // (No await between looking and registering below when none is under way: two starts
      // must not both find none.)
      const underWay = describing.get(key);
      if (underWay !== undefined) await underWay.catch(() => {});
      const kept = readDescription(options.home, key);
      if (kept !== undefined) {
        host.#learn(kept);
      } else {
        const spawned = host.#spawn(launch);
        describing.set(key, spawned);
        try {
          await spawned;
        } finally {
          if (describing.get(key) === spawned) describing.delete(key);
        }
      }
    } catch (error) {
      await host.close();
      throw error;
    }
    return host;
  }

  /** Calls one method. Arguments are untrusted; the host validates them against the schema. */
  call(method: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<Envelope> {
    const run = this.#queue.then(() => this.#call(method, args, options.signal));
    this.#queue = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue.catch(() => {});
    const process = this.#process;
    this.#process = undefined;
    await process?.shutdown();
  }

  /** The checked skill and everything its host is launched with, and the key of that. */
  async #prepare(): Promise<Launch> {
    const { home, env, log } = this.#options;
    // The verified private copy, described by its own manifest (trust/snapshot.ts).
    const { skill, digest } = await verifiedSkillAndDigest(this.skill, home, {
      allowUntrusted: this.#options.allowUntrusted === true,
    });
    const hostPath = toolsetHostPath(home);
    const plan = hostLaunchPlan(hostPath, skill, env);
    const hostEnv = scriptEnvironment(skill, env);
    const sandbox = await sandboxRequestFor(skill, {
      home,
      env,
      cwd: skill.dir,
      // The same cache as the skill's scripts: keyed by the skill as listed, not its copy.
      skillKey: skillKeyOf(this.skill),
      skillGeneration: skillGenerationOf(this.skill),
      readOnly: [hostPath],
      limits: { ...HOST_LIMITS, memoryBytes: HOST_MEMORY_BYTES },
      warn: this.#options.warn,
      log,
    });
    const key = descriptionKey({
      host: TOOLSET_HOST_HASH,
      digest,
      toolsets: skill.manifest.toolsets,
      interpreter: plan.command,
      env: hostEnv,
      sandbox: sandbox === undefined ? null : { network: sandbox.network, limits: sandbox.limits },
    });
    return { skill, plan, hostEnv, sandbox, key };
  }

  async #spawn({ skill, plan, hostEnv, sandbox, key }: Launch): Promise<void> {
    const { home, log } = this.#options;
    await materializeHost(home);
    // Inside the sandbox --die-with-parent does the parent watch's job (runner.ts).
    if (sandbox === undefined) {
      Object.assign(hostEnv, parentWatchEnv(home, hostEnv, log));
      // -s keeps the user site out already: the watch must not put it back.
      delete hostEnv.PYTHONNOUSERSITE;
    }
    const spawned = await spawnLaunch(plan, {
      cwd: skill.dir,
      env: hostEnv,
      stdin: "piped",
      sandbox,
    });
    const process = new HostProcess(spawned, log);
    this.#process = process;
    const described = await this.#withTimeout(process, { op: "describe" }, undefined);
    if (described.kind !== "reply") {
      throw new SkillError(
        described.kind === "timeout" ? "timeout" : "execution_failed",
        `Cannot load the toolsets of skill '${this.skill.canonical}': ${described.message}`,
        // Kept at 1, as before the exit table (which says 124 for a timeout), so that
        // `skills call` keeps its exit status; worth aligning with DESIGN §4.3 separately.
        { exitCode: EXIT_FAILURE },
      );
    }
    this.#learn(described.document);
    // Kept as it was taken: what a later activation reads is what this one mounted.
    if (key !== undefined) {
      writeDescription(home, key, {
        tools: this.methods.map((m) => ({
          name: m.name,
          description: m.description,
          input_schema: m.inputSchema,
        })),
        errors: this.errors,
      });
    }
  }

  /** Takes the tools (and the toolsets that failed to load) from a description. */
  #learn(document: Record<string, unknown>): void {
    const { methods, errors } = parseDescription(document);
    this.methods = methods;
    this.errors = errors;
    for (const error of errors) {
      this.#options.log?.(
        `Toolset ${error.toolset} of skill '${this.skill.canonical}' skipped: ${error.message}`,
      );
    }
  }

  async #call(method: string, args: unknown, signal: AbortSignal | undefined): Promise<Envelope> {
    const label = `${this.skill.canonical} ${method}`;
    try {
      if (this.#closed) return fail("execution_failed", `Toolset host for ${label} is closed`);
      if (!this.methods.some((m) => m.name === method)) {
        return fail("not_found", `Skill '${this.skill.canonical}' has no toolset tool '${method}'`);
      }
      const encoded = JSON.stringify(args ?? {});
      if (new TextEncoder().encode(encoded).length > MAX_TOOLSET_ARGS_BYTES) {
        return fail(
          "args_too_large",
          `Arguments for ${label} exceed ${MAX_TOOLSET_ARGS_BYTES} bytes`,
        );
      }
      if (signal?.aborted) return fail("cancelled", `Call to ${label} was cancelled`);
      if (this.#process === undefined || !this.#process.alive) {
        await this.#process?.kill();
        await this.#spawn(await this.#prepare());
      }
      const outcome = await this.#withTimeout(
        this.#process!,
        { op: "call", tool: method, arguments: args ?? {} },
        signal,
      );
      if (outcome.kind === "reply") return envelopeFrom(outcome.document, label);
      if (outcome.kind === "timeout") {
        return fail("timeout", `Tool ${label} timed out after ${this.#timeoutMs / 1000}s`);
      }
      if (outcome.kind === "cancelled") return fail("cancelled", `Call to ${label} was cancelled`);
      return fail("execution_failed", `Tool ${label} failed: ${outcome.message}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return error instanceof SkillError
        ? fail(error.code, error.hint ? `${message}\n${error.hint}` : message)
        : fail("execution_failed", `Tool ${label} failed: ${message}`);
    }
  }

  /** Sends one request; on timeout or abort the host's process tree is killed. */
  async #withTimeout(
    process: HostProcess,
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<
    | { kind: "reply"; document: Record<string, unknown> }
    | { kind: "timeout" | "cancelled" | "failed"; message: string }
  > {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<"timeout" | "cancelled">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#timeoutMs);
      onAbort = () => resolve("cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const result = await Promise.race([
        process.request(body).then(
          (document) => ({ kind: "reply" as const, document }),
          (error: Error) => ({ kind: "failed" as const, message: error.message }),
        ),
        stop.then((kind) => ({ kind, message: kind === "timeout" ? "timed out" : "cancelled" })),
      ]);
      if (result.kind === "timeout" || result.kind === "cancelled") await process.kill();
      return result;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** A line from the host answers the request with its `id`; anything else is ignored. */
const RESPONSE = object({ id: number() });
const LIST = array(unknownValue());
const TEXT = string();
const NAMED_TOOL = object({ name: TEXT });

/**
 * Validates the host's `describe` answer (it is data from a child process). Lenient on
 * purpose: a malformed tool or error entry is skipped and the others are kept.
 */
export function parseDescription(
  document: Record<string, unknown>,
): { methods: ToolsetMethod[]; errors: ToolsetLoadError[] } {
  const methods: ToolsetMethod[] = [];
  const errors: ToolsetLoadError[] = [];
  for (const tool of matches(LIST, document.tools) ? document.tools : []) {
    if (!matches(NAMED_TOOL, tool)) continue;
    methods.push({
      name: tool.name,
      description: matches(TEXT, tool.description) ? tool.description : tool.name,
      inputSchema: isPlainObject(tool.input_schema)
        ? tool.input_schema
        : { type: "object", properties: {} },
    });
  }
  for (const error of matches(LIST, document.errors) ? document.errors : []) {
    if (!isPlainObject(error)) continue;
    errors.push({ toolset: String(error.toolset ?? "?"), message: String(error.message ?? "") });
  }
  return { methods, errors };
}

/** A `call` answer carries an envelope; the rest of the envelope is the toolset's business. */
const CALL_REPLY = object({ envelope: object({ success: boolean() }) });

/** The envelope inside a `call` answer, checked for shape. */
export function envelopeFrom(document: Record<string, unknown>, label: string): Envelope {
  const reply = validate(CALL_REPLY, document);
  if (!reply.ok) {
    return fail(
      "parse_error",
      `Tool ${label} returned a malformed envelope (${formatIssue(reply.issue)})`,
    );
  }
  const { envelope } = reply.value;
  const message = matches(TEXT, envelope.message) ? envelope.message : "";
  if (envelope.success) return { ...envelope, success: true, result: envelope.result, message };
  // A toolset may answer with a code of its own (`unsupported_language`): passed through.
  const error = matches(TEXT, envelope.error)
    ? toolsetErrorCode(envelope.error)
    : "execution_failed";
  return { ...envelope, success: false, error, message };
}
