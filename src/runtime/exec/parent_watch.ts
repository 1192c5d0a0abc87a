/**
 * Scripts outlive a CLI that is SIGKILLed (or crashes): they lead their own process group,
 * and a killed process gets no chance to kill it. So every Python process we start loads
 * a small `sitecustomize` (parent_watch.py, found through PYTHONPATH) whose thread checks,
 * five times a second, that the skills process that started it still lives; once it is
 * gone, the thread SIGKILLs the whole process group (uv, python and their children). It
 * acts only in a process group that leads its own session, as `spawnProcessGroup` (spawn/process_group.ts) makes.
 *
 * The module erases its traces before the script runs (SKILLS_PARENT_PID, its PYTHONPATH
 * entry, its sys.path entry), so the script sees exactly the allowlisted environment, and
 * then runs the `sitecustomize` it shadows, if the interpreter has one in a folder the
 * process cannot write (a planted one never runs). Python starts with PYTHONNOUSERSITE=1, so
 * the user site-packages' `.pth` files — code run at every start, which a script could plant
 * for the next — are not run; the watch puts the folder back on sys.path (with the folders
 * those files name) and removes the variable, so packages installed there still import. Unix only: Windows
 * has no process groups to kill this way.
 */

import { DELIMITER, join } from "../os/paths.ts";
import { lstatSyncOrNull, writeFileAtomicSync } from "../os/fs.ts";
import { CORE_CACHE_DIR } from "../store/home.ts";
// @ts-types="../../generated/parent_watch_py.d.ts"
import { PARENT_WATCH_HASH, PARENT_WATCH_SOURCE } from "../../generated/parent_watch_py.ts";

/**
 * The directory holding the watch's `sitecustomize.py` (src/runtime/exec/parent_watch.py) under
 * `home`, named by a hash of its content taken at build time, so versions never mix.
 */
export function parentWatchDir(home: string): string {
  return join(home, CORE_CACHE_DIR, `parent-watch-${PARENT_WATCH_HASH}`);
}

/**
 * The variables that make a Python child watch this process: PYTHONPATH led by the watch's
 * directory (written on first use) and SKILLS_PARENT_PID. Empty on Windows, when the home
 * path holds the PYTHONPATH separator, or when the file cannot be written (the script then
 * runs unwatched, as before).
 */
export function parentWatchEnv(
  home: string,
  env: Readonly<Record<string, string>>,
  log?: (message: string) => void,
): Record<string, string> {
  if (Deno.build.os === "windows") return {};
  const dir = parentWatchDir(home);
  // A PYTHONPATH entry cannot hold the separator itself.
  if (dir.includes(DELIMITER)) return {};
  const file = join(dir, "sitecustomize.py");
  if (lstatSyncOrNull(file) === null) {
    try {
      Deno.mkdirSync(dir, { recursive: true });
      writeFileAtomicSync(file, PARENT_WATCH_SOURCE);
    } catch (error) {
      log?.(`parent watch disabled: cannot write ${file}: ${(error as Error).message}`);
      return {};
    }
  }
  const inherited = env.PYTHONPATH;
  return {
    PYTHONPATH: inherited ? `${dir}${DELIMITER}${inherited}` : dir,
    SKILLS_PARENT_PID: String(Deno.pid),
    // The watch puts the user site back without its `.pth` files' code (parent_watch.py).
    PYTHONNOUSERSITE: "1",
  };
}
