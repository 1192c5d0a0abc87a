/**
 * Services seen and controlled: listed (state.ts, alive by the process), stopped — SIGTERM to
 * the supervisor (through service_helper.py, which checks the pid is still the process that
 * started at the recorded tick), which ends the sandbox and applies the diff; SIGKILL if it
 * has not ended within the grace, which still takes the sandbox with it — and their logs read.
 * `stopSkillServices` is the one call the lifecycle makes when a skill is removed, updated or
 * loses its trust.
 */

import { SkillError, UsageError } from "../../core/errors.ts";
import { join } from "../os/paths.ts";
import { probe, signalProcess } from "./helper.ts";
import {
  folderOf,
  isAlive,
  type ListedService,
  listServices,
  readState,
  type ServiceState,
} from "./state.ts";

/** How long a stopped service gets to apply its diff before it is killed. */
const STOP_GRACE_MS = 20_000;

export { listServices };

/**
 * The services `target` names: an id (or its unique start), else every running service of the
 * skill of that name. Throws not_found when none matches.
 */
export async function findServices(
  home: string,
  target: string,
  env: Readonly<Record<string, string>>,
  all = false,
): Promise<ListedService[]> {
  const listed = await listServices(home, env);
  const byId = listed.filter((s) => s.id === target);
  if (byId.length > 0) return byId;
  const byPrefix = target.length >= 4 ? listed.filter((s) => s.id.startsWith(target)) : [];
  if (byPrefix.length === 1) return byPrefix;
  const canonical = target.toLowerCase().replaceAll("_", "-");
  const bySkill = listed.filter((s) => s.skill === canonical && (all || s.alive));
  if (bySkill.length > 0) return bySkill;
  throw new SkillError("not_found", `No ${all ? "" : "running "}service '${target}'`, {
    hint: "Run `skills ps` to see the services",
  });
}

interface StopResult {
  id: string;
  skill: string;
  script: string;
  /** False when it had ended already. */
  stopped: boolean;
  end_reason?: string | undefined;
  receipt?: unknown;
}

/** Stops each service; waits until each has ended (its diff applied, its ports closed). */
export async function stopServices(
  home: string,
  services: readonly ListedService[],
  env: Readonly<Record<string, string>>,
): Promise<StopResult[]> {
  return await Promise.all(services.map((service) => stopOne(home, service, env)));
}

async function stopOne(
  home: string,
  service: ListedService,
  env: Readonly<Record<string, string>>,
): Promise<StopResult> {
  const base = { id: service.id, skill: service.skill, script: service.script };
  if (!service.alive) return { ...base, stopped: false, end_reason: service.end_reason };
  const dir = folderOf(home, service);
  await signal(service, "TERM", env);
  const ended = await waitEnded(dir, service, STOP_GRACE_MS, env);
  if (!ended) {
    await signal(service, "KILL", env);
    await waitEnded(dir, service, 5_000, env);
  }
  const state = readState(dir);
  return {
    ...base,
    stopped: true,
    end_reason: ended ? state?.end_reason : "killed (it did not end in time)",
    receipt: state?.receipt,
  };
}

function signal(
  service: ServiceState,
  name: "TERM" | "KILL",
  env: Readonly<Record<string, string>>,
): Promise<void> {
  return signalProcess(service.pid, service.pid_start, name, env);
}

/**
 * Until the supervisor has recorded its end and its process is gone (its sandbox with it):
 * the state file is read often, the process looked at every few rounds.
 */
async function waitEnded(
  dir: string,
  service: ServiceState,
  ms: number,
  env: Readonly<Record<string, string>>,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let round = 0; Date.now() < deadline; round++) {
    const state = readState(dir) ?? service;
    if (state.status === "ended" || round % 5 === 4) {
      if (!isAlive({ ...state, status: "running" }, await probe([state.pid], env))) return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/**
 * Ends every running service of skill `canonical` (the lifecycle's one call when it is
 * removed, updated or untrusted); returns the ids stopped.
 */
export async function stopSkillServices(
  home: string,
  canonical: string,
  env: Readonly<Record<string, string>>,
): Promise<string[]> {
  const running = (await listServices(home, env)).filter((s) => s.alive && s.skill === canonical);
  if (running.length === 0) return [];
  await stopServices(home, running, env);
  return running.map((s) => s.id);
}

/** A service's logs: what the script wrote on stdout and stderr. */
export async function serviceLogs(
  home: string,
  target: string,
  env: Readonly<Record<string, string>>,
): Promise<{ service: ListedService; stdout: string; stderr: string }> {
  const found = await findServices(home, target, env, true);
  if (found.length !== 1) {
    throw new UsageError(
      `'${target}' names ${found.length} services`,
      "Name one by its id (skills ps --all)",
    );
  }
  const service = found[0]!;
  const dir = folderOf(home, service);
  const read = (name: string) => {
    try {
      return Deno.readTextFileSync(join(dir, name));
    } catch {
      return "";
    }
  };
  return { service, stdout: read("stdout.log"), stderr: read("stderr.log") };
}
