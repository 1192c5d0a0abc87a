/**
 * Scripts outlive a CLI that is SIGKILLed (or crashes): they lead their own process group,
 * and a killed process gets no chance to kill it. So every Python process we start loads
 * a small `sitecustomize` (found through PYTHONPATH) whose daemon thread checks, five times
 * a second, that the skills process that started it still lives; once it is gone, the
 * thread SIGKILLs the whole process group (uv, python and their children). It acts only in
 * a process group that leads its own session, as `spawnSandboxed` makes.
 *
 * The module erases its traces before the script runs (SKILLS_PARENT_PID, its PYTHONPATH
 * entry, its sys.path entry), so the script sees exactly the allowlisted environment, and
 * then runs the `sitecustomize` it shadows, if the interpreter has one. Unix only: Windows
 * has no process groups to kill this way.
 */

import { DELIMITER, join } from "../core/paths.ts";
import { lstatSyncOrNull, writeFileAtomicSync } from "./fsutil.ts";
import { CORE_CACHE_DIR } from "./home.ts";

/** How often the watch thread looks for its parent, in seconds. */
const POLL_SECONDS = 0.2;

export const PARENT_WATCH_SOURCE =
  `# Written by skills: ends this process group once the skills process that started it is
# gone, then runs the sitecustomize this one shadows.
import os
import sys


def _skills_parent_watch():
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.environ.pop("SKILLS_PARENT_PID", "")
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and os.path.abspath(p) != here]
    if rest:
        os.environ["PYTHONPATH"] = os.pathsep.join(rest)
    else:
        os.environ.pop("PYTHONPATH", None)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    if not parent.isdigit() or not hasattr(os, "killpg"):
        return
    # _thread, time and SIGKILL's number rather than threading and signal: every script
    # pays for these imports.
    import _thread
    import time
    pid = int(parent)
    # Only a group of its own, as the sandbox makes (setsid), is ever killed: never the
    # group of a shell job or of the parent itself.
    if os.getsid(0) != os.getpgrp():
        return
    try:
        if os.getpgid(pid) == os.getpgrp():
            return
    except OSError:
        pass

    def identity():
        # (state, start time) on Linux, so a zombie or a reused pid counts as gone.
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (fields[0], fields[19])
        except (OSError, IndexError):
            return None

    first = identity()

    def gone():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        now = identity()
        return first is not None and (now is None or now[0] in (b"Z", b"X") or now[1] != first[1])

    def watch():
        while not gone():
            time.sleep(${POLL_SECONDS})
        os.killpg(os.getpgrp(), 9)  # SIGKILL

    _thread.start_new_thread(watch, ())


def _skills_chain():
    import importlib.machinery
    import importlib.util
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


_skills_parent_watch()
_skills_chain()
`;

/** FNV-1a: names the directory by its content, so versions never mix. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The directory holding the watch's `sitecustomize.py` under `home`. */
export function parentWatchDir(home: string): string {
  return join(home, CORE_CACHE_DIR, `parent-watch-${shortHash(PARENT_WATCH_SOURCE)}`);
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
  };
}
