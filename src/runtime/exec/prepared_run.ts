/**
 * A script run once its skill is resolved: what the catalog and trust decided (the verified
 * skill and script, and what the sandbox must know of the catalog: `ResolvedRun`) turned into
 * the run itself — the environment, the workspace, the limits, the receipt, the sandbox — and
 * the run's envelope. Apart from script_service.ts (which resolves through the catalog) so
 * that a run whose resolution is reused from its run plan (run_plan.ts) loads neither the
 * catalog nor trust.
 */

import { type Envelope, fail, ok } from "../../core/envelope.ts";
import { SkillError, UsageError } from "../../core/errors.ts";
import type { StdinReader } from "../../core/io.ts";
import type { LoadedSkill, ScriptInfo } from "../catalog/catalog.ts";
import {
  checkArgs,
  formatSeconds,
  resolveLimits,
  resolveMemoryLimit,
  type RunLimits,
  type RunOutcome,
  runScript,
  type RunTrace,
} from "./runner.ts";
import { scriptEnvironment } from "../../core/policy/env_policy.ts";
import {
  looksLikeNetworkFailure,
  missingProgram,
  missingProgramHint,
  scriptFailureHint,
  unreachedHostsHint,
} from "../../core/scripts/script_hints.ts";
import { sandboxRequestFor } from "./spawn/sandbox_request.ts";
import type { SandboxRequest } from "../sandbox/launch.ts";
import { dirname, join, relative, SEP } from "../os/paths.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { findOnPath } from "../os/probe.ts";
import { decideWorkspace, refusedGrant, sandboxHides } from "../../core/policy/workspace_rules.ts";
import { listingStore } from "../masks/listing_cache.ts";
import {
  quarantineCreated,
  scanWorkspace,
  snapshotWorkspace,
  workspaceChanges,
  type WorkspaceScan,
} from "./workspace_walk.ts";
import { compactReceipt, ReceiptCollector, type RunReceipt } from "./receipt.ts";
import { MAX_SCRIPT_STDIN_BYTES } from "./stdin_feed.ts";

import type { ApplyPlan } from "../workspace/apply.ts";
// The copy-on-write transaction (and the overlay and run-folder modules under it) loads only
// for a sandboxed run with a writable workspace, the parent watch only in policy mode: a run
// loads the modules of its own mode (each module on the path costs start-up time).
import type { RunOverlay } from "./transaction.ts";

/** Why a `--help` run's diff is discarded (ScriptDeps.discard). */
export const HELP_RUN = "a --help run changes nothing";

export interface ScriptDeps {
  home: string;
  /** The caller's effective environment; scripts see only its allowlisted part. */
  env: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** Debug lines (one per run: skill, script, duration, exit code, bytes, error). */
  log?: ((message: string) => void) | undefined;
  /** `--env NAME` / `--env NAME=VALUE` requests (checked against the allowlist). */
  extraEnv?: readonly string[] | undefined;
  /** Overrides SCRIPT_TIMEOUT and the manifest's `limits.timeout`. */
  timeoutSeconds?: number | undefined;
  /** Overrides MAX_SCRIPT_OUTPUT and the manifest's `limits.max_output`. */
  maxOutputBytes?: number | undefined;
  /** Hook point for spans/metrics: called once per run. */
  onTrace?: ((trace: RunTrace) => void) | undefined;
  /** `AGENT_SKILLS=all-untrusted`: the trust gate lets untrusted skills run. */
  allowUntrusted?: boolean | undefined;
  /**
   * The workspace: the caller's directory, where scripts start (SKILLS_CALLER_DIR) and may
   * write, guarded paths excepted. Without it a script starts in its own folder, read-only.
   */
  cwd?: string | undefined;
  /** `--read-only` (SKILLS_READ_ONLY in `env` says the same). */
  readOnly?: boolean | undefined;
  /** `--write PATH` grants: more folders scripts may write. */
  write?: readonly string[] | undefined;
  /** False: the skill's own `permissions.network` is ignored (lint of unreviewed code). */
  declaredNetwork?: boolean | undefined;
  /** `--allow-net HOST[:PORT]` grants for this run (on top of SKILLS_ALLOW_NET). */
  allowNet?: readonly string[] | undefined;
  /** Notices for the user (a missing sandbox, a refused connection); default: stderr. */
  warn?: ((message: string) => void) | undefined;
  /**
   * `--review`: shown what the run would change in the workspace, answers whether to apply
   * it (declined: nothing is written). Without it the diff is applied.
   */
  review?: ((plan: ApplyPlan) => Promise<boolean>) | undefined;
  /**
   * Set: the run's diff is never applied, and why ({@link HELP_RUN}: asking a script for its
   * help must not change the user's folder, whatever the script does with `--help`). Policy
   * mode has no diff: its scripts write the folder directly.
   */
  discard?: string | undefined;
  /**
   * `skills run`'s own stdin when it is not a terminal, passed to the script (bounded by
   * MAX_SCRIPT_STDIN_BYTES); absent (a terminal, chat, MCP, the library): stdin is closed.
   */
  stdin?: StdinReader | undefined;
  /**
   * A service (`skills run --background`, runtime/services): its ports relayed through Unix
   * sockets in `relayDir`, its `--write` folders live, and its diff applied when it is stopped
   * (by `skills stop`, its idle timeout or its lifetime) rather than discarded. Needs the sandbox.
   */
  service?: {
    relayDir: string;
    maxPorts: number;
    /** The overlay's upper layer once it is made: what the service has written so far. */
    onLayer?: ((upper: string) => void) | undefined;
  } | undefined;
}

/**
 * What the catalog and trust decide for a run, and all a run needs of them: the skill as it
 * may run (its verified copy) and the script found there, the digest the receipt names, the
 * sandbox's keys for the skill's cache, and every other skill's folder for the sandbox to hide.
 */
export interface ResolvedRun {
  skill: LoadedSkill;
  script: ScriptInfo;
  /** The trusted digest of the skill as listed (null for a bundled one). */
  digest: string | null;
  skillKey: string;
  /** The skill's cache folder's id (exec/spawn/skill_identity.ts skillCacheIdOf of the key). */
  skillCacheId: string;
  skillGeneration: string;
  otherSkills: string[];
}

export interface PreparedRun {
  skill: LoadedSkill;
  script: ScriptInfo;
  args: string[];
  env: Record<string, string>;
  limits: RunLimits;
  /** Undefined in policy mode. */
  sandbox: SandboxRequest | undefined;
  /** Where the script starts: the workspace, else its own folder. */
  cwd: string;
  receipt: ReceiptCollector;
  /** Where guarded paths a run creates are moved, relative to `$SKILLS_HOME`. */
  quarantine: string;
  /** The copy-on-write workspace's engine: the run's diff is applied after it. */
  overlay?: RunOverlay | undefined;
  /**
   * The `--write` folders the sandbox binds, each with its walk before the run: they are
   * written directly, so the guarded names a run makes there are moved aside after it.
   */
  grants: { dir: string; guards: WorkspaceScan }[];
}

/**
 * Everything between a resolved skill and its start, in order, each using the one before: the
 * environment from the verified manifest's allowlist, the workspace, limits, the receipt, the
 * sandbox (or policy mode). `args` are checked already ({@link stringArguments}).
 */
export async function prepareResolved(
  resolved: ResolvedRun,
  args: readonly string[],
  deps: ScriptDeps,
): Promise<PreparedRun> {
  const { skill, script } = resolved;
  const env = scriptEnvironment(skill, deps.env, deps.extraEnv ?? []);
  // Scripts that locate their own files find the verified copy here (or by __file__).
  env.SKILLS_SKILL_DIR = skill.dir;
  const workspace = resolveWorkspace(deps);
  // The skill root importable, as its authors run it (`from scripts.x import …`); the
  // script's own folder is on sys.path already. Never taken from the caller's environment.
  if (script.language === "python") env.PYTHONPATH = skill.dir;
  const limits = resolveLimits(skill.manifest, deps.env, {
    timeoutSeconds: deps.timeoutSeconds,
    maxOutputBytes: deps.maxOutputBytes,
  }, (message) => deps.log?.(message));
  const receipt = runReceipt(resolved, env, workspace);
  const cwd = workspace.dir ?? dirname(script.path);
  const sandbox = await sandboxRequestFor(
    skill,
    sandboxScope(resolved, cwd, workspace, limits, receipt, deps),
  );
  if (sandbox === undefined && deps.service !== undefined) {
    throw new SkillError(
      "dependency_unavailable",
      `Cannot start '${script.name}' as a service: services run only inside the sandbox (bubblewrap), which is not in force`,
      { hint: "Install bubblewrap, or run the script in the foreground" },
    );
  }
  if (sandbox === undefined) {
    await policyMode(env, workspace, deps);
    // Policy mode's receipt is two walks, this one and the one after the run.
    if (workspace.writable && workspace.dir !== undefined) {
      receipt.scan = snapshotWorkspace(workspace.dir, {
        store: listingStore(deps.home, "policy"),
      });
    }
  } else {
    receipt.base.sandbox = "bubblewrap";
    if (deps.service !== undefined) sandbox.service = deps.service;
  }
  const overlay = sandbox === undefined || !workspace.writable || workspace.dir === undefined
    ? undefined
    : (await import("./transaction.ts")).copyOnWrite(sandbox, workspace, receipt, deps.warn);
  const quarantine = join(
    ".cache",
    "quarantine",
    `${new Date().toISOString().replace(/[:.]/g, "-")}-${skill.canonical}`,
  );
  return {
    skill,
    script,
    args: [...args],
    env,
    limits,
    sandbox,
    cwd,
    receipt,
    quarantine,
    overlay,
    grants: sandbox === undefined ? [] : workspace.grants,
  };
}

/** The arguments as strings within the limits (a caller's JSON may send anything). */
export function stringArguments(args: readonly unknown[]): string[] {
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
    throw new SkillError("usage", "Script arguments must be a list of strings");
  }
  const stringArgs = args as string[];
  checkArgs(stringArgs);
  return stringArgs;
}

/**
 * The run's receipt, begun: which skill, script and trusted digest, the environment's
 * names, the workspace (policy mode until the sandbox is known).
 */
function runReceipt(
  { skill, script, digest }: ResolvedRun,
  env: Record<string, string>,
  workspace: ResolvedWorkspace,
): ReceiptCollector {
  return new ReceiptCollector(
    {
      skill: skill.canonical,
      script: script.name,
      digest,
      sandbox: "policy",
      env: Object.keys(env),
      workspace: {
        writable: workspace.writable,
        ...(workspace.reason ? { reason: workspace.reason } : {}),
      },
    },
    undefined, // policy mode's walk, taken once the sandbox is known not to be there
  );
}

/** What the sandbox is asked for this run: the folders, grants, network, limits, the receipt's ears. */
function sandboxScope(
  resolved: ResolvedRun,
  cwd: string,
  workspace: ResolvedWorkspace,
  limits: RunLimits,
  receipt: ReceiptCollector,
  deps: ScriptDeps,
): Parameters<typeof sandboxRequestFor>[1] {
  return {
    home: deps.home,
    env: deps.env,
    cwd,
    callerDir: deps.cwd,
    // No walk: the sandbox's own search (runtime/masks, no depth or entry cap) finds every
    // secret file, and a writable workspace is an overlay whose diff is applied afterwards
    // with its guarded paths held back, or read-only where no overlay can be had: guard
    // lists would matter only to a workspace written directly, which a sandbox never is.
    workspace: {
      writable: workspace.writable && workspace.dir !== undefined,
      guards: { readOnly: [], pins: [], secrets: [] },
    },
    grants: workspace.grants,
    declaredNetwork: deps.declaredNetwork !== false,
    // Its cache and (as root) its uid belong to this skill of this origin only.
    skillKey: resolved.skillKey,
    skillCacheId: resolved.skillCacheId,
    skillGeneration: resolved.skillGeneration,
    onAllowed: receipt.allowed,
    onDenied: receipt.denied,
    otherSkills: resolved.otherSkills,
    allowNet: deps.allowNet,
    limits: {
      processes: SCRIPT_PROCESSES,
      memoryBytes: resolveMemoryLimit(deps.env, (message) => deps.log?.(message)),
      // CPU seconds per process: past the wall-clock timeout only a multi-threaded
      // script gets near it, and the timeout stops the run first.
      cpuSeconds: Math.ceil(limits.timeoutSeconds) * 2 + 10,
      fileSizeBytes: SCRIPT_FILE_BYTES,
    },
    warn: deps.warn,
    log: deps.log,
  };
}

/**
 * Policy mode (no sandbox): the parent watch stops scripts outliving a killed CLI (inside,
 * bubblewrap's --die-with-parent does, and the watch could not see the CLI's pid), the
 * caller's folder said (in the sandbox it is set where the folder is shown,
 * sandbox/launch.ts), and once per process that a writable workspace's guards cannot hold.
 */
async function policyMode(
  env: Record<string, string>,
  workspace: ResolvedWorkspace,
  deps: ScriptDeps,
): Promise<void> {
  const { parentWatchEnv } = await import("./parent_watch.ts");
  Object.assign(env, parentWatchEnv(deps.home, env, deps.log));
  if (deps.cwd !== undefined) env.SKILLS_CALLER_DIR = deps.cwd;
  if (workspace.writable && !policyWorkspaceSaid) {
    policyWorkspaceSaid = true; // once per process: chat and MCP run many scripts
    deps.warn?.(
      "policy mode: guarded paths in the workspace cannot be protected; the receipt lists what the script changed",
    );
  }
}

let policyWorkspaceSaid = false;

interface ResolvedWorkspace {
  dir?: string | undefined;
  writable: boolean;
  reason?: string | undefined;
  grants: { dir: string; guards: WorkspaceScan }[];
}

function realPathOr(path: string | undefined): string | undefined {
  if (path === undefined || path === "") return undefined;
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** The workspace's directory, whether scripts may write it, its guards, and `--write` grants. */
function resolveWorkspace(deps: ScriptDeps): ResolvedWorkspace {
  const dir = realPathOr(deps.cwd);
  const skillsHome = realPathOr(deps.home) ?? deps.home;
  const home = realPathOr(deps.env.HOME);
  const readOnly = deps.readOnly === true || isTruthy(deps.env.SKILLS_READ_ONLY);
  const grants = (deps.write ?? []).map((path) => {
    const real = realPathOr(path);
    if (real === undefined || !Deno.statSync(real).isDirectory) {
      throw new UsageError(`Cannot grant --write ${path}: it is not a folder`);
    }
    const refused = refusedGrant(real, skillsHome, home);
    if (refused !== undefined) {
      throw new UsageError(
        `Cannot grant --write ${path}: ${refused}`,
        "Grant a narrower folder, e.g. the project folder scripts should write",
      );
    }
    return { dir: real, guards: scanWorkspace(real) };
  });
  if (dir === undefined) return { writable: false, grants };
  const decision = decideWorkspace({ dir, home, skillsHome, readOnly });
  if (decision.warning !== undefined) deps.warn?.(decision.warning);
  return {
    dir,
    writable: decision.writable,
    reason: decision.reason,
    grants,
  };
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** Processes (and threads) a sandboxed script may have at once. */
const SCRIPT_PROCESSES = 256;
/** The largest file a sandboxed script may write (1 GiB). */
const SCRIPT_FILE_BYTES = 1024 ** 3;

interface StreamHooks {
  stdout?: (chunk: Uint8Array) => void;
  stderr?: (chunk: Uint8Array) => void;
}

/**
 * Runs a prepared script (streaming when hooks are given). Throws only before it starts, or
 * after a failed help run that started without packages it declares (runner.ts).
 */
export async function executeRun(
  prepared: PreparedRun,
  json: boolean,
  deps: ScriptDeps,
  hooks: StreamHooks = {},
): Promise<RunOutcome> {
  // The kernel stamps change times from a coarse clock (one tick, a few ms, behind): a
  // margin of 50 ms only ever over-reports, by a file changed just before the run.
  const started = Date.now() - 50;
  const transaction = prepared.overlay === undefined ? undefined : await import("./transaction.ts");
  const layer = await transaction?.openRunLayer(prepared, deps);
  if (layer !== undefined) deps.service?.onLayer?.(layer.upper);
  let outcome: RunOutcome;
  try {
    outcome = await runScript({
      cwd: prepared.cwd,
      skill: prepared.skill,
      script: prepared.script,
      args: prepared.args,
      env: prepared.env,
      launcherEnv: launcherSettings(deps.env),
      limits: prepared.limits,
      sandbox: transaction === undefined
        ? prepared.sandbox
        : transaction.withLayer(prepared, layer),
      json,
      help: deps.discard === HELP_RUN,
      stdin: deps.stdin,
      onStdinCut: () =>
        deps.warn?.(
          `stdin cut at ${MAX_SCRIPT_STDIN_BYTES} bytes: the script's stdin ended there`,
        ),
      signal: deps.signal,
      onStdout: hooks.stdout,
      onStderr: hooks.stderr,
      onTrace: deps.onTrace,
      log: deps.log,
    });
  } catch (error) {
    try {
      holdBackCreated(prepared, deps); // a script stopped part way may have made some already
    } finally {
      await layer?.dispose();
    }
    throw error;
  }
  holdBackCreated(prepared, deps);
  const scan = prepared.receipt.scan;
  const committed = layer === undefined || transaction === undefined
    ? undefined
    : await transaction.commitWorkspace(prepared, outcome, layer, deps);
  const changes = committed !== undefined
    ? transaction!.receiptChanges(committed)
    : scan === undefined
    ? undefined
    : workspaceChanges(scan, started, join(deps.home, prepared.quarantine));
  if (outcome.envNames !== undefined) prepared.receipt.base.env = outcome.envNames;
  outcome.receipt = prepared.receipt.finish(
    outcome.exitCode,
    outcome.durationMs,
    changes,
    `$SKILLS_HOME/${prepared.quarantine}`,
  );
  return outcome;
}

/**
 * The guarded names a run made in its `--write` folders (an `.envrc`, a `.vscode/`, CI
 * workflows, at any depth), moved to the run's quarantine, each said on stderr: those folders
 * are written directly, and a guarded path that was not there before had nothing bound over it.
 */
function holdBackCreated(prepared: PreparedRun, deps: ScriptDeps): void {
  prepared.grants.forEach((grant, i) => {
    const folder = join(prepared.quarantine, "write", String(i + 1));
    for (const rel of quarantineCreated(grant.guards, join(deps.home, folder))) {
      deps.warn?.(
        `held back: ${
          join(grant.dir, rel)
        }, made by the script in a --write folder, was moved to $SKILLS_HOME/${folder}/${rel}`,
      );
    }
  });
}

/** The user's launcher choices (SKILLS_PYTHON, SKILLS_UV), kept out of the script's env. */
function launcherSettings(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["SKILLS_PYTHON", "SKILLS_UV"]) {
    const value = env[name]?.trim();
    if (value) out[name] = value;
  }
  return out;
}

const EXCERPT_CHARS = 200;

function withStderr(message: string, tail: string): string {
  return tail === "" ? message : `${message}\nstderr: ${tail}`;
}

function excerpt(text: string, chars = EXCERPT_CHARS): string {
  const trimmed = text.trim();
  if (trimmed === "") return "(no output)";
  return trimmed.length > chars ? `${trimmed.slice(0, chars)}…` : trimmed;
}

/** The seed-000 envelope for a finished run. */
export function outcomeEnvelope(
  prepared: PreparedRun,
  outcome: RunOutcome,
  json: boolean,
): Envelope {
  const name = prepared.script.name;
  const tail = outcome.stderrTail;
  switch (outcome.error) {
    case null: {
      const note = outcome.truncated
        ? ` (output truncated at ${outcome.limits.maxOutputBytes} bytes)`
        : "";
      const result = json ? outcome.parsed?.value : outcome.stdout;
      const envelope = ok(result, `Executed ${name} script${note}`);
      return withReceipt(envelope, outcome.receipt);
    }
    case "cancelled":
      return fail("cancelled", `Script '${name}' was interrupted`);
    case "timeout": {
      // The note rides in the details a model or program reads; the message stays the fact.
      const note = offlineTimeoutNote(prepared);
      return fail(
        "timeout",
        withStderr(`Script timed out after ${formatSeconds(outcome.limits.timeoutSeconds)}`, tail),
        {
          timeout_seconds: outcome.limits.timeoutSeconds,
          ...(note === undefined ? {} : { hint: note }),
        },
      );
    }
    case "parse_error": {
      const head = outcome.truncated
        ? `Script output exceeded ${outcome.limits.maxOutputBytes} bytes and was truncated; expected JSON output, got: `
        : "Expected JSON output, got: ";
      return fail("parse_error", withStderr(`${head}${excerpt(outcome.stdout)}`, tail), {
        truncated: outcome.truncated,
      });
    }
    case "execution_failed": {
      const details: Record<string, unknown> = { exit_code: outcome.exitCode };
      const parsed = json ? outcome.parsed : undefined;
      let message = `Script failed with exit code ${outcome.exitCode}`;
      if (parsed !== undefined) {
        details.output = parsed.value;
        message += `\noutput: ${excerpt(JSON.stringify(parsed.value), 500)}`;
      } else if (outcome.stdout.trim() !== "") {
        details.stdout = excerpt(outcome.stdout, 2000);
      }
      // The hosts the script names before the general "no network" of scriptFailureHint.
      const hint = refusedConnectionHint(outcome.receipt) ??
        unreachedHostsNote(prepared, outcome.exitCode, outcome.stderrEnd) ??
        scriptFailureHint(outcome.stderrEnd) ?? missingProgramNote(prepared, outcome.stderrEnd);
      if (hint !== undefined) details.hint = hint;
      const text = withStderr(message, tail);
      const envelope = fail(
        "execution_failed",
        hint === undefined ? text : `${text}\nhint: ${hint}`,
        details,
      );
      return withReceipt(envelope, outcome.receipt);
    }
  }
}

/**
 * A failed script that could not start a program (`gh`, `codeql`, `soffice`): where this
 * machine has it on the script's PATH, and whether the sandbox hides that folder (a tool
 * installed for the user alone, under the home, stays out of the script's sight).
 */
function missingProgramNote(prepared: PreparedRun, stderr: string): string | undefined {
  const program = missingProgram(stderr);
  if (program === undefined) return undefined;
  const found = program.includes("/")
    ? (lstatSyncOrNull(program) === null ? undefined : program)
    : findOnPath(program, prepared.env);
  const hidden = found !== undefined && prepared.sandbox !== undefined &&
    sandboxHides(found, prepared.sandbox.callerEnv);
  return missingProgramHint(program, found, hidden);
}

/** The script's text, as far as a hint reads it: its first 256 KiB. */
const HINT_READ_BYTES = 256 * 1024;

/**
 * A failed run in a sandbox with no network at all, whose script names hosts (a failure its
 * stderr may not explain: `curl -s` prints nothing): the grant that would let it reach them.
 */
function unreachedHostsNote(
  prepared: PreparedRun,
  exitCode: number | null,
  stderr: string,
): string | undefined {
  if (!ranOffline(prepared) || !looksLikeNetworkFailure(exitCode, stderr)) return undefined;
  try {
    const { bytes } = readPrefixSync(prepared.script.path, HINT_READ_BYTES);
    const text = new TextDecoder().decode(bytes);
    const shown = relative(prepared.skill.dir, prepared.script.path).split(SEP).join("/");
    return unreachedHostsHint(prepared.skill.canonical, shown, text);
  } catch {
    return undefined; // the verified copy is gone: no hint rather than a wrong one
  }
}

/**
 * After a timeout in the sandbox with no host granted: the script may have waited on the
 * network it does not have (npm and pip retry a name that does not resolve for minutes, as
 * yigitkonur's Kernel preflight waited on `npm view`) rather than failed.
 */
export function offlineTimeoutNote(
  prepared: Pick<PreparedRun, "sandbox" | "skill">,
): string | undefined {
  if (!ranOffline(prepared)) return undefined;
  return `'${prepared.skill.canonical}' declares no network access, so the sandbox gave this ` +
    `run none: a script that waits on a download or an API times out here. If it should reach ` +
    `a host, run it with --allow-net HOST or set SKILLS_ALLOW_NET.`;
}

/** Whether the run was sandboxed with no host granted: it had no network at all. */
function ranOffline(prepared: Pick<PreparedRun, "sandbox">): boolean {
  const network = prepared.sandbox?.network;
  return network !== undefined && !network.any && network.grants.length === 0;
}

/** The envelope with what the run changed, when it changed anything (compactReceipt). */
function withReceipt(envelope: Envelope, receipt: RunReceipt | undefined): Envelope {
  const compact = receipt === undefined ? undefined : compactReceipt(receipt);
  return compact === undefined ? envelope : { ...envelope, receipt: compact };
}

/**
 * A failed run whose connections the sandbox refused: name them and the grant that would
 * let each through — the one the refusal names when it names one (a name that resolves to a
 * metadata address needs that address granted, never the name again), else the target.
 */
export function refusedConnectionHint(receipt: RunReceipt | undefined): string | undefined {
  const refused = receipt?.network.refused ?? [];
  if (refused.length === 0) return undefined;
  const targets = refused.map((r) => r.target);
  const grants = refused.map((r) => /\(--allow-net ([^)\s]+)\)$/.exec(r.reason)?.[1] ?? r.target);
  return `The sandbox refused ${targets.join(", ")} (${refused[0]!.reason}). ` +
    `If the script should reach ${targets.length === 1 ? "it" : "them"}, run it with ` +
    grants.map((t) => `--allow-net ${t}`).join(" ") +
    ` or set SKILLS_ALLOW_NET=${grants.join(",")}`;
}
