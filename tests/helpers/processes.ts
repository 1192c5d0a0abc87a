/**
 * Process checks for the tests that prove nothing is left running: liveness, waiting for
 * processes to end, descendants, and peak memory. They read /proc, so they are Linux-only:
 * a test using them declares `ignore: Deno.build.os !== "linux"`, and calling them
 * elsewhere throws rather than reporting every process as gone.
 */

import { waitFor, WaitTimeout } from "./wait.ts";

function requireProc(): void {
  if (Deno.build.os !== "linux") {
    throw new Error(
      'this helper reads /proc: give the test `ignore: Deno.build.os !== "linux"`',
    );
  }
}

/** The fields of /proc/<pid>/stat after the command name (state first), or null if gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/**
 * The pid of a process that has exited and been reaped: what a lock left by a killed
 * command, or a parent that died, names. (A later process may reuse it; the tests that
 * use it only need a pid nobody answers to now.)
 */
export async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

/** Whether `pid` is a live process; a zombie counts as gone (it has already exited). */
export function alive(pid: number): boolean {
  requireProc();
  const fields = statFields(pid);
  return fields !== null && fields[0] !== "Z";
}

/** Waits until `pid` has ended; false if it still runs after `timeoutMs`. */
export async function waitGone(pid: number, timeoutMs = 3_000): Promise<boolean> {
  return (await survivors([pid], timeoutMs)).length === 0;
}

/** Waits until every one of `pids` has ended; returns those still running after `timeoutMs`. */
export async function survivors(pids: number[], timeoutMs = 3_000): Promise<number[]> {
  try {
    await waitFor(() => pids.every((pid) => !alive(pid)), {
      what: `processes ${pids.join(", ")} to end`,
      timeoutMs,
      intervalMs: 50,
    });
    return [];
  } catch (error) {
    if (error instanceof WaitTimeout) return pids.filter(alive);
    throw error;
  }
}

/** All descendants of `root` (by parent pid). */
export function descendants(root: number): number[] {
  requireProc();
  const parentOf = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const fields = statFields(entry.name);
    if (fields) parentOf.set(Number(entry.name), Number(fields[1]));
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

/** PIDs of processes (other than this one) whose command line mentions `needle`. */
export function processesMentioning(needle: string): string[] {
  requireProc();
  const found: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || entry.name === String(Deno.pid)) continue;
    try {
      const args = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (args.includes(needle)) found.push(entry.name);
    } catch { /* exited meanwhile */ }
  }
  return found;
}

/** SIGKILLs each of `pids` that still exists: leaves nothing running when a test failed. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

/**
 * The pids of the runner-lab `sleeper` fixture started with `pidFile` (its grandchild's,
 * then its own), once both run. They are found in /proc by their command lines (both
 * carry `pidFile`), not read from the file: inside the OS sandbox the script can neither
 * write it nor see its own pids as the host does.
 */
export async function sleeperPids(pidFile: string, timeoutMs = 15_000): Promise<number[]> {
  requireProc();
  let found: number[] | undefined;
  await waitFor(() => (found = findSleeper(pidFile)) !== undefined, {
    what: `the sleeper started with ${pidFile}`,
    timeoutMs,
  });
  return found!;
}

function findSleeper(pidFile: string): number[] | undefined {
  for (const pid of processesMentioning(pidFile)) {
    let args: string;
    try {
      args = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (!args.includes("time.sleep(300)")) continue;
    const parent = Number(statFields(pid)?.[1]);
    const parentArgs = (() => {
      try {
        return Deno.readTextFileSync(`/proc/${parent}/cmdline`);
      } catch {
        return "";
      }
    })();
    if (parentArgs.includes("sleeper.py")) return [Number(pid), parent];
  }
  return undefined;
}

export interface PeakRss {
  /** The largest VmHWM (peak resident set, which only grows) seen, in KiB. */
  peakKiB: number;
  /** How many times it was read while the process ran. */
  samples: number;
}

/**
 * Samples `child`'s peak resident set from /proc every `everyMs` until it exits; the last
 * sample is the peak up to a few milliseconds before exit. A child still running after
 * `timeoutMs` is killed and the wait fails.
 */
export async function samplePeakRss(
  child: Deno.ChildProcess,
  options: { everyMs?: number; timeoutMs?: number } = {},
): Promise<PeakRss> {
  requireProc();
  const result: PeakRss = { peakKiB: 0, samples: 0 };
  let exited = false;
  const status = child.status.finally(() => exited = true);
  try {
    await waitFor(async () => {
      if (exited) return true;
      try {
        const text = await Deno.readTextFile(`/proc/${child.pid}/status`);
        const hwm = /^VmHWM:\s+(\d+) kB/m.exec(text);
        if (hwm) {
          result.peakKiB = Math.max(result.peakKiB, Number(hwm[1]));
          result.samples++;
        }
      } catch { /* exited */ }
      return exited;
    }, {
      what: `process ${child.pid} to exit while sampling its memory`,
      timeoutMs: options.timeoutMs ?? 60_000,
      intervalMs: options.everyMs ?? 5,
    });
  } catch (error) {
    killAll([child.pid]);
    throw error;
  }
  await status;
  return result;
}
