/**
 * `skills run --background`'s side: the service's folder made and its request written, the
 * supervisor started detached (service_helper.py: its own session, nobody's child, its output
 * to a log — the command holds none of the caller's pipes), then the command waits until the
 * service is up (its first port relayed, or it ended, or the start-up wait passed) and returns
 * what the user needs: the id, the URLs on the host, what the script printed so far.
 */

import { SkillError } from "../../core/errors.ts";
import { allowedPrograms } from "../../core/scripts/script_language.ts";
import { join } from "../os/paths.ts";
import { detach, probe } from "./helper.ts";
import {
  readState,
  serviceDir,
  type ServiceRequest,
  servicesRoot,
  type ServiceState,
  SUPERVISOR_COMMAND,
} from "./state.ts";

/** How long `skills run --background` waits for the service's first port. */
const STARTUP_WAIT_MS = 20_000;
/** After the first port, how long its first output may still take to arrive. */
const OUTPUT_GRACE_MS = 400;
const POLL_MS = 100;

interface StartedService {
  state: ServiceState;
  /** `http://127.0.0.1:PORT/` for each relayed port. */
  urls: string[];
  /** What the script printed on stdout so far. */
  output: string;
  /** Whether a port was relayed before the wait ended. */
  listening: boolean;
}

type StartRequest = Omit<ServiceRequest, "id">;

/** Seconds a service may stay idle, and live at most, unless asked otherwise. */
const DEFAULT_IDLE_SECONDS = 4 * 3600;
const DEFAULT_MAX_SECONDS = 24 * 3600;

/**
 * A service's idle timeout and lifetime: the flags given, else SKILLS_SERVICE_IDLE and
 * SKILLS_SERVICE_LIFETIME (seconds), else 4 hours and a day.
 */
export function serviceLimits(
  env: Readonly<Record<string, string>>,
  given: { idleSeconds?: number | undefined; maxSeconds?: number | undefined } = {},
): { idleSeconds: number; maxSeconds: number } {
  const seconds = (flag: number | undefined, name: string, fallback: number) => {
    const raw = Number(env[name]);
    return flag ?? (Number.isFinite(raw) && raw > 0 ? raw : fallback);
  };
  return {
    idleSeconds: seconds(given.idleSeconds, "SKILLS_SERVICE_IDLE", DEFAULT_IDLE_SECONDS),
    maxSeconds: seconds(given.maxSeconds, "SKILLS_SERVICE_LIFETIME", DEFAULT_MAX_SECONDS),
  };
}

/** Starts the service and waits until it is up; throws what ended it before it was. */
export async function startService(
  request: StartRequest,
  deps: { home: string; env: Readonly<Record<string, string>> },
): Promise<StartedService> {
  const id = crypto.randomUUID().replaceAll("-", "").slice(0, 10);
  const boot = (await probe([], deps.env)).bootId;
  Deno.mkdirSync(join(servicesRoot(deps.home), boot), { recursive: true, mode: 0o700 });
  const dir = serviceDir(deps.home, id, boot);
  Deno.mkdirSync(dir, { mode: 0o700 });
  const full: ServiceRequest = { id, ...request };
  Deno.writeTextFileSync(join(dir, "request.json"), JSON.stringify(full, null, 2), { mode: 0o600 });
  await detach([...selfArgv(), SUPERVISOR_COMMAND, dir], join(dir, "supervisor.log"), request.cwd, {
    ...deps.env,
  });
  return await waitUntilUp(dir);
}

/**
 * The argv that starts the skills program: the compiled binary itself, or Deno running its
 * entry (source or bundle) with the binary's own permission flags — never more than it has.
 */
function selfArgv(): string[] {
  if (Deno.build.standalone) return [Deno.execPath()];
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    "--allow-sys=hostname,networkInterfaces",
    `--allow-run=${allowedPrograms().join(",")}`,
    entryModule(),
  ];
}

/**
 * The CLI's entry: src/main.ts beside this module when it is there (a source checkout, and a
 * program using the library, whose own main module is not ours), else the running main module
 * (the bundle, whose chunks sit apart from its entry).
 */
function entryModule(): string {
  const main = new URL("../../main.ts", import.meta.url);
  if (main.protocol === "file:") {
    try {
      if (Deno.statSync(main).isFile) return main.href;
    } catch { /* not a source checkout */ }
  }
  return Deno.mainModule;
}

/** Polls the state until the first port, the end, or the start-up wait. */
async function waitUntilUp(dir: string): Promise<StartedService> {
  const deadline = Date.now() + STARTUP_WAIT_MS;
  let portSince: number | undefined;
  while (true) {
    const state = readState(dir);
    if (state?.status === "ended") failedToStay(dir, state);
    const output = readText(join(dir, "stdout.log"));
    if (state !== undefined && state.ports.length > 0) {
      portSince ??= Date.now();
      if (output !== "" || Date.now() - portSince >= OUTPUT_GRACE_MS) {
        return { state, urls: urlsOf(state), output, listening: true };
      }
    }
    if (Date.now() >= deadline) {
      if (state === undefined) {
        throw new SkillError(
          "execution_failed",
          `The service's supervisor did not start: ${tail(readText(join(dir, "supervisor.log")))}`,
        );
      }
      return { state, urls: [], output, listening: false };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A service that ended before it was up: why, as the run's own error would say it. */
function failedToStay(dir: string, state: ServiceState): never {
  if (state.error !== undefined) {
    throw new SkillError(state.error.code as never, state.error.message, {
      hint: state.error.hint,
    });
  }
  const stderr = tail(readText(join(dir, "stderr.log")));
  throw new SkillError(
    "execution_failed",
    `Service '${state.script}' ended before it listened on a port: ${state.end_reason}${
      stderr === "" ? "" : `\nstderr: ${stderr}`
    }`,
  );
}

function urlsOf(state: Pick<ServiceState, "ports">): string[] {
  return state.ports.map((port) => `http://127.0.0.1:${port.host}/`);
}

function readText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 500 ? `…${trimmed.slice(-500)}` : trimmed;
}
