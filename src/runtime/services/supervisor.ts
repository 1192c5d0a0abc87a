/**
 * The supervisor of one service: a `skills` process of its own (started detached by start.ts
 * through service_helper.py, `skills __service <folder>`), which holds the sandbox for the
 * service's whole life. It resolves and prepares the run exactly as `skills run` does (the
 * catalog, trust, the environment, the workspace's overlay, the sandbox), with the port relay
 * and live `--write` folders of a service; appends the script's output to the service's logs;
 * serves its ports on the host (relay.ts); ends it on SIGTERM (`skills stop`), after its idle
 * timeout or at its lifetime (the run's timeout); then applies its diff as a run's is applied
 * and records how it ended. Killed itself, it takes the sandbox with it (bubblewrap's
 * --die-with-parent), and the next listing reads its state as ended (state.ts).
 */

import { isSkillError } from "../../core/errors.ts";
import { join } from "../os/paths.ts";
import type { ScriptDeps } from "../exec/prepared_run.ts";
import { startPortRelay } from "./relay.ts";
import {
  declaresService,
  readRequest,
  type ServiceRequest,
  type ServiceState,
  supervisorIdentity,
  writeState,
} from "./state.ts";

/** Ports one service may have relayed at once. */
const MAX_PORTS = 16;
/** How often the idle clock is read. */
const IDLE_CHECK_MS = 500;

/** Runs the service whose folder is `dir` until it ends; the process's exit status. */
export async function superviseService(
  dir: string,
  home: string,
  env: Readonly<Record<string, string>>,
): Promise<number> {
  const request = readRequest(dir);
  const state = initialState(request, supervisorIdentity(env));
  const save = () => writeState(dir, state);
  save();
  const log = (line: string) => appendLine(join(dir, "supervisor.log"), line);
  const stop = new AbortController();
  let reason: string | undefined;
  const end = (why: string) => {
    reason ??= why;
    stop.abort();
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    Deno.addSignalListener(signal, () => end("stopped"));
  }
  let lastActive = Date.now();
  const touch = () => void (lastActive = Date.now());
  const idleTimer = setInterval(() => {
    if (state.status !== "running") return;
    if (Date.now() - lastActive >= request.idleSeconds * 1000) end("idle timeout");
  }, IDLE_CHECK_MS);
  const { relayRoot, relayDir, relay } = openRelay((ports) => {
    state.ports = ports;
    save();
  }, touch);
  try {
    const outcome = await runService(request, dir, home, env, {
      signal: stop.signal,
      relayDir,
      log,
      touch,
      layer: (upper) => {
        state.upper = upper;
        save();
      },
      started: (declared) => {
        touch(); // the idle clock starts with the script, not with its preparation
        state.status = "running";
        state.declared = declared;
        save();
      },
    });
    reason ??= outcome.error === "timeout"
      ? "lifetime reached"
      : `exited (code ${outcome.exitCode ?? "none"})`;
    state.receipt = outcome.receipt === undefined
      ? undefined
      : { ...outcome.receipt, live: request.write };
    return 0;
  } catch (error) {
    reason ??= "failed to start";
    state.error = startError(error);
    log(`error: ${state.error.message}`);
    return 1;
  } finally {
    clearInterval(idleTimer);
    await relay.close();
    Deno.removeSync(relayRoot, { recursive: true });
    Object.assign(state, {
      status: "ended",
      ports: [],
      upper: undefined,
      ended_at: new Date().toISOString(),
      end_reason: reason,
      last_active_at: new Date(lastActive).toISOString(),
    });
    save();
  }
}

/**
 * The port relay's folders — the one the sandbox writes (`shared`), the supervisor's own
 * (`held`): relay.ts says why both — and the relay watching them.
 */
function openRelay(
  onChange: (ports: ServiceState["ports"]) => void,
  touch: () => void,
) {
  const relayRoot = Deno.makeTempDirSync({ prefix: "skills-ports-" });
  Deno.chmodSync(relayRoot, 0o711);
  const relayDir = join(relayRoot, "shared");
  const heldDir = join(relayRoot, "held");
  Deno.mkdirSync(relayDir, { mode: 0o700 });
  Deno.mkdirSync(heldDir, { mode: 0o700 });
  return { relayRoot, relayDir, relay: startPortRelay(relayDir, heldDir, onChange, touch) };
}

/** A failure before the script started, as the state records it for the command waiting. */
function startError(error: unknown): NonNullable<ServiceState["error"]> {
  return isSkillError(error)
    ? { code: error.code, message: error.message, hint: error.hint }
    : { code: "execution_failed", message: String((error as Error)?.message ?? error) };
}

function initialState(
  request: ServiceRequest,
  identity: { pid: number; start: string; bootId: string },
): ServiceState {
  const now = new Date().toISOString();
  return {
    id: request.id,
    skill: request.skill,
    script: request.script,
    args: request.args,
    cwd: request.cwd,
    boot_id: identity.bootId,
    pid: identity.pid,
    pid_start: identity.start,
    started_at: now,
    status: "starting",
    ports: [],
    live: request.write,
    idle_seconds: request.idleSeconds,
    max_seconds: request.maxSeconds,
    last_active_at: now,
  };
}

interface RunHooks {
  signal: AbortSignal;
  relayDir: string;
  log: (line: string) => void;
  /** Output is activity: the idle clock starts again. */
  touch: () => void;
  /** The overlay's upper layer, once made (`skills ps` lists what it holds). */
  layer: (upper: string) => void;
  /** The script is about to start (its checks passed); whether its skill declares it a service. */
  started: (declared: boolean) => void;
}

/**
 * The run itself, prepared as `skills run` prepares one (script_service: catalog, trust,
 * sandbox), as a service: no stdin, no review, its lifetime as the timeout, its output to the
 * logs.
 */
async function runService(
  request: ServiceRequest,
  dir: string,
  home: string,
  env: Readonly<Record<string, string>>,
  hooks: RunHooks,
) {
  const deps: ScriptDeps & { cwd: string } = {
    home,
    env,
    signal: hooks.signal,
    log: undefined,
    extraEnv: request.env,
    timeoutSeconds: request.maxSeconds,
    cwd: request.cwd,
    readOnly: request.readOnly,
    write: request.write,
    allowNet: request.allowNet,
    warn: (message) => hooks.log(`warning: ${message}`),
    service: { relayDir: hooks.relayDir, maxPorts: MAX_PORTS, onLayer: hooks.layer },
  };
  const service = await import("../exec/script_service.ts");
  const { executeRun } = await import("../exec/prepared_run.ts");
  const catalog = await service.runCatalog(home, request.skill, { cwd: request.cwd, env });
  const prepared = await service.prepareRun(
    catalog,
    request.skill,
    request.script,
    request.args,
    deps,
  );
  hooks.started(declaresService(prepared.skill.manifest.services ?? [], prepared.script));
  const out = Deno.openSync(join(dir, "stdout.log"), { append: true, create: true, mode: 0o600 });
  const err = Deno.openSync(join(dir, "stderr.log"), { append: true, create: true, mode: 0o600 });
  try {
    return await executeRun(prepared, false, deps, {
      stdout: (chunk) => {
        hooks.touch();
        writeAll(out, chunk);
      },
      stderr: (chunk) => {
        hooks.touch();
        writeAll(err, chunk);
      },
    });
  } finally {
    out.close();
    err.close();
  }
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
}

function appendLine(path: string, line: string): void {
  try {
    Deno.writeTextFileSync(path, `${new Date().toISOString()} ${line}\n`, { append: true });
  } catch { /* nowhere to say it */ }
}
