/**
 * What of the hidden folders (the user's home, $SKILLS_HOME, the host's /tmp) must stay
 * visible, read-only, for the launcher to start inside the sandbox, and which Python runs
 * the init helper.
 *
 * Interpreters often live under the home: pyenv (`~/.pyenv/shims/python3`, a shell script
 * that runs `~/.pyenv/versions/X/bin/python3`), uv (`~/.local/bin/uv`, its Pythons under
 * `~/.local/share/uv/python`), virtual environments. For each executable the launcher needs,
 * found on PATH, the rule is:
 *   - `<root>/bin/<exe>` or `<root>/shims/<exe>` where `<root>` is an interpreter's install
 *     folder (a Python prefix, a venv, pyenv, conda): `<root>`, unless it is a hidden folder
 *     itself or a shared one such as `~/.local` or `~/.cargo` (which also hold credentials);
 *   - otherwise the file alone, or for a symlink the same symlink, made inside the sandbox;
 *   - symlinks are followed, and a venv's `pyvenv.cfg` names its base interpreter: both get
 *     the same treatment.
 * Nothing else of the home is visible, and no bind ever covers a hidden folder.
 */

import { basename, dirname, join, resolve } from "../os/paths.ts";
import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import { LANGUAGES } from "../../core/scripts/script_language.ts";

/** Folders directly under a hidden one that hold more than one tool (or secrets): never bound whole. */
const SHARED_FOLDERS = new Set([".local", ".cargo", ".config", ".cache", "bin", ".npm", ".gem"]);

interface ToolchainMounts {
  /** Bound read-only at their own paths. */
  binds: string[];
  /** `[target, path]`: symlinks made inside the sandbox. */
  links: [string, string][];
}

/** The deepest hidden folder holding `path`. */
function hiddenRootOf(path: string, hidden: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const root of hidden) {
    if (isWithin(root, path) && (found === undefined || root.length > found.length)) found = root;
  }
  return found;
}

/** An install folder: a venv (its pyvenv.cfg names the base interpreter) or another one. */
type InstallKind = "venv" | "install";

/**
 * The names in `dir`, or undefined when it cannot be listed. One listing answers every
 * "is there a …" below without a lookup that misses: a miss throws, and the first throw in
 * a fresh call stack costs ~0.2 ms (V8 then collects the source positions of every frame).
 */
function namesIn(dir: string): Set<string> | undefined {
  try {
    const names = new Set<string>();
    for (const entry of Deno.readDirSync(dir)) names.add(entry.name);
    return names;
  } catch {
    return undefined;
  }
}

/**
 * What starts an entry of `lib/` in an install prefix of the language whose runner `exe` is
 * (`python3.12` → python's `python`, `node` → `node_modules`), from the languages' table.
 */
function prefixLibOf(exe: string): string[] {
  const program = exe.replace(/(?<=[a-z])[\d.]+$/, ""); // python3.12 → python
  return Object.values(LANGUAGES).flatMap((spec) =>
    spec.runners.some((r) => r.program.replace(/\d+$/, "") === program)
      ? [...(spec as { prefixLib?: readonly string[] }).prefixLib ?? []]
      : []
  );
}

/**
 * Whether `root` is an interpreter's install folder, not any folder with a `bin` in it: a
 * venv (pyvenv.cfg), a prefix of the runner's language (its `lib/` holds `python3*` for
 * Python, `node_modules` for Node: the table's `prefixLib`), pyenv (shims beside libexec)
 * or conda.
 */
function installKind(root: string, binName: string, exe: string): InstallKind | undefined {
  const listed = namesIn(root);
  // Unlistable (traversable only): each name looked up instead.
  const has = (name: string) =>
    listed === undefined ? lstatSyncOrNull(join(root, name)) !== null : listed.has(name);
  if (has("pyvenv.cfg")) return "venv";
  if (has("conda-meta")) return "install";
  if (binName === "shims") return has("libexec") ? "install" : undefined;
  if (!has("lib")) return undefined;
  const markers = prefixLibOf(exe);
  for (const name of namesIn(join(root, "lib")) ?? []) {
    if (markers.some((marker) => name.startsWith(marker))) return "install";
  }
  return undefined;
}

/** `<root>` of `<root>/bin/<exe>` when that folder can be shown whole, else undefined. */
function installRoot(
  path: string,
  hiddenRoot: string,
  hidden: readonly string[],
): { root: string; kind: InstallKind } | undefined {
  const dir = dirname(path);
  if (basename(dir) !== "bin" && basename(dir) !== "shims") return undefined;
  const root = dirname(dir);
  if (root === hiddenRoot || !isWithin(hiddenRoot, root)) return undefined;
  if (hidden.some((other) => isWithin(root, other))) return undefined;
  const below = root.slice(hiddenRoot.length + 1).split("/");
  // ~/.local/share/uv/python/cpython-3.12/bin/python3.12: deep below the shared folder, the
  // interpreter's own prefix is safe to show; ~/.local/bin itself is not.
  if (SHARED_FOLDERS.has(below[0] ?? "") && below.length < 3) return undefined;
  // Last: the only test that reads the filesystem.
  const kind = installKind(root, basename(dir), basename(path));
  return kind === undefined ? undefined : { root, kind };
}

/** The base interpreter of a venv at `root` (`home = ...` in pyvenv.cfg). */
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
 * The binds and symlinks that make `executables` (absolute paths) runnable when `hidden`
 * folders are covered; `visible` folders (the caller's directory) are shown anyway.
 */
export function toolchainMounts(
  executables: readonly string[],
  hidden: readonly string[],
  visible: readonly string[] = [],
): ToolchainMounts {
  const binds = new Set<string>();
  const links = new Map<string, string>();
  const seen = new Set<string>();
  const covered = (path: string) =>
    binds.has(path) || [...binds].some((bind) => isWithin(bind, path));
  const visit = (path: string, depth: number) => {
    if (depth > 8 || seen.has(path)) return;
    seen.add(path);
    const info = lstatSyncOrNull(path);
    if (info === null) return;
    const root = hiddenRootOf(path, hidden);
    const shown = root === undefined || visible.some((dir) => isWithin(dir, path)) ||
      covered(path);
    if (!shown && root !== path) {
      const install = installRoot(path, root!, hidden);
      if (install !== undefined) {
        binds.add(install.root);
        const base = install.kind === "venv" ? venvBase(install.root) : undefined;
        if (base !== undefined) visit(base, depth + 1);
      } else if (info.isSymlink) {
        links.set(path, Deno.readLinkSync(path));
      } else if (info.isFile) binds.add(path);
    }
    if (info.isSymlink) visit(resolve(dirname(path), Deno.readLinkSync(path)), depth + 1);
  };
  for (const executable of executables) visit(executable, 0);
  return {
    binds: [...binds],
    links: [...links].filter(([path]) => !covered(path)).map(([path, target]) => [target, path]),
  };
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
