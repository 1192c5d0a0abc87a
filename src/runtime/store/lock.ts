/**
 * A cross-process lock on an advisory file lock (flock / LockFileEx) of a lock file that
 * is never deleted. The kernel releases it when its holder exits — even on kill -9 — so a
 * crashed command never leaves a lock behind and nobody has to guess whether a holder is
 * still alive (Deno only lets a fully privileged process look at /proc anyway).
 */

import { SkillError } from "../../core/errors.ts";

interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
}

interface Lock {
  release(): void;
}

interface HolderInfo {
  pid: number;
  since: string;
}

export async function acquireLock(path: string, options: LockOptions = {}): Promise<Lock> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  // Synchronous calls: uncontended, this is a handful of tiny operations.
  const file = openLockFile(path);
  let delay = 2;
  try {
    while (!file.tryLockSync(true)) {
      if (Date.now() > deadline) {
        const holder = await readHolder(path);
        throw new SkillError(
          "conflict",
          `Cannot lock ${path}: another skills command is running${
            holder ? ` (pid ${holder.pid})` : ""
          }`,
          { hint: "Wait for it to finish, then try again" },
        );
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 50);
    }
  } catch (error) {
    file.close();
    throw error;
  }
  recordHolder(file);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      try {
        file.unlockSync();
      } finally {
        file.close();
      }
    },
  };
}

/**
 * Opens the lock file without ever following a symlink: a `registry.lock` pointing at
 * another file would have that file truncated and overwritten by {@link recordHolder}.
 * Created exclusively when missing (O_EXCL does not follow links); otherwise opened and
 * checked to be the very regular file the name holds.
 */
function openLockFile(path: string): Deno.FsFile {
  try {
    return Deno.openSync(path, { read: true, write: true, createNew: true, mode: 0o644 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const refuse = (what: string) =>
    new SkillError("permission_denied", `Cannot lock ${path}: it is ${what} (refused)`, {
      hint: "Remove it; skills creates the lock file itself",
    });
  const named = Deno.lstatSync(path);
  if (named.isSymlink) throw refuse("a symlink");
  if (!named.isFile) throw refuse("not a regular file");
  const file = Deno.openSync(path, { read: true, write: true });
  const opened = file.statSync();
  if (!opened.isFile || opened.ino !== named.ino || opened.dev !== named.dev) {
    file.close();
    throw refuse("being replaced (by a symlink?)");
  }
  return file;
}

/** Who holds the lock, for error messages only (the lock itself is the flock). */
function recordHolder(file: Deno.FsFile): void {
  const info: HolderInfo = { pid: Deno.pid, since: new Date().toISOString() };
  try {
    file.truncateSync(0);
    file.seekSync(0, Deno.SeekMode.Start);
    file.writeSync(new TextEncoder().encode(JSON.stringify(info)));
  } catch { /* informational */ }
}

async function readHolder(path: string): Promise<HolderInfo | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as HolderInfo;
  } catch {
    return undefined;
  }
}
