/**
 * A cross-process lock: an exclusively created lock file holding the owner's pid and a
 * timestamp. A lock whose owner is gone (or that is older than the stale limit) is taken
 * over by renaming it aside, so two waiters can never both "recover" the same lock.
 */

import { SkillError } from "../core/errors.ts";

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this (ms) is considered abandoned even if its pid looks alive. */
  staleMs?: number;
}

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

function pidAlive(pid: number): boolean {
  if (Deno.build.os !== "linux") return true; // cannot tell cheaply; rely on the age limit
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
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

function isStale(info: LockInfo | undefined, mtime: number, staleMs: number): boolean {
  const age = Date.now() - (info?.created ?? mtime);
  if (age > staleMs) return true;
  if (info === undefined) return age > 2_000; // half-written lock from a crashed writer
  return info.host === hostname() && !pidAlive(info.pid);
}

export interface Lock {
  release(): Promise<void>;
}

export async function acquireLock(path: string, options: LockOptions = {}): Promise<Lock> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const staleMs = options.staleMs ?? 120_000;
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
      return { release: () => releaseLock(path, info.token) };
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    const current = await readLock(path);
    if (current !== undefined) {
      let mtime = Date.now();
      try {
        mtime = (await Deno.stat(path)).mtime?.getTime() ?? mtime;
      } catch { /* vanished meanwhile */ }
      if (isStale(current.info, mtime, staleMs)) {
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
