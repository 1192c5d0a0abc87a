/**
 * The script surface shared by the CLI, the agent's `script_list` / `script_help` /
 * `script_run` tools and the MCP server, with the seed-000 result shapes and messages.
 * The three public functions never throw: every failure is a failure envelope.
 */

import { INTERPRETER_LABEL } from "../../core/scripts/script_language.ts";
import { type Envelope, fail, failFromError, ok } from "../../core/envelope.ts";
import { SkillError } from "../../core/errors.ts";
import {
  canonicalScriptName,
  canonicalSkillName,
  isValidSkillName,
  quoteName,
} from "../../core/manifest/names.ts";
import {
  type Catalog,
  findScript,
  findSkill,
  loadCatalog,
  type ScriptInfo,
  type SkillRecord,
} from "../catalog/catalog.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
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
import { scriptFailureHint } from "../../core/scripts/script_hints.ts";
import { parentWatchEnv } from "./parent_watch.ts";
import { sandboxRequestFor, skillGenerationOf, skillKeyOf } from "./sandbox.ts";
import type { SandboxRequest } from "../sandbox/launch.ts";
import { dirname, join } from "../os/paths.ts";
import { UsageError } from "../../core/errors.ts";
import { decideWorkspace, refusedGrant } from "../../core/policy/workspace.ts";
import { scanWorkspace, workspaceChanges, type WorkspaceScan } from "./workspace_walk.ts";
import { compactReceipt, ReceiptCollector, type RunReceipt } from "./receipt.ts";

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
}

interface ScriptEntry {
  name: string;
  path: string;
  /** What runs it: python, bash, node or deno. */
  interpreter: string;
}

interface ScriptHelp {
  help_text: string;
  usage: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `{ "<skill>": [{name, path}, ...] }`: one skill, or every skill that has scripts. */
export function scriptList(
  catalog: Catalog,
  skillName?: string | null,
): Envelope<Record<string, ScriptEntry[]>> {
  try {
    const entries = (skill: SkillRecord) =>
      skill.scripts.map((s) => ({
        name: s.name,
        path: s.path,
        interpreter: INTERPRETER_LABEL[s.language],
      }));
    if (skillName !== undefined && skillName !== null) {
      const skill = findSkill(catalog, skillName);
      return ok(
        { [skill.canonical]: entries(skill) },
        `Found ${plural(skill.scripts.length, "script")} in ${skill.canonical}`,
      );
    }
    const result: Record<string, ScriptEntry[]> = {};
    let count = 0;
    for (const skill of catalog.skills) {
      if (skill.scripts.length === 0) continue;
      result[skill.canonical] = entries(skill);
      count += skill.scripts.length;
    }
    const skills = Object.keys(result).length;
    return ok(result, `Found ${plural(count, "script")} across ${plural(skills, "skill")}`);
  } catch (error) {
    return failFromError(error);
  }
}

/**
 * The catalog a run of `skillName` needs, from `cwd`: of the installed and bundled skills only
 * those of that name are read, with every project skill (they shadow by name), so that
 * `findSkill` answers as with the whole catalog. What a sandbox hides needs no reading: the
 * registry names every installed folder (otherSkillDirs). The whole catalog for a name that
 * is no valid one (findSkill says why).
 */
export async function runCatalog(
  home: string,
  skillName: string,
  where: { cwd: string; env: Readonly<Record<string, string>> },
): Promise<Catalog> {
  const only = isValidSkillName(skillName) ? canonicalSkillName(skillName) : undefined;
  return await loadCatalog(home, { ...where, only });
}

/**
 * The folders of every skill but `skill` the catalog knows, for the sandbox to hide: those it
 * read, those that failed to load or were shadowed, and every installed one, read or not.
 */
function otherSkillDirs(catalog: Catalog, skill: SkillRecord): string[] {
  const dirs = new Set([
    ...catalog.skills.map((s) => s.dir),
    ...catalog.failures.map((f) => f.dir),
    ...catalog.shadowed.map((s) => s.dir),
    ...catalog.installedDirs,
  ]);
  dirs.delete(skill.dir);
  return [...dirs];
}

/** Runs the script with `--help`: `{help_text, usage}`. */
export async function scriptHelp(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  deps: ScriptDeps,
): Promise<Envelope<ScriptHelp>> {
  try {
    const prepared = await prepareRun(catalog, skillName, scriptName, ["--help"], deps);
    const outcome = await executeRun(prepared, false, deps);
    if (outcome.error !== null) return outcomeEnvelope(prepared, outcome, false) as Envelope<never>;
    const text = outcome.stdout.trim() !== "" ? outcome.stdout : outcome.stderrTail;
    return ok(
      { help_text: text, usage: usageLine(text) },
      `Retrieved help for ${prepared.script.name}`,
    );
  } catch (error) {
    return failFromError(error);
  }
}

/** Runs the script; in JSON mode `--json` is appended unless present and stdout is parsed. */
export async function scriptRun(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  args: readonly string[] | null | undefined,
  json: boolean,
  deps: ScriptDeps,
): Promise<Envelope> {
  try {
    const prepared = await prepareRun(catalog, skillName, scriptName, args ?? [], deps);
    const outcome = await executeRun(prepared, json, deps);
    return outcomeEnvelope(prepared, outcome, json);
  } catch (error) {
    return failFromError(error);
  }
}

interface PreparedRun {
  skill: SkillRecord;
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
}

/**
 * Everything before the script starts, in the order the checks must pass, each using the
 * one before: the names and the listed script, the arguments, trust and integrity (the
 * verified copy, where the script is found again), the environment, the workspace, limits,
 * the receipt, the sandbox. Throws SkillError.
 */
export async function prepareRun(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  args: readonly unknown[],
  deps: ScriptDeps,
): Promise<PreparedRun> {
  const listed = findSkill(catalog, skillName);
  const file = canonicalScriptName(scriptName);
  if (await lookupScript(listed, file, scriptName) === undefined) {
    throw scriptNotFound(listed, scriptName);
  }
  const stringArgs = stringArguments(args);
  // Trust, integrity, and the verified private copy the script runs from, described by its
  // own manifest (never the listing cache's). Loaded only when a script runs.
  const { verifiedSkill } = await import("../trust/snapshot.ts");
  const skill = await verifiedSkill(listed, deps.home, {
    allowUntrusted: deps.allowUntrusted === true,
  });
  const script = await verifiedScript(skill, file, scriptName);
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
  const receipt = runReceipt(listed, skill, script, env, workspace);
  const cwd = workspace.dir ?? dirname(script.path);
  const sandbox = await sandboxRequestFor(
    skill,
    sandboxScope(catalog, listed, skill, cwd, workspace, limits, receipt, deps),
  );
  if (sandbox === undefined) policyMode(env, workspace, deps);
  else receipt.base.sandbox = "bubblewrap";
  const quarantine = join(
    ".cache",
    "quarantine",
    `${new Date().toISOString().replace(/[:.]/g, "-")}-${skill.canonical}`,
  );
  return {
    skill,
    script,
    args: [...stringArgs],
    env,
    limits,
    sandbox,
    cwd,
    receipt,
    quarantine,
  };
}

/**
 * A script of `skill` by what the caller named: a listed script by its name, else any
 * other file of a script language by its path in the skill.
 */
async function lookupScript(
  skill: SkillRecord,
  file: string,
  scriptName: string,
): Promise<ScriptInfo | undefined> {
  const asPath = String(scriptName);
  const listed = findScript(skill, file);
  if (listed !== undefined || !asPath.includes("/")) return listed;
  // The skill's walkers only for a name that is a path: a listed script needs none.
  const { scriptAtPath } = await import("../catalog/contents.ts");
  return scriptAtPath(skill.dir, asPath);
}

/** The script named is not one of `skill`'s: where to see them. */
function scriptNotFound(skill: SkillRecord, scriptName: string): SkillError {
  return new SkillError(
    "not_found",
    `Script '${quoteName(String(scriptName))}' not found in skill '${skill.canonical}'`,
    {
      hint: `Run \`skills scripts ${skill.canonical}\` to see its scripts (a file ` +
        "elsewhere in the skill runs by its path from the skill root, e.g. resources/deploy.sh)",
    },
  );
}

/** The arguments as strings within the limits (a caller's JSON may send anything). */
function stringArguments(args: readonly unknown[]): string[] {
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
    throw new SkillError("usage", "Script arguments must be a list of strings");
  }
  const stringArgs = args as string[];
  checkArgs(stringArgs);
  return stringArgs;
}

/**
 * The script found again in the verified copy — the one that runs — and a regular file
 * there (never a link or a folder put in its place).
 */
async function verifiedScript(
  skill: SkillRecord,
  file: string,
  scriptName: string,
): Promise<ScriptInfo> {
  const script = await lookupScript(skill, file, scriptName);
  if (script === undefined) throw scriptNotFound(skill, scriptName);
  const info = lstatSyncOrNull(script.path);
  if (info === null || !info.isFile || info.isSymlink) {
    throw new SkillError(
      "not_found",
      `Script '${script.name}' of skill '${skill.canonical}' is missing or not a regular file`,
    );
  }
  return script;
}

/**
 * The run's receipt, begun: which skill, script and trusted digest, the environment's
 * names, the workspace (policy mode until the sandbox is known).
 */
function runReceipt(
  listed: SkillRecord,
  skill: SkillRecord,
  script: ScriptInfo,
  env: Record<string, string>,
  workspace: ResolvedWorkspace,
): ReceiptCollector {
  return new ReceiptCollector(
    {
      skill: skill.canonical,
      script: script.name,
      digest: listed.entry?.trusted_digest ?? listed.project?.trustedDigest ?? null,
      sandbox: "policy",
      env: Object.keys(env),
      workspace: {
        writable: workspace.writable,
        ...(workspace.reason ? { reason: workspace.reason } : {}),
      },
    },
    workspace.scan,
  );
}

/** What the sandbox is asked for this run: the folders, grants, network, limits, the receipt's ears. */
function sandboxScope(
  catalog: Catalog,
  listed: SkillRecord,
  skill: SkillRecord,
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
    workspace: workspace.scan === undefined
      ? { writable: false, guards: { readOnly: [], pins: [], secrets: [] } }
      : { writable: true, guards: workspace.scan },
    grants: workspace.grants,
    declaredNetwork: deps.declaredNetwork !== false,
    // Its cache and (as root) its uid belong to this skill of this origin only.
    skillKey: skillKeyOf(listed),
    skillGeneration: skillGenerationOf(listed),
    onAllowed: receipt.allowed,
    onDenied: receipt.denied,
    otherSkills: otherSkillDirs(catalog, skill),
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
function policyMode(
  env: Record<string, string>,
  workspace: ResolvedWorkspace,
  deps: ScriptDeps,
): void {
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
  /** The walk before the run (writable workspaces only). */
  scan?: WorkspaceScan | undefined;
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
  return {
    dir,
    writable: decision.writable,
    reason: decision.reason,
    scan: decision.writable ? scanWorkspace(dir) : undefined,
    grants,
  };
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/**
 * The skill as its files may be served to a model or an MCP host: instructions are code
 * too, so a trusted installed, project or bundled skill is read from its verified private
 * copy — unchanged since it was trusted, else `integrity_mismatch`, as for a script run. An
 * untrusted skill is read as it is (its instructions may be read before it is trusted; its
 * code never runs), and so is a skill a program opened by path (the library owns it).
 */
export async function servedSkill(
  skill: SkillRecord,
  home: string,
  allowUntrusted: boolean,
): Promise<SkillRecord> {
  const installed = skill.entry !== undefined || skill.project !== undefined ||
    skill.origin === "core";
  if (!installed || !skill.trusted) return skill;
  const { verifiedSkill } = await import("../trust/snapshot.ts");
  return await verifiedSkill(skill, home, { allowUntrusted });
}

/** Processes (and threads) a sandboxed script may have at once. */
const SCRIPT_PROCESSES = 256;
/** The largest file a sandboxed script may write (1 GiB). */
const SCRIPT_FILE_BYTES = 1024 ** 3;

interface StreamHooks {
  stdout?: (chunk: Uint8Array) => void;
  stderr?: (chunk: Uint8Array) => void;
}

/** Runs a prepared script (streaming when hooks are given). Throws only before it starts. */
export async function executeRun(
  prepared: PreparedRun,
  json: boolean,
  deps: ScriptDeps,
  hooks: StreamHooks = {},
): Promise<RunOutcome> {
  // The kernel stamps change times from a coarse clock (one tick, a few ms, behind): a
  // margin of 50 ms only ever over-reports, by a file changed just before the run.
  const started = Date.now() - 50;
  const outcome = await runScript({
    cwd: prepared.cwd,
    skill: prepared.skill,
    script: prepared.script,
    args: prepared.args,
    env: prepared.env,
    launcherEnv: launcherSettings(deps.env),
    limits: prepared.limits,
    sandbox: prepared.sandbox,
    json,
    signal: deps.signal,
    onStdout: hooks.stdout,
    onStderr: hooks.stderr,
    onTrace: deps.onTrace,
    log: deps.log,
  });
  const scan = prepared.receipt.scan;
  const changes = scan === undefined
    ? undefined
    : workspaceChanges(scan, started, join(deps.home, prepared.quarantine));
  outcome.receipt = prepared.receipt.finish(
    outcome.exitCode,
    outcome.durationMs,
    changes,
    `$SKILLS_HOME/${prepared.quarantine}`,
  );
  return outcome;
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
      return outcome.receipt ? { ...envelope, receipt: compactReceipt(outcome.receipt) } : envelope;
    }
    case "cancelled":
      return fail("cancelled", `Script '${name}' was interrupted`);
    case "timeout":
      return fail(
        "timeout",
        withStderr(`Script timed out after ${formatSeconds(outcome.limits.timeoutSeconds)}`, tail),
        { timeout_seconds: outcome.limits.timeoutSeconds },
      );
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
      const hint = refusedConnectionHint(outcome.receipt) ?? scriptFailureHint(tail);
      if (hint !== undefined) details.hint = hint;
      const text = withStderr(message, tail);
      const envelope = fail(
        "execution_failed",
        hint === undefined ? text : `${text}\nhint: ${hint}`,
        details,
      );
      return outcome.receipt ? { ...envelope, receipt: compactReceipt(outcome.receipt) } : envelope;
    }
  }
}

/** A failed run whose connections the sandbox refused: name them and the grant. */
function refusedConnectionHint(receipt: RunReceipt | undefined): string | undefined {
  const refused = receipt?.network.refused ?? [];
  if (refused.length === 0) return undefined;
  const targets = refused.map((r) => r.target);
  return `The sandbox refused ${targets.join(", ")} (${refused[0]!.reason}). ` +
    `If the script should reach ${targets.length === 1 ? "it" : "them"}, run it with ` +
    targets.map((t) => `--allow-net ${t}`).join(" ") +
    ` or set SKILLS_ALLOW_NET=${targets.join(",")}`;
}

/** The `usage:` paragraph of a help text (argparse wraps it), or its first line. */
export function usageLine(help: string): string {
  const lines = help.split(/\r?\n/);
  const start = lines.findIndex((l) => /^\s*usage:/i.test(l));
  if (start === -1) return lines.find((l) => l.trim() !== "")?.trim() ?? "";
  const parts = [lines[start]!.trim()];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" || !/^\s/.test(line)) break;
    parts.push(line.trim());
  }
  return parts.join(" ").replace(/\s+/g, " ");
}
