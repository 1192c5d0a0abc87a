/**
 * The workspace as a run sees it (rules: core/policy/workspace_rules.ts). One bounded walk before the
 * run finds what the sandbox must guard (read-only guarded paths, `.git` folders pinned so
 * they cannot be swapped, secret files hidden) and records every entry's name and kind
 * (no stat: names are enough to tell created and deleted files); a second walk after the
 * run stats what it finds, and a file whose change time is past the run's start was
 * changed by it (a script can set a file's mtime back, never its ctime).
 * Guarded paths that did not exist and were created during a run are moved to a
 * quarantine folder under `$SKILLS_HOME/.cache/quarantine/` afterwards.
 */

import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import { join } from "../os/paths.ts";
import {
  GUARDED_DIRS,
  GUARDED_FILES,
  GUARDED_IN_GIT,
  GUARDED_WORKFLOWS,
  isGuardedName,
  isSecretFileName,
  type WorkspaceGuards,
} from "../../core/policy/workspace_rules.ts";

/** How far the walk goes: depth, and entries in all (a large monorepo is cut, and says so). */
const MAX_DEPTH = 6;
const MAX_ENTRIES = 20_000;
/** Folders whose contents are never walked: installed packages, git's object store. */
const SKIP_CONTENTS = new Set(["node_modules", ".git", "__pycache__", ".venv", "venv"]);

export interface WorkspaceScan extends WorkspaceGuards {
  dir: string;
  /** Guarded names absent at the workspace's top before the run (relative paths). */
  absent: string[];
  /** Each entry's kind by relative path: `d` folder, `f` file, `l` symlink. */
  entries: Map<string, string>;
  /** The walk after a run: files changed since it started. */
  changed: string[];
  /** The walk stopped at its bounds: changes deeper or past the cap are not listed. */
  cut: boolean;
  /**
   * The names at the workspace's top, lower-cased, when the walk listed all of it: a path
   * whose first part is none of them does not exist (see {@link mayExist}).
   */
  top?: ReadonlySet<string> | undefined;
}

/** What a run did to the workspace (relative paths, sorted). */
export interface WorkspaceChanges {
  created: string[];
  changed: string[];
  deleted: string[];
  /** Guarded paths the run created, moved to quarantine afterwards. */
  quarantined: string[];
  /** The walk was cut: the lists may be incomplete. */
  incomplete: boolean;
}

function kind(entry: { isDirectory: boolean; isSymlink: boolean }): string {
  return entry.isDirectory ? "d" : entry.isSymlink ? "l" : "f";
}

/**
 * Walks `dir` (a real path) within the bounds. With `since`, the walk after a run: files
 * are stat'ed and those changed at or after `since` (ms) are listed in `changed`.
 */
export function scanWorkspace(dir: string, since?: number): WorkspaceScan {
  const guards = since === undefined;
  const scan: WorkspaceScan = {
    dir,
    readOnly: [],
    pins: [],
    secrets: [],
    absent: [],
    entries: new Map(),
    changed: [],
    cut: false,
  };
  let count = 0;
  // Breadth first, so the shallow entries (where guarded names matter most) are always seen
  // before the cap; relative paths by concatenation, stats by the sync call (~5 µs an entry).
  const queue: [folder: string, prefix: string, depth: number][] = [
    [dir === "/" ? "" : dir, "", 0],
  ];
  let full = false;
  for (let next = queue.shift(); next !== undefined && !full; next = queue.shift()) {
    const [folder, prefix, depth] = next;
    let list: Deno.DirEntry[];
    try {
      list = [...Deno.readDirSync(folder || "/")];
    } catch {
      continue; // unreadable: nothing of it is shown to the script either
    }
    // The top is listed first: in full unless it alone holds more entries than the cap.
    if (prefix === "" && list.length + count <= MAX_ENTRIES) {
      scan.top = new Set(list.map((entry) => entry.name.toLowerCase()));
    }
    for (const entry of list) {
      if (++count > MAX_ENTRIES) {
        scan.cut = full = true;
        break;
      }
      const path = `${folder}/${entry.name}`;
      const rel = `${prefix}${entry.name}`;
      scan.entries.set(rel, kind(entry));
      if (since !== undefined && !entry.isDirectory) {
        const info = lstatSyncOrNull(path);
        const changedAt = Math.max(info?.ctime?.getTime() ?? 0, info?.mtime?.getTime() ?? 0);
        if (changedAt >= since) scan.changed.push(rel);
      }
      if (guards) guard(scan, path, entry.name, entry);
      if (!entry.isDirectory) continue;
      if (SKIP_CONTENTS.has(entry.name) || (guards && isGuardedName(entry.name, true))) continue;
      if (depth + 1 >= MAX_DEPTH) scan.cut = true;
      else queue.push([path, `${rel}/`, depth + 1]);
    }
  }
  if (guards) {
    for (const name of [...GUARDED_FILES, ...GUARDED_DIRS, GUARDED_WORKFLOWS]) {
      if (!mayExist(scan, name) || lstatSyncOrNull(join(dir, name)) === null) {
        scan.absent.push(name);
      }
    }
    // git makes hooks/ with every repository; one that lacks it must not gain one.
    if (
      mayExist(scan, ".git") && lstatSyncOrNull(join(dir, ".git"))?.isDirectory &&
      lstatSyncOrNull(join(dir, ".git/hooks")) === null
    ) {
      scan.absent.push(".git/hooks");
    }
  }
  return scan;
}

/**
 * Whether `rel` may exist in the walked workspace: false when the walk listed its top in
 * full and no name there, in any case, is `rel`'s first part; then it need not be asked of
 * the disk, where a missing path costs an error each (and guarded names are mostly missing).
 * Any case, so that on a case-insensitive disk `.ENVRC` still counts for `.envrc`.
 */
function mayExist(scan: WorkspaceScan, rel: string): boolean {
  return scan.top === undefined || scan.top.has(rel.split("/")[0]!.toLowerCase());
}

/** Adds what `path` needs: guarded names read-only, `.git` pinned, secrets hidden. */
function guard(
  scan: WorkspaceScan,
  path: string,
  name: string,
  info: { isFile: boolean; isDirectory: boolean; isSymlink: boolean },
): void {
  if (info.isSymlink) {
    // A link's target is what a write through it reaches: guard that, if it is inside.
    if (!isGuardedName(name, false) && !isGuardedName(name, true) && !isSecretFileName(name)) {
      return;
    }
    try {
      const target = Deno.realPathSync(path);
      if (!isWithin(scan.dir, target)) return; // outside: read-only or hidden anyway
      (isSecretFileName(name) && Deno.statSync(target).isFile ? scan.secrets : scan.readOnly)
        .push(target);
    } catch { /* dangling: nothing to protect */ }
    return;
  }
  if (info.isFile && isSecretFileName(name)) scan.secrets.push(path);
  else if (isGuardedName(name, info.isDirectory)) scan.readOnly.push(path);
  else if (info.isDirectory && name === ".git") {
    scan.pins.push(path);
    guardGitDir(scan, path, 0);
  } else if (info.isDirectory && name === ".github") {
    const workflows = join(path, "workflows");
    const found = lstatSyncOrNull(workflows);
    if (found?.isDirectory && !found.isSymlink) {
      scan.pins.push(path);
      scan.readOnly.push(workflows);
    }
  }
}

/** A git folder's hooks and config read-only, and those of its submodules (`modules/…`). */
function guardGitDir(scan: WorkspaceScan, gitDir: string, depth: number): void {
  for (const inner of GUARDED_IN_GIT) {
    if (lstatSyncOrNull(join(gitDir, inner)) !== null) scan.readOnly.push(join(gitDir, inner));
  }
  if (depth >= 3) return;
  // Submodules' git folders, and linked worktrees' own config (`worktrees/<name>/`).
  for (const folder of ["modules", "worktrees"]) {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = [...Deno.readDirSync(join(gitDir, folder))];
    } catch { /* none */ }
    for (const entry of entries) {
      if (entry.isDirectory) guardGitDir(scan, join(gitDir, folder, entry.name), depth + 1);
    }
  }
}

/**
 * What changed between `before` and a walk now; guarded names that were absent and exist
 * now are moved under `quarantine` (a fresh folder) and listed as such.
 */
export function workspaceChanges(
  before: WorkspaceScan,
  since: number,
  quarantine?: string,
): WorkspaceChanges {
  const quarantined: string[] = [];
  const moveAside = (rel: string) => {
    if (quarantine === undefined) return false;
    const target = join(quarantine, rel);
    try {
      Deno.mkdirSync(join(target, ".."), { recursive: true });
      Deno.renameSync(join(before.dir, rel), target);
      quarantined.push(rel);
      return true;
    } catch {
      return false; // left in place: listed as created
    }
  };
  // Guarded names that were absent and are there now: the walk's top says which may be, the
  // disk which are (and the walk again, without them, when any was moved).
  let after = scanWorkspace(before.dir, since);
  let movedTop = false;
  for (const rel of before.absent) {
    if (!mayExist(after, rel) || lstatSyncOrNull(join(before.dir, rel)) === null) continue;
    if (moveAside(rel)) movedTop = true;
  }
  if (movedTop) after = scanWorkspace(before.dir, since);
  // A guarded name made anywhere else the walk reaches (`sub/.claude/settings.json`, a
  // nested `.vscode/`): the new guarded entry goes too, shallowest first.
  let movedNested = false;
  for (const rel of after.entries.keys()) {
    if (before.entries.has(rel)) continue;
    const top = newGuardedTop(rel, before);
    if (top !== undefined && !quarantined.some((q) => isWithinRel(q, top)) && moveAside(top)) {
      movedNested = true;
    }
  }
  if (movedNested) after = scanWorkspace(before.dir, since);
  const created: string[] = [];
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [rel, sig] of after.entries) {
    if (sig !== "d" && !before.entries.has(rel)) created.push(rel);
  }
  for (const rel of after.changed) {
    if (before.entries.get(rel) === after.entries.get(rel)) changed.push(rel);
  }
  for (const [rel, sig] of before.entries) {
    if (sig !== "d" && !after.entries.has(rel)) deleted.push(rel);
  }
  return {
    created: created.sort(),
    changed: changed.sort(),
    deleted: deleted.sort(),
    quarantined: quarantined.sort(),
    incomplete: before.cut || after.cut,
  };
}

function isWithinRel(parent: string, child: string): boolean {
  return child === parent || child.startsWith(`${parent}/`);
}

/**
 * The shallowest part of a new path `rel` that is a guarded name the run created, if any:
 * `sub/.vscode` for `sub/.vscode/tasks.json` when `sub/.vscode` did not exist before.
 */
function newGuardedTop(rel: string, before: WorkspaceScan): string | undefined {
  const parts = rel.split("/");
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const name = parts[i]!;
    const guarded = isGuardedName(name, !last) || isGuardedName(name, true) ||
      (!last && name === ".github" && parts[i + 1] === "workflows") ||
      (last && isGuardedName(name, false));
    if (!guarded) continue;
    const top = parts.slice(0, name === ".github" ? i + 2 : i + 1).join("/");
    return before.entries.has(top) ? undefined : top;
  }
  return undefined;
}
