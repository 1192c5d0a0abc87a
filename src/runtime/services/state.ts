/**
 * A service's state on disk and whether it is really alive. Each service has a folder
 * `$SKILLS_HOME/.services/<boot id>/<id>/` (0700): `request.json` (what was asked),
 * `state.json` (what the supervisor says, replaced atomically), `stdout.log`, `stderr.log` and
 * `supervisor.log`. Keyed by the boot id, so after a reboot nothing looks alive; within this
 * boot a service is alive only while its supervisor's pid is still the process started at the
 * recorded tick (/proc/<pid>/stat): a dead or reused pid reads as ended, whatever the file says.
 */

import { join } from "../os/paths.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import { type Probe, probe } from "./helper.ts";

/** The hidden first argument that makes main.ts a service's supervisor (supervisor.ts). */
export const SUPERVISOR_COMMAND = "__service";

/** Where services keep their folders, under `$SKILLS_HOME`. */
const SERVICES_FOLDER = ".services";

export interface ServicePort {
  /** The port the service listens on inside its sandbox. */
  sandbox: number;
  /** The host's 127.0.0.1 port relayed to it (the same when it was free). */
  host: number;
}

type ServiceStatus = "starting" | "running" | "ended";

export interface ServiceState {
  id: string;
  skill: string;
  script: string;
  args: string[];
  /** The workspace it started in. */
  cwd: string;
  boot_id: string;
  /** The supervisor's pid and its start tick (field 22 of /proc/<pid>/stat). */
  pid: number;
  pid_start: string;
  started_at: string;
  status: ServiceStatus;
  ports: ServicePort[];
  /** The `--write` folders it writes live (everything else joins the diff when it stops). */
  live: string[];
  idle_seconds: number;
  max_seconds: number;
  last_active_at: string;
  /** The overlay's upper layer while it runs: what it wrote outside its live folders so far. */
  upper?: string | undefined;
  /** Whether its skill declares the script a service (`permissions.services`). */
  declared?: boolean | undefined;
  ended_at?: string | undefined;
  /** Why it ended: stopped, idle, lifetime, exited (code N), failed to start, … */
  end_reason?: string | undefined;
  /** A failure before the script started: the error's code and message. */
  error?: { code: string; message: string; hint?: string | undefined } | undefined;
  /** The run's receipt once it ended (what its diff changed, hosts, exit code). */
  receipt?: unknown;
}

/** A state as listed: whether it is alive now, by the process, never by the file alone. */
export interface ListedService extends ServiceState {
  alive: boolean;
}

/**
 * Who the supervisor is, as service_helper.py's detach said it (`SKILLS_SERVICE_IDENTITY`:
 * "<pid> <start tick> <boot id>"); Deno itself reads /proc only with every permission.
 */
export function supervisorIdentity(
  env: Readonly<Record<string, string>>,
): { pid: number; start: string; bootId: string } {
  const [pid, start, boot] = (env.SKILLS_SERVICE_IDENTITY ?? "").split(" ");
  return { pid: Number(pid) || Deno.pid, start: start ?? "", bootId: boot ?? "unknown-boot" };
}

export function servicesRoot(home: string): string {
  return join(home, SERVICES_FOLDER);
}

/** The folder of service `id` of boot `boot`. */
export function serviceDir(home: string, id: string, boot: string): string {
  return join(servicesRoot(home), boot, id);
}

export function readState(dir: string): ServiceState | undefined {
  try {
    const value = JSON.parse(Deno.readTextFileSync(join(dir, "state.json")));
    return typeof value === "object" && value !== null && typeof value.id === "string"
      ? value as ServiceState
      : undefined;
  } catch {
    return undefined;
  }
}

export function writeState(dir: string, state: ServiceState): void {
  writeFileAtomicSync(join(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
}

/** Whether `state`'s supervisor is the live process it names, in this boot. */
export function isAlive(state: ServiceState, probed: Probe): boolean {
  return state.boot_id === probed.bootId && state.status !== "ended" &&
    probed.starts.get(state.pid) === state.pid_start;
}

/**
 * Every service this home has state for, newest first, each with `alive` from the process
 * itself: a state whose supervisor is gone (killed, crashed, a reboot ago) is listed as ended,
 * with why, and never as running.
 */
export async function listServices(
  home: string,
  env: Readonly<Record<string, string>>,
): Promise<ListedService[]> {
  const found: { state: ServiceState; folderBoot: string; dir: string }[] = [];
  let boots: Deno.DirEntry[] = [];
  try {
    boots = [...Deno.readDirSync(servicesRoot(home))];
  } catch {
    return [];
  }
  for (const bootEntry of boots) {
    if (!bootEntry.isDirectory) continue;
    let ids: Deno.DirEntry[] = [];
    try {
      ids = [...Deno.readDirSync(join(servicesRoot(home), bootEntry.name))];
    } catch {
      continue;
    }
    for (const entry of ids) {
      const dir = join(servicesRoot(home), bootEntry.name, entry.name);
      const state = readState(dir);
      if (state !== undefined) found.push({ state, folderBoot: bootEntry.name, dir });
    }
  }
  if (found.length === 0) return [];
  const probed = await probe(found.map(({ state }) => state.pid), env);
  return found.map(({ state, folderBoot, dir }) => {
    const listed = asListed(state, probed, folderBoot);
    // A supervisor that ended between the read and the probe has written how: read it again.
    if (listed.alive || state.status === "ended") return listed;
    const again = readState(dir);
    return again?.status === "ended" ? { ...again, alive: false } : listed;
  }).sort((a, b) => b.started_at.localeCompare(a.started_at));
}

function asListed(state: ServiceState, probed: Probe, folderBoot: string): ListedService {
  if (folderBoot === probed.bootId && isAlive(state, probed)) return { ...state, alive: true };
  if (state.status === "ended") return { ...state, alive: false };
  const reason = folderBoot !== probed.bootId || state.boot_id !== probed.bootId
    ? "the machine restarted since"
    : "its supervisor is gone (killed or crashed)";
  return { ...state, alive: false, status: "ended", end_reason: reason, ports: [] };
}

/** The folder of a listed service. */
export function folderOf(home: string, state: Pick<ServiceState, "id" | "boot_id">): string {
  return serviceDir(home, state.id, state.boot_id);
}

/** What `skills run --background` asked for, written to `request.json` for the supervisor. */
export interface ServiceRequest {
  id: string;
  skill: string;
  script: string;
  args: string[];
  /** The workspace (the caller's directory). */
  cwd: string;
  /** `--env` requests, `--allow-net` grants, `--write` folders (absolute), `--read-only`. */
  env: string[];
  allowNet: string[];
  write: string[];
  readOnly: boolean;
  /** Ended after this long without a relayed connection or output. */
  idleSeconds: number;
  /** Ended after this long whatever it does. */
  maxSeconds: number;
}

export function readRequest(dir: string): ServiceRequest {
  return JSON.parse(Deno.readTextFileSync(join(dir, "request.json"))) as ServiceRequest;
}

/** Whether `permissions.services` names `script` by any name it answers to. */
export function declaresService(
  declared: readonly string[],
  script: { name: string; file: string },
): boolean {
  return declared.some((entry) => {
    const name = entry.replace(/^scripts\//, "");
    return name === script.name || name === script.file ||
      name.replace(/\.[A-Za-z0-9]+$/, "") === script.name;
  });
}

/**
 * What a running service has written so far outside its live folders (the overlay's upper
 * layer, applied when it stops): workspace-relative paths of its files, links and deletions,
 * at most `limit`, and how many in all. Undefined when it has no overlay.
 */
export function pendingChanges(
  state: Pick<ServiceState, "upper">,
  limit = 20,
): { paths: string[]; total: number } | undefined {
  if (state.upper === undefined) return undefined;
  const paths: string[] = [];
  let total = 0;
  const walk = (dir: string, rel: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory && depth < 32) {
        walk(join(dir, entry.name), path, depth + 1);
        continue;
      }
      total++;
      if (paths.length < limit) paths.push(path);
    }
  };
  walk(state.upper, "", 0);
  return { paths, total };
}
