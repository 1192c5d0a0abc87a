/**
 * A cross-process lock: an exclusively created lock file holding the owner's pid and a
 * token. The holder refreshes the file's mtime (a heartbeat) while it works, so a lock
 * whose mtime is older than the stale limit belongs to a crashed process. (Deno only lets
 * a fully privileged process look at /proc, so liveness is judged by the heartbeat.) A
 * stale lock is taken over by renaming it aside, so two waiters can never both "recover" it.
 */

import { SkillError } from "../core/errors.ts";

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock whose heartbeat is older than this (ms) is considered abandoned. */
  staleMs?: number;
}

const HEARTBEAT_MS = 1_000;

interface LockInfo {
  pid: number;
  host: string;
  created: number;
  token: string;
}

function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "unknown";
  }
}

async function readLock(
  path: string,
): Promise<{ info: LockInfo | undefined; text: string } | undefined> {
  try {
    const text = await Deno.readTextFile(path);
    try {
      return { info: JSON.parse(text) as LockInfo, text };
    } catch {
      return { info: undefined, text };
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function isStale(mtime: number, staleMs: number): boolean {
  return Date.now() - mtime > staleMs;
}

export interface Lock {
  release(): Promise<void>;
}

export async function acquireLock(path: string, options: LockOptions = {}): Promise<Lock> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const staleMs = options.staleMs ?? 10_000;
  const info: LockInfo = {
    pid: Deno.pid,
    host: hostname(),
    created: Date.now(),
    token: crypto.randomUUID(),
  };
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  while (true) {
    try {
      const file = await Deno.open(path, { write: true, createNew: true });
      try {
        await file.write(new TextEncoder().encode(JSON.stringify(info)));
      } finally {
        file.close();
      }
      const heartbeat = setInterval(() => {
        const now = new Date();
        Deno.utime(path, now, now).catch(() => {});
      }, HEARTBEAT_MS);
      Deno.unrefTimer(heartbeat);
      return {
        release: () => {
          clearInterval(heartbeat);
          return releaseLock(path, info.token);
        },
      };
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    const current = await readLock(path);
    if (current !== undefined) {
      let mtime = Date.now();
      try {
        mtime = (await Deno.stat(path)).mtime?.getTime() ?? mtime;
      } catch { /* vanished meanwhile */ }
      if (isStale(mtime, staleMs)) {
        await takeOver(path, current.text);
        continue;
      }
    }
    if (Date.now() > deadline) {
      const owner = current?.info ? ` (held by pid ${current.info.pid})` : "";
      throw new SkillError(
        "conflict",
        `Cannot lock ${path}: another skills command is running${owner}`,
        {
          hint: "Wait for it to finish, or remove the lock file if no skills command is running",
        },
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
}

/** Moves a stale lock aside, but only if it still holds the content we judged stale. */
async function takeOver(path: string, staleText: string): Promise<void> {
  const aside = `${path}.stale-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.rename(path, aside);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const moved = await Deno.readTextFile(aside).catch(() => "");
  if (moved !== staleText) {
    // Someone else took the lock between our read and rename: put theirs back.
    await Deno.rename(aside, path).catch(() => {});
    return;
  }
  await Deno.remove(aside).catch(() => {});
}

async function releaseLock(path: string, token: string): Promise<void> {
  const current = await readLock(path);
  if (current?.info?.token === token) await Deno.remove(path).catch(() => {});
}
