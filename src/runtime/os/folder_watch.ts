/**
 * Which entries of some folders a process touched while it ran, from the kernel's own account
 * (Linux's inotify, through Deno.watchFs) instead of a stat of every file after it: each folder
 * is watched alone (not its subfolders), and every path an event names is kept — a write, a
 * truncation, a change of mode or times, a create, a remove, a rename, and the close of a file
 * opened for writing (so a file written through a mapping is named by the close that opened it).
 *
 * The answer is whole or there is none: `settle()` gives undefined, and the caller looks at
 * every file instead, when the watch could not start (a folder gone, the kernel's watch limit),
 * when the kernel's queue overflowed (Deno's `rescan` flag), when an event named a path outside
 * the folders, or when the flush did not come back in time. The flush is a file written into a
 * private folder watched with the others: one inotify queue keeps its order, so once its event
 * is read, every event before it has been.
 *
 * What it cannot see: a write made through a hard link that lives outside the folders (the
 * kernel names the folder of the path that was opened). Linux only; elsewhere there is no watch.
 */

import { delay } from "./timer.ts";

/** How long the flush may take to come back before the watch is given up. */
const FLUSH_TIMEOUT_MS = 2_000;

export interface FolderWatch {
  /**
   * Ends the watch and gives every path its events named (the folders' entries, as
   * `<folder>/<name>`), or undefined when some may be missing.
   */
  settle(): Promise<ReadonlySet<string> | undefined>;
  /** Ends the watch without an answer; safe to call more than once, and after settle. */
  close(): void;
}

/** Starts watching `folders` (absolute paths, as the caller will look the entries up). */
export function watchFolders(folders: readonly string[]): FolderWatch | undefined {
  if (Deno.build.os !== "linux" || folders.length === 0) return undefined;
  let own: string;
  try {
    own = Deno.makeTempDirSync({ prefix: "skills-watch-" });
  } catch {
    return undefined;
  }
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs([...folders, own], { recursive: false });
  } catch {
    removeQuietly(own);
    return undefined;
  }
  const flushPath = `${own}/flush`;
  const watched = new Set(folders);
  const touched = new Set<string>();
  let whole = true;
  let flushed = () => {};
  const reading = (async () => {
    try {
      for await (const event of watcher) {
        if (event.flag === "rescan") whole = false;
        for (const path of event.paths) {
          const slash = path.lastIndexOf("/");
          const parent = slash === 0 ? "/" : path.slice(0, slash);
          if (path === flushPath) flushed();
          else if (watched.has(parent)) touched.add(path);
          // Events of a watched folder itself, or of the private one, name no entry.
          else if (!watched.has(path) && parent !== own && path !== own) whole = false;
        }
      }
    } catch {
      whole = false;
    }
  })();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      watcher.close();
    } catch { /* already closed */ }
    removeQuietly(own);
  };
  return {
    close,
    async settle() {
      if (closed) return undefined;
      const arrived = new Promise<boolean>((resolve) => flushed = () => resolve(true));
      const late = delay(FLUSH_TIMEOUT_MS, false);
      let back = false;
      try {
        Deno.writeFileSync(flushPath, new Uint8Array());
        back = await Promise.race([arrived, late.promise]);
      } catch { /* no flush: no answer */ }
      late.cancel();
      close();
      await reading;
      return back && whole ? touched : undefined;
    },
  };
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch { /* a temporary folder: the system clears it */ }
}
