/**
 * Staging and crash recovery for installs, updates and removals.
 *
 * Every mutating command works in `$SKILLS_HOME/.staging/<pid>-<id>/` (clones, copies)
 * and moves replaced or removed skill directories aside to `$SKILLS_HOME/.trash/<pid>-<id>/`.
 * Before the first rename it writes `intent.json` into its staging directory, under the
 * registry lock. If the process dies, the next mutating command (under the same lock)
 * finds the staging directory of a dead owner and uses the intent to roll back whatever
 * half-finished move it finds, so the registry and the skill directories always agree.
 *
 * Ownership: the owner holds an exclusive advisory lock (flock) on `<staging>/.owner` for
 * as long as it runs; the OS releases it when the process dies, even on kill -9. (Deno does
 * not let a scoped process look at /proc or signal other pids, so a pid alone proves
 * nothing.) The pid in the name is informational.
 */

import { dirname, join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { isValidSkillName } from "../../core/manifest/names.ts";
import { findEntry, type Registry, type RegistryEntry } from "../../core/records/registry_model.ts";
import {
  array,
  formatIssue,
  literal,
  nullable,
  object,
  oneOf,
  string,
  type Validator,
} from "../../core/manifest/validate.ts";
import {
  exists,
  lstatOrNull,
  lstatSyncOrNull,
  removeIfExists,
  writeFileAtomicSync,
} from "../os/fs.ts";
import { STAGING_DIR, TRASH_DIR } from "./home.ts";
import { readRegistry, withRegistryLock } from "./registry.ts";

const INTENT_FILE = "intent.json";
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
export function createStaging(home: string): Staging {
  const id = `${Deno.pid}-${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const path = join(home, STAGING_DIR, id);
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
  return { id, path, trash: join(home, TRASH_DIR, id), owner };
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
export async function listStale(home: string, includeForeign = false): Promise<StaleEntry[]> {
  const out: StaleEntry[] = [];
  for (const area of ["staging", "trash"] as const) {
    const root = join(home, area === "staging" ? STAGING_DIR : TRASH_DIR);
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
      const ownerDir = area === "staging" ? path : join(home, STAGING_DIR, entry.name);
      // A directory its owner removed meanwhile is gone, not stale.
      if (!(await ownerAlive(ownerDir)) && lstatSyncOrNull(path) !== null) {
        out.push({ name: entry.name, path, area });
      }
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

interface IntentItem {
  canonical: string;
  /** `$SKILLS_HOME/<canonical>`. */
  target: string;
  /** Where the previous directory is moved aside (update, remove), else null. */
  aside: string | null;
  /** `updated_at` of the entry this command writes (install, update), else null. */
  updatedAt: string | null;
}

export interface Intent {
  version: 1;
  op: "install" | "update" | "remove";
  items: IntentItem[];
}

/** Checked with the core kit (zod costs 10-20 ms of start-up on every lifecycle command). */
const INTENT: Validator<Intent> = object({
  version: literal(1),
  op: oneOf("install", "update", "remove"),
  items: array(object({
    canonical: string(),
    target: string(),
    aside: nullable(string()),
    updatedAt: nullable(string()),
  })),
});

/** Reads `intent.json` text: the intent, or why not (`intent.json at items.0.target: ...`). */
export function parseIntent(text: string): { ok: true; intent: Intent } | {
  ok: false;
  reason: string;
} {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `${INTENT_FILE} is not valid JSON (${(error as Error).message})` };
  }
  const problem = INTENT(data);
  return problem === undefined
    ? { ok: true, intent: data as Intent }
    : { ok: false, reason: formatIssue(problem, INTENT_FILE) };
}

/** Must be called under the registry lock, before the first rename. */
export function writeIntent(staging: Staging, intent: Intent): void {
  writeFileAtomicSync(join(staging.path, INTENT_FILE), JSON.stringify(intent));
}

/** The intent of a dead command; undefined when it left none or an unreadable one. */
async function readIntent(stagingPath: string): Promise<Intent | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(stagingPath, INTENT_FILE));
  } catch {
    return undefined;
  }
  const parsed = parseIntent(text);
  return parsed.ok ? parsed.intent : undefined;
}

/**
 * Undoes the half-finished moves of one dead command. The registry is the source of truth:
 * if it already holds what the command meant to write, the command is complete; otherwise
 * every directory goes back where it was. Returns notes for the user. Caller holds the lock.
 */
async function rollBack(intent: Intent, registry: Registry, stagingPath: string) {
  const notes: string[] = [];
  let n = 0;
  const moveOut = async (path: string) => {
    await Deno.rename(path, join(stagingPath, `rolled-back-${n++}`));
  };
  for (const item of intent.items) {
    const entry = findEntry(registry, item.canonical);
    const written = entry !== undefined && item.updatedAt !== null &&
      entry.updated_at === item.updatedAt && entry.installed_path === item.target;
    if (intent.op === "install") {
      if (!written && entry === undefined && await exists(item.target)) {
        await moveOut(item.target);
        notes.push(`rolled back the interrupted install of '${item.canonical}'`);
      }
    } else if (intent.op === "update") {
      if (!written && item.aside !== null && await exists(item.aside)) {
        if (await exists(item.target)) await moveOut(item.target);
        await Deno.rename(item.aside, item.target);
        notes.push(`rolled back the interrupted update of '${item.canonical}'`);
      }
    } else if (entry !== undefined && item.aside !== null && await exists(item.aside)) {
      if (!(await exists(item.target))) {
        await Deno.rename(item.aside, item.target);
        notes.push(`restored '${item.canonical}' after an interrupted removal`);
      }
    }
  }
  return notes;
}

/**
 * Cleans up after commands that died: rolls back their half-finished moves and deletes
 * their staging and trash directories. Must be called under the registry lock; never
 * touches the directories of running commands. Does not change the registry itself.
 */
export async function recoverStale(
  home: string,
  registry: Registry,
  includeForeign = false,
): Promise<{ cleaned: string[]; notes: string[] }> {
  const stale = await listStale(home, includeForeign);
  const notes: string[] = [];
  for (const entry of stale.filter((e) => e.area === "staging")) {
    const intent = await readIntent(entry.path);
    if (intent !== undefined) notes.push(...await rollBack(intent, registry, entry.path));
  }
  const cleaned: string[] = [];
  // Trash first: a staging directory (holding the intent) must outlive its trash.
  const ordered = [
    ...stale.filter((e) => e.area === "trash"),
    ...stale.filter((e) => e.area === "staging"),
  ];
  for (const entry of ordered) {
    try {
      await removeIfExists(entry.path);
      cleaned.push(entry.path);
    } catch { /* still in use by a dying child process; the next command retries */ }
  }
  return { cleaned, notes };
}

/**
 * What every mutating command does first: if dead commands left anything behind, take the
 * lock and recover. Cheap when there is nothing to do (one directory listing, no lock).
 */
export async function cleanStale(home: string): Promise<string[]> {
  if ((await listStale(home)).length === 0) return [];
  return await withRegistryLock(home, async () => {
    return (await recoverStale(home, await readRegistry(home))).notes;
  });
}
