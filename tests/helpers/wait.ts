/**
 * Bounded waiting. Every test that polls (a pid file to appear, a process to end, a
 * server to see a request) goes through `waitFor`, so a condition that never comes true
 * fails with a message naming what was awaited instead of hanging the suite.
 */

export interface WaitOptions {
  /** What is awaited, for the failure message: "the sleeper's pid file". */
  what: string;
  /** How long to keep checking; default 10 s. */
  timeoutMs?: number;
  /** The pause between two checks; default 25 ms. */
  intervalMs?: number;
  /** More to say when it times out (e.g. the output so far). */
  detail?: () => string;
}

/** Thrown by `waitFor` when its deadline passes. */
export class WaitTimeout extends Error {
  override name = "WaitTimeout";
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Checks `predicate` until it returns something other than false, null or undefined, and
 * returns that; throws a WaitTimeout once `timeoutMs` has passed. The predicate is always
 * checked once more at the deadline, so a slow machine never loses a last chance.
 */
export async function waitFor<T>(
  predicate: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await predicate();
    if (value !== false && value !== null && value !== undefined) return value;
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(options.intervalMs ?? 25, left));
  }
  const detail = options.detail ? `\n${options.detail()}` : "";
  throw new WaitTimeout(`Timed out after ${timeoutMs} ms waiting for ${options.what}${detail}`);
}

/** Whether a file exists (lstat: a dangling link counts). */
export function exists(path: string): Promise<boolean> {
  return Deno.lstat(path).then(() => true, () => false);
}
