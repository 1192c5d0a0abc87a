/**
 * Staging directories for installs, updates and removals, in either scope.
 *
 * Every change works in `<base>/.staging/<pid>-<id>/` (clones, copies) and moves replaced or
 * removed skill directories aside to `<base>/.trash/<pid>-<id>/`, where `<base>` is
 * `$SKILLS_HOME` or a project's `.agents` (store/recovery.stagingBase). Before the first
 * rename it writes its journal there (journal.ts), under the registry lock. If the process
 * dies, the next change of that scope finds the staging directory of a dead owner
 * (`listStale`) and rolls back whatever half-finished move it finds (recovery.ts), so the
 * records and the skill directories always agree.
 *
 * Ownership: the owner holds an exclusive advisory lock (flock) on `<staging>/.owner` for
 * as long as it runs; the OS releases it when the process dies, even on kill -9. (Deno does
 * not let a scoped process look at /proc or signal other pids, so a pid alone proves
 * nothing.) The pid in the name is informational.
 */

import { dirname, join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { isValidSkillName } from "../../core/names.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import { lstatOrNull, lstatSyncOrNull } from "../os/fs.ts";
import { STAGING_DIR, TRASH_DIR } from "./home.ts";

const OWNER_FILE = ".owner";
/** A staging directory without an owner file (crash right after mkdir) is stale after this. */
const OWNERLESS_GRACE_MS = 10_000;
const NAME = /^(\d+)-([0-9a-f]{8})$/;

export interface Staging {
  /** `<pid>-<id>`, shared by the staging and the trash directory of one command. */
  id: string;
  path: string;
  /** Where directories moved aside go (created on demand). */
  trash: string;
  /** Holds the ownership lock until `disposeStaging`. */
  owner: Deno.FsFile;
}

/** Synchronous, like disposeStaging: a few tiny calls on every lifecycle command. */
export function createStaging(base: string): Staging {
  const id = `${Deno.pid}-${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const path = join(base, STAGING_DIR, id);
  // Another command may remove the (empty) staging root between mkdir steps: retry.
  for (let attempt = 0;; attempt++) {
    try {
      Deno.mkdirSync(path, { recursive: true });
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || attempt >= 5) throw error;
    }
  }
  // The owner file is locked under another name and then renamed into place: a command
  // probing `.owner` (ownerAlive) must never find it unlocked (it would judge this live
  // directory stale), nor hold its lock at the moment we take it.
  const pending = join(path, `${OWNER_FILE}.new`);
  const owner = Deno.openSync(pending, { write: true, createNew: true });
  if (!owner.tryLockSync(true)) {
    owner.close();
    throw new SkillError("io_error", `Cannot lock the staging directory ${path}`);
  }
  Deno.renameSync(pending, join(path, OWNER_FILE));
  return { id, path, trash: join(base, TRASH_DIR, id), owner };
}

/**
 * Removes a finished command's trash first, then its staging directory (with the intent),
 * then the staging and trash roots if they are empty, so a command leaves no trace.
 */
export function disposeStaging(staging: Staging): void {
  const remove = (path: string, recursive: boolean) => {
    try {
      Deno.removeSync(path, { recursive });
    } catch { /* gone already, or (a root) not empty: another command's */ }
  };
  remove(staging.trash, true);
  remove(staging.path, true);
  try {
    staging.owner.close();
  } catch { /* already closed */ }
  remove(dirname(staging.trash), false);
  remove(dirname(staging.path), false);
}

/**
 * Whether an entry (untrusted registry input) names a directory this tool manages:
 * a canonical name and `$SKILLS_HOME/<canonical>` as its path. Only such directories are
 * ever moved, replaced or deleted.
 */
export function isManagedEntry(home: string, entry: RegistryEntry): boolean {
  const c = entry.name_canonical;
  return isValidSkillName(c) && c === c.toLowerCase() && !c.includes("_") &&
    entry.installed_path === join(home, c);
}

/** Removes a directory only if it is empty (e.g. a $SKILLS_HOME this command created). */
export function removeIfEmpty(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* not empty, or gone */ }
}

function ownerPid(name: string): number | undefined {
  const match = NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Whether the command that owns staging directory `dir` is still running. */
async function ownerAlive(dir: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(join(dir, OWNER_FILE), { read: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const info = await lstatOrNull(dir);
    if (info === null) return false;
    return Date.now() - (info.mtime?.getTime() ?? 0) < OWNERLESS_GRACE_MS;
  }
  try {
    if (await file.tryLock(true)) {
      await file.unlock();
      return false;
    }
    return true;
  } finally {
    file.close();
  }
}

interface StaleEntry {
  name: string;
  path: string;
  area: "staging" | "trash";
}

/**
 * Staging and trash entries left by commands that are no longer running. Entries of live
 * processes are in use and never listed. `includeForeign` also lists names this module did
 * not create (e.g. orphans moved aside by `skills check --repair`).
 */
export async function listStale(base: string, includeForeign = false): Promise<StaleEntry[]> {
  const out: StaleEntry[] = [];
  for (const area of ["staging", "trash"] as const) {
    const root = join(base, area === "staging" ? STAGING_DIR : TRASH_DIR);
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(root)];
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    for (const entry of entries) {
      const path = join(root, entry.name);
      if (ownerPid(entry.name) === undefined) {
        if (includeForeign) out.push({ name: entry.name, path, area });
        continue;
      }
      // A trash directory belongs to the staging directory with the same id.
      const ownerDir = area === "staging" ? path : join(base, STAGING_DIR, entry.name);
      // A directory its owner removed meanwhile is gone, not stale.
      if (!(await ownerAlive(ownerDir)) && lstatSyncOrNull(path) !== null) {
        out.push({ name: entry.name, path, area });
      }
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}
