/**
 * The folders a run writes directly, as it sees them (rules: core/policy/workspace_rules.ts).
 *
 * - A `--write` grant's walk finds what the sandbox must guard there, at any depth: guarded
 *   paths read-only, `.git` and `.github` folders pinned so they cannot be swapped, secret files
 *   hidden. After the run, the guarded paths it made there are moved to its quarantine.
 * - Policy mode's walk before a run lists every folder (names and kinds, no stat of a file:
 *   names are enough to tell created and deleted files) with the folder's own `lstat` taken just
 *   before; a folder whose `lstat` is the one kept with its listing by the last walk from the
 *   same workspace is not read again (runtime/masks/listing_cache.ts, as the sandbox's secret
 *   search does). The walk after the run stats every file, and one whose change time is past
 *   the run's start was changed by it (a script can set a file's mtime back, never its ctime).
 *   A folder is listed again after the run only when its `lstat` moved: a folder's change time
 *   moves whenever an entry is added, removed or renamed in it, while a file's content changing
 *   does not touch its folder — which is why every file is still stat'ed.
 *
 * Guarded paths that did not exist and were made during a run are moved to a quarantine folder
 * under `$SKILLS_HOME/.cache/quarantine/` afterwards, in both.
 */

import { SkillError } from "../../core/errors.ts";
import { folderKey, SETTLED_MS } from "../os/folder_keys.ts";
import { ListingCache } from "../masks/listing_cache.ts";
import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import { join } from "../os/paths.ts";
import {
  GITHUB_CI_FOLDERS,
  GUARDED_AT_TOP,
  GUARDED_IF_ABSENT_IN_GIT,
  GUARDED_IN_GIT,
  heldBackRoot,
  isGuardedName,
  isSecretFileName,
  type WorkspaceGuards,
} from "../../core/policy/workspace_rules.ts";

/**
 * How far policy mode's walk goes: entries in all, at any depth (a large monorepo is cut, and
 * its receipt says so). Its receipt reports; nothing it guards depends on the walk's reach.
 */
const MAX_ENTRIES = 20_000;
/**
 * A `--write` grant's walk has no cap: every guarded path in the folder is found, at any depth,
 * or the grant is refused — after this long, as the sandbox's secret search refuses a folder it
 * could not finish (runtime/masks/secret_files.ts).
 */
const GUARD_BUDGET_MS = 10_000;
/** Folders whose contents are never walked: installed packages, git's object store. */
const SKIP_CONTENTS = new Set(["node_modules", ".git", "__pycache__", ".venv", "venv"]);

/** One folder as a walk listed it (entry kinds: `d` folder, `l` symlink, `f` file, `o` other). */
interface Listing {
  names: string[];
  kinds: string;
  /** The folder's `lstat` taken before listing it, when its stamps were settled then. */
  key?: string | undefined;
}

export interface WorkspaceScan extends WorkspaceGuards {
  dir: string;
  /** Guarded names absent at the workspace's top before the run (relative paths). */
  absent: string[];
  /** Each folder the walk listed, by its relative prefix (`""` the top, `src/`, `src/lib/`). */
  folders: Map<string, Listing>;
  /** The walk after a run: files changed since it started. */
  changed: string[];
  /** The walk stopped at its cap (policy mode only): changes past it are not listed. */
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

interface WalkOptions {
  /** Find what the sandbox must guard (a `--write` grant): guarded folders are not entered. */
  guards?: boolean;
  /**
   * With `guards`, the walk after the run: it goes where the grant's walk went, for listings
   * only (what to guard was found before the run, and the sandbox is gone).
   */
  listingsOnly?: boolean;
  /**
   * Take each folder's key before listing it (policy mode's walk before a run), kept for
   * folders whose stamps are before this time (ms).
   */
  settled?: number;
  /** The walk after a run: files changed at or after it (ms) are listed. */
  since?: number;
  /** The walk before this one: folders whose key did not move are not listed again. */
  before?: WorkspaceScan;
  /** Listings kept from the last walk before a run (keyed as `settled` keys them). */
  kept?: ListingCache;
  /** With `guards`: how long the walk may take (ms), and its clock (tests pass one that runs out). */
  budgetMs?: number;
  clock?: () => number;
}

/**
 * A `--write` grant's folder: what the sandbox must guard there, at any depth and with no entry
 * cap (a guarded path the walk did not reach would be writable); refused past its time budget.
 */
export function scanWorkspace(
  dir: string,
  options: { budgetMs?: number; clock?: () => number; settledMs?: number } = {},
): WorkspaceScan {
  return walk(dir, {
    guards: true,
    // Each folder's key too, so the walk after the run (quarantineCreated) lists again only
    // the folders whose entries changed.
    settled: Date.now() - (options.settledMs ?? SETTLED_MS),
    budgetMs: options.budgetMs ?? GUARD_BUDGET_MS,
    clock: options.clock,
  });
}

/**
 * Policy mode's walk before a run: every folder's names and kinds, its key, and the guarded
 * names absent at the top. Guarded folders are entered like any other, so a change inside one
 * is a change (listed as guarded), not a file the run seems to have created. With a `store`,
 * the listings are kept there for the next walk from `dir`, and the last walk's are used where
 * a folder's key has not moved. The store is the user's: in policy mode a script could rewrite
 * it, as it could anything else of the user's — policy mode's receipt reports, it guards nothing.
 */
export function snapshotWorkspace(
  dir: string,
  options: { settledMs?: number; store?: string } = {},
): WorkspaceScan {
  const settledMs = options.settledMs ?? SETTLED_MS;
  const kept = options.store === undefined
    ? undefined
    : ListingCache.open(options.store, dir, settledMs);
  const scan = walk(dir, { settled: Date.now() - settledMs, kept });
  kept?.save();
  return scan;
}

function walk(dir: string, options: WalkOptions): WorkspaceScan {
  const { guards = false, since, before, settled, kept } = options;
  const finding = guards && !options.listingsOnly;
  const limit = guards ? Infinity : MAX_ENTRIES;
  const clock = options.clock ?? (() => performance.now());
  const deadline = options.budgetMs === undefined ? Infinity : clock() + options.budgetMs;
  const scan: WorkspaceScan = {
    dir,
    readOnly: [],
    pins: [],
    secrets: [],
    absent: [],
    folders: new Map(),
    changed: [],
    cut: false,
  };
  let count = 0;
  let full = false;
  // Breadth first, so the shallow entries are always seen before the cap; paths by
  // concatenation, stats by the sync call.
  const queue: [folder: string, prefix: string][] = [[dir === "/" ? "" : dir, ""]];
  for (let at = 0; at < queue.length && !full; at++) {
    if (clock() > deadline) refuseGrant(dir, count, options.budgetMs!);
    const [folder, prefix] = queue[at]!;
    const listing = kept === undefined
      ? listFolder(folder || "/", before?.folders.get(prefix), settled)
      : keptListing(kept, folder || "/");
    if (listing === undefined) continue; // unreadable: nothing of it is shown to the script either
    const { names, kinds } = listing;
    // The top is listed first: in full unless it alone holds more entries than the cap.
    if (prefix === "" && names.length <= limit) {
      scan.top = new Set(names.map((name) => name.toLowerCase()));
    }
    if (count + names.length > limit) scan.cut = full = true; // this folder is the last
    scan.folders.set(prefix, listing);
    for (let i = 0; i < names.length && ++count <= limit; i++) {
      const name = names[i]!;
      const sig = kinds[i]!;
      const path = `${folder}/${name}`;
      if (since !== undefined && sig !== "d" && changedSince(path, since)) {
        scan.changed.push(prefix + name);
      }
      if (finding) guard(scan, path, name, sig);
      if (sig !== "d" || SKIP_CONTENTS.has(name) || (guards && isGuardedName(name))) {
        continue;
      }
      queue.push([path, `${prefix}${name}/`]);
    }
  }
  if (finding || settled !== undefined) findAbsent(scan, guards);
  return scan;
}

/** Refuses a `--write` grant whose guarded paths could not all be found in time. */
function refuseGrant(dir: string, entries: number, budgetMs: number): never {
  throw new SkillError(
    "permission_denied",
    `Cannot grant --write ${dir}: finding its guarded paths took over ${
      budgetMs / 1000
    } s (${entries} entries), and one it did not reach could be written`,
    { hint: "Grant a narrower folder, e.g. the one the script should write" },
  );
}

/**
 * Whether the file at `path` changed at or after `since` (ms): its mtime, which a script can
 * set back, or its ctime, which it cannot. Deno gives ctime to the whole second, so a ctime in
 * the second the run began is either a write just before the run (its mtime in that same
 * second, before `since`) or a change during the run whose mtime was set back out of that
 * second: the second is listed, the first is not. (A script that sets a file's mtime back to
 * within the very second the run began, before it, is not told apart: policy mode's receipt
 * reports, the sandbox's diff is what enforces.)
 */
function changedSince(path: string, since: number): boolean {
  const info = lstatSyncOrNull(path);
  const mtime = info?.mtime?.getTime() ?? 0;
  const ctime = info?.ctime?.getTime() ?? 0;
  if (mtime >= since || ctime >= since) return true;
  const startSecond = since - (since % 1000);
  return ctime % 1000 === 0 && ctime === startSecond && mtime - (mtime % 1000) !== startSecond;
}

/**
 * One folder's names and kinds: the walk before's listing when the folder's key is the one it
 * had then (nothing was added, removed or renamed in it), else read from the disk — with the
 * key taken before reading when `settled` is given.
 */
function listFolder(
  folder: string,
  known: Listing | undefined,
  settled: number | undefined,
): Listing | undefined {
  if (known?.key !== undefined && known.key === folderKey(folder)) return known;
  // Taken before the listing, so an entry added after it moves the folder past its key; none
  // for a folder changed just before the walk, which could change again and keep its stamps.
  const key = settled === undefined ? undefined : folderKey(folder, settled);
  const listing: Listing = { names: [], kinds: "", key };
  try {
    for (const entry of Deno.readDirSync(folder)) {
      listing.names.push(entry.name);
      listing.kinds += entry.isDirectory ? "d" : entry.isSymlink ? "l" : entry.isFile ? "f" : "o";
    }
  } catch {
    return undefined;
  }
  return listing;
}

/** One folder's listing through the kept listings (key and all), or undefined if unreadable. */
function keptListing(kept: ListingCache, folder: string): Listing | undefined {
  try {
    return kept.list(folder);
  } catch {
    return undefined;
  }
}

/**
 * The guarded names absent at the top, and in policy mode those absent in the top repository's
 * `.git` (GUARDED_IF_ABSENT_IN_GIT; a `--write` grant's walk notes them for every `.git`).
 */
function findAbsent(scan: WorkspaceScan, guards: boolean): void {
  const dir = scan.dir;
  for (const name of GUARDED_AT_TOP) {
    if (!mayExist(scan, name) || lstatSyncOrNull(join(dir, name)) === null) {
      scan.absent.push(name);
    }
  }
  // The top repository's (policy mode's walk; a --write grant's walk notes every one it guards).
  if (
    !guards && mayExist(scan, ".git") && lstatSyncOrNull(join(dir, ".git"))?.isDirectory
  ) {
    noteAbsentInGit(scan, join(dir, ".git"));
  }
}

/** The entries of a `.git` folder that must not appear where they were not, as relative paths. */
function noteAbsentInGit(scan: WorkspaceScan, gitDir: string): void {
  for (const inner of GUARDED_IF_ABSENT_IN_GIT) {
    if (lstatSyncOrNull(join(gitDir, inner)) === null) {
      scan.absent.push(join(gitDir, inner).slice(scan.dir.length + 1));
    }
  }
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
function guard(scan: WorkspaceScan, path: string, name: string, sig: string): void {
  if (sig === "l") {
    // A link's target is what a write through it reaches: guard that, if it is inside.
    if (!isGuardedName(name) && !isSecretFileName(name)) return;
    try {
      const target = Deno.realPathSync(path);
      if (!isWithin(scan.dir, target)) return; // outside: read-only or hidden anyway
      (isSecretFileName(name) && Deno.statSync(target).isFile ? scan.secrets : scan.readOnly)
        .push(target);
    } catch { /* dangling: nothing to protect */ }
    return;
  }
  if (sig === "f" && isSecretFileName(name)) scan.secrets.push(path);
  else if (sig === "d" && name === ".git") {
    // Pinned with its hooks and config read-only, not read-only whole: git still works there.
    scan.pins.push(path);
    guardGitDir(scan, path, 0);
  } else if (isGuardedName(name)) scan.readOnly.push(path); // a `.git` file among them
  else if (sig === "d" && name === ".github") {
    const ci = GITHUB_CI_FOLDERS.map((inner) => join(path, inner)).filter((inner) => {
      const found = lstatSyncOrNull(inner);
      return found?.isDirectory === true && !found.isSymlink;
    });
    if (ci.length > 0) scan.pins.push(path);
    scan.readOnly.push(...ci);
  }
}

/**
 * How deep submodules' git folders are followed (`modules/a/modules/b/…`): any real nesting,
 * and no further than a bound a pathological tree cannot turn into a stack overflow.
 */
const MAX_GIT_NESTING = 32;

/** A git folder's hooks and config read-only, and those of its submodules (`modules/…`). */
function guardGitDir(scan: WorkspaceScan, gitDir: string, depth: number): void {
  for (const inner of GUARDED_IN_GIT) {
    if (lstatSyncOrNull(join(gitDir, inner)) !== null) scan.readOnly.push(join(gitDir, inner));
  }
  noteAbsentInGit(scan, gitDir);
  if (depth >= MAX_GIT_NESTING) return;
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
  const { after, quarantined } = quarantineNewGuarded(
    before,
    () => walk(before.dir, { since, before }),
    quarantine,
  );
  const { created, deleted } = listingDiff(before, after);
  const fresh = new Set(created.map(([rel]) => rel));
  return {
    created: created.filter(([, sig]) => sig !== "d").map(([rel]) => rel).sort(),
    changed: after.changed.filter((rel) => !fresh.has(rel)).sort(),
    deleted: deleted.sort(),
    quarantined: quarantined.sort(),
    incomplete: before.cut || after.cut,
  };
}

/**
 * After a run with a `--write` grant, which it writes directly: the guarded names the run
 * created there at any depth (an `.envrc`, a `.vscode/`, `.github/workflows`, `.git/hooks`
 * where none was), moved under `quarantine` (a fresh folder); their paths relative to the
 * folder, sorted. `before` is the grant's walk before the run ({@link scanWorkspace}).
 */
export function quarantineCreated(before: WorkspaceScan, quarantine: string): string[] {
  const walkAfter = () => walk(before.dir, { guards: true, listingsOnly: true, before });
  return quarantineNewGuarded(before, walkAfter, quarantine).quarantined.sort();
}

/**
 * Moves the guarded names absent from `before` and present in the walk after (`walkAfter`)
 * under `quarantine`: the ones absent at the top first, then any made deeper, shallowest first;
 * the walk after is taken again whenever something was moved.
 */
function quarantineNewGuarded(
  before: WorkspaceScan,
  walkAfter: () => WorkspaceScan,
  quarantine: string | undefined,
): { after: WorkspaceScan; quarantined: string[] } {
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
  let after = walkAfter();
  let movedTop = false;
  for (const rel of before.absent) {
    if (!mayExist(after, rel) || lstatSyncOrNull(join(before.dir, rel)) === null) continue;
    if (moveAside(rel)) movedTop = true;
  }
  if (movedTop) after = walkAfter();
  // A guarded name made anywhere else the walk reaches (`sub/.claude/settings.json`, a
  // nested `.vscode/`): the new guarded entry goes too, shallowest first.
  let movedNested = false;
  for (const [rel] of listingDiff(before, after).created) {
    const top = newGuardedTop(rel, before);
    if (top !== undefined && !quarantined.some((q) => isWithinRel(q, top)) && moveAside(top)) {
      movedNested = true;
    }
  }
  if (movedNested) after = walkAfter();
  return { after, quarantined };
}

/**
 * The entries only the walk after has (any kind, with it) and the files and links only the walk
 * before had, folder by folder (a name that became or stopped being a folder counts as both):
 * a folder whose listing was used again has neither.
 */
function listingDiff(before: WorkspaceScan, after: WorkspaceScan): {
  created: [rel: string, sig: string][];
  deleted: string[];
} {
  const created: [string, string][] = [];
  const deleted: string[] = [];
  const kinds = (listing: Listing | undefined) =>
    new Map(listing?.names.map((name, i) => [name, listing.kinds[i]!]));
  const same = (a: string | undefined, b: string) => a !== undefined && (a === "d") === (b === "d");
  for (const [prefix, now] of after.folders) {
    const then = before.folders.get(prefix);
    if (now === then) continue;
    const had = kinds(then);
    now.names.forEach((name, i) => {
      if (!same(had.get(name), now.kinds[i]!)) created.push([prefix + name, now.kinds[i]!]);
    });
  }
  for (const [prefix, then] of before.folders) {
    const now = after.folders.get(prefix);
    if (now === then) continue;
    const has = kinds(now);
    then.names.forEach((name, i) => {
      if (then.kinds[i] !== "d" && !same(has.get(name), then.kinds[i]!)) {
        deleted.push(prefix + name);
      }
    });
  }
  return { created, deleted };
}

/** Whether the walk before listed `rel`. */
function existedBefore(before: WorkspaceScan, rel: string): boolean {
  const slash = rel.lastIndexOf("/");
  return before.folders.get(rel.slice(0, slash + 1))?.names.includes(rel.slice(slash + 1)) ??
    false;
}

function isWithinRel(parent: string, child: string): boolean {
  return child === parent || child.startsWith(`${parent}/`);
}

/**
 * The shallowest part of a new path `rel` that is a guarded name the run created, if any:
 * `sub/.vscode` for `sub/.vscode/tasks.json` when `sub/.vscode` did not exist before.
 */
function newGuardedTop(rel: string, before: WorkspaceScan): string | undefined {
  const top = heldBackRoot(rel);
  return top === undefined || existedBefore(before, top) ? undefined : top;
}
