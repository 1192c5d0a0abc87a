/**
 * What of the hidden folders (the user's home, $SKILLS_HOME) must stay visible, read-only,
 * for the launcher to start inside the sandbox, and which Python runs the init helper.
 *
 * Interpreters often live under the home: pyenv (`~/.pyenv/shims/python3`, a shell script
 * that runs `~/.pyenv/versions/X/bin/python3`), uv (`~/.local/bin/uv`, its Pythons under
 * `~/.local/share/uv/python`), virtual environments. For each executable the launcher needs,
 * found on PATH and followed through symlinks, the rule is:
 *   - `<root>/bin/<exe>` or `<root>/shims/<exe>`: the install folder `<root>` (a Python
 *     prefix, a venv, pyenv), unless `<root>` is the home itself or a shared folder such
 *     as `~/.local` or `~/.cargo` (which also hold credentials): then the file alone;
 *   - a venv's `pyvenv.cfg` names its base interpreter's folder: that one too;
 *   - anything else: the file alone.
 * Nothing else of the home is visible.
 */

import { basename, dirname, join } from "../os/paths.ts";
import { isWithin } from "../os/fs.ts";

/** Folders directly under the home that hold more than one tool (or secrets): never bound whole. */
const SHARED_FOLDERS = new Set([".local", ".cargo", ".config", ".cache", "bin", ".npm", ".gem"]);

function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** The deepest hidden folder holding `path`. */
function hiddenRootOf(path: string, hidden: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const root of hidden) {
    if (isWithin(root, path) && (found === undefined || root.length > found.length)) found = root;
  }
  return found;
}

function installRoot(file: string, hiddenRoot: string): string {
  const dir = dirname(file);
  const name = basename(dir);
  if (name !== "bin" && name !== "shims") return file;
  const root = dirname(dir);
  if (root === hiddenRoot || !isWithin(hiddenRoot, root)) return file;
  const top = root.slice(hiddenRoot.length + 1).split("/")[0] ?? "";
  if (SHARED_FOLDERS.has(top)) {
    // ~/.local/share/uv/python/cpython-3.12/bin/python3: deeper than the shared folder
    // itself, so the interpreter's own prefix is safe to show.
    return root.split("/").length - hiddenRoot.split("/").length >= 3 ? root : file;
  }
  return root;
}

/** The base interpreter folder a venv at `root` was made from (`home = ...` in pyvenv.cfg). */
function venvBase(root: string): string | undefined {
  try {
    const text = Deno.readTextFileSync(join(root, "pyvenv.cfg"));
    const home = /^\s*home\s*=\s*(.+?)\s*$/m.exec(text)?.[1];
    return home === undefined ? undefined : join(home, "python3");
  } catch {
    return undefined;
  }
}

/**
 * The read-only binds that make `executables` (absolute paths) runnable when `hidden`
 * folders are covered. Deduplicated; nested entries are kept (binding both is harmless).
 */
export function toolchainMounts(
  executables: readonly string[],
  hidden: readonly string[],
): string[] {
  const mounts = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string, depth: number) => {
    if (depth > 3 || seen.has(path)) return;
    seen.add(path);
    for (const candidate of new Set([path, realPath(path) ?? path])) {
      const root = hiddenRootOf(candidate, hidden);
      if (root === undefined || candidate === root) continue;
      let mount = installRoot(candidate, root);
      // Never a folder that holds a hidden one ($SKILLS_HOME inside the home, say).
      if (hidden.some((other) => isWithin(mount, other))) mount = candidate;
      if (realPath(mount) === undefined) continue;
      mounts.add(mount);
      if (mount !== candidate) {
        const base = venvBase(mount);
        if (base !== undefined) visit(base, depth + 1);
      }
    }
  };
  for (const executable of executables) visit(executable, 0);
  return [...mounts];
}

function isElf(path: string): boolean {
  try {
    const file = Deno.openSync(path, { read: true });
    try {
      const head = new Uint8Array(4);
      const n = file.readSync(head);
      return n === 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c &&
        head[3] === 0x46;
    } finally {
      file.close();
    }
  } catch {
    return false;
  }
}

/**
 * The Python that runs the init helper: the first of `candidates` (absolute paths) that is
 * a real interpreter rather than a shim script (a pyenv shim costs ~60 ms per start), else
 * the first one.
 */
export function initPython(candidates: readonly string[]): string | undefined {
  return candidates.find(isElf) ?? candidates[0];
}
