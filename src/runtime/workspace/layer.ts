/**
 * The run folder of one transactional run: `$SKILLS_HOME/.cache/runs/<id>/` (0700) holding the
 * overlay's `upper/` and `work/` folders (one filesystem, the CLI's own, never the user's
 * folder) and a `lock` file the run holds (an advisory lock the kernel drops when the CLI
 * dies, even on SIGKILL): leftovers.ts treats a folder whose lock it can take as left by a
 * dead run. Removed once the diff is applied or discarded.
 */

import { join } from "../os/paths.ts";
import { removeIfExists } from "../os/fs.ts";

/** Where run folders live under `$SKILLS_HOME`. */
export const RUNS_FOLDER = join(".cache", "runs");

export interface RunLayer {
  /** The run folder (real path). */
  dir: string;
  /** The overlay's upper layer: after the run, the diff. */
  upper: string;
  /** The overlay's work folder (same filesystem as upper). */
  work: string;
  /** Releases the lock and removes the folder. Safe to call more than once. */
  dispose(): Promise<void>;
  /** Releases the lock only (the folder stays, e.g. for a journal to be recovered). */
  release(): void;
}

/**
 * Makes a fresh run folder under `home`. With `ownerUid` (a root CLI's sandbox uid), the
 * upper layer's top is given to it: the merged view's top is the upper's, and the uid must
 * write there as it writes the (idmapped) folders below.
 */
export function openLayer(home: string, ownerUid?: number): RunLayer {
  const runs = join(home, RUNS_FOLDER);
  Deno.mkdirSync(runs, { recursive: true, mode: 0o700 });
  const dir = Deno.makeTempDirSync({ dir: runs, prefix: "run-" });
  Deno.chmodSync(dir, 0o700);
  const lock = Deno.openSync(join(dir, "lock"), { write: true, createNew: true, mode: 0o600 });
  lock.lockSync(true);
  const upper = join(dir, "upper");
  const work = join(dir, "work");
  Deno.mkdirSync(upper, { mode: 0o755 });
  Deno.mkdirSync(work, { mode: 0o700 });
  if (ownerUid !== undefined) Deno.chownSync(upper, ownerUid, ownerUid);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      lock.close();
    } catch { /* closed */ }
  };
  let disposed: Promise<void> | undefined;
  return {
    dir,
    upper,
    work,
    release,
    dispose: () =>
      disposed ??= (async () => {
        release();
        await removeIfExists(dir).catch(() => {});
      })(),
  };
}
