/**
 * The steps of a change that write, in either scope: each runs under the registry lock,
 * first rolls back what dead commands left in its scope (store/recovery), re-checks its plan
 * against the record as it is now, journals its moves (store/journal) before the first
 * rename, and undoes its own renames if anything fails before the record — the registry,
 * or a project's lockfile — is written, last. Only change.ts calls these: it owns the
 * staging directory whose journal and trash they use.
 */

import { dirname, join } from "../os/paths.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { type Lockfile, safeRelativePath, serializeLockfile } from "../../core/records/lockfile.ts";
import type { ProjectScope } from "../../core/records/scope.ts";
import { SkillError } from "../../core/errors.ts";
import {
  findEntry,
  type Registry,
  type RegistryEntry,
  removeEntry,
  upsertEntry,
} from "../../core/records/registry.ts";
import { cachedDigest } from "../trust/file_hashes.ts";
import { withListingSummary } from "../catalog/cache.ts";
import { exists, fileTurns, lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import { readRegistry, withRegistryLock, writeRegistryUnlocked } from "../store/registry.ts";
import { isManagedEntry, type Staging } from "../store/staging.ts";
import { writeJournal } from "../store/journal.ts";
import { LOCKFILE_UNCHANGED } from "../../core/records/journal.ts";
import { recoverUnderLock, skillFolder } from "../store/recovery.ts";
import {
  lockfileText,
  lockForChange,
  readProjectLock,
  withPeerHashes,
  writeLockfileText,
} from "../store/lockfile.ts";
import { digestCachePath } from "../trust/gate.ts";
import { collisionError, collisionProblem, type InstallPlan } from "./install_plan.ts";
import type { UpdatePlan } from "./update_planner.ts";

/**
 * Runs `work` under the registry lock on the registry as it is after recovery; returns
 * its result and the recovery notes. An aborted `signal` stops it before anything is read.
 */
async function underLock<T>(
  home: string,
  work: (registry: Registry) => T | Promise<T>,
  signal?: AbortSignal,
): Promise<{ result: T; notes: string[] }> {
  return await withRegistryLock(home, async () => {
    signal?.throwIfAborted();
    const registry = await readRegistry(home);
    const { notes } = await recoverUnderLock({ kind: "user", home }, registry);
    return { result: await work(registry), notes };
  });
}

/** The planned entry must still be the registry's: another command may have changed it. */
function assertUnchanged(registry: Registry, planned: RegistryEntry, message: string): void {
  const current = findEntry(registry, planned.name_canonical);
  if (current === undefined || current.updated_at !== planned.updated_at) {
    throw new SkillError("conflict", message, { hint: "Run the command again" });
  }
}

/** Where an update or removal moves a skill's previous directory. */
export function asidePath(staging: Staging, canonical: string): string {
  return join(staging.trash, canonical);
}

/**
 * Moves the staged skills into `$SKILLS_HOME/<canonical>` and records them: either every
 * planned skill is installed or none is. Collisions are checked again under the lock.
 */
export async function commitInstall(
  home: string,
  staging: Staging,
  plans: readonly InstallPlan[],
  signal?: AbortSignal,
): Promise<string[]> {
  const { notes } = await underLock(home, async (registry) => {
    for (const plan of plans) {
      const problem = await collisionProblem(home, registry, plan.canonical);
      if (problem !== undefined) throw collisionError(plan.canonical, problem, undefined);
    }
    writeJournal(staging, {
      version: 2,
      scope: "user",
      lockfile: null,
      items: plans.map((p) => ({
        canonical: p.canonical,
        target: p.target,
        aside: null,
        movesIn: true,
        updatedAt: p.entry.updated_at,
      })),
    });
    const moved: InstallPlan[] = [];
    try {
      for (const plan of plans) {
        await Deno.rename(plan.candidate.dir, plan.target);
        moved.push(plan);
        // The listing summary (catalog/cache.ts): a listing then reads no SKILL.md of it.
        registry = upsertEntry(registry, await withListingSummary(plan.entry, home));
        await removeIfExists(digestCachePath(home, plan.canonical)).catch(() => {});
      }
      writeRegistryUnlocked(home, registry);
    } catch (error) {
      for (const plan of moved.reverse()) {
        await Deno.rename(plan.target, plan.candidate.dir).catch(() => {});
      }
      throw error;
    }
  }, signal);
  return notes;
}

/**
 * Swaps staged updates in, all or none: one lock, one journal, one registry write however
 * many skills (`update --all` of a thousand), each old directory aside and each new one in;
 * on any failure every swap made is undone before the registry is written.
 */
export async function applyUpdates(
  home: string,
  staging: Staging,
  plans: readonly UpdatePlan[],
): Promise<string[]> {
  const swaps = plans.flatMap((plan) => {
    const staged = plan.staged;
    if (plan.kind !== "update" || staged === undefined) return [];
    const target = plan.entry.installed_path;
    return [{ plan, staged, target, aside: asidePath(staging, plan.canonical) }];
  });
  if (swaps.length === 0) return [];
  const { notes } = await underLock(home, async (registry) => {
    for (const { plan } of swaps) {
      assertUnchanged(
        registry,
        plan.entry,
        `Cannot update skill '${plan.canonical}': another command changed it meanwhile`,
      );
    }
    writeJournal(staging, {
      version: 2,
      scope: "user",
      lockfile: null,
      items: swaps.map(({ plan, staged, target, aside }) => ({
        canonical: plan.canonical,
        target,
        aside,
        movesIn: true,
        updatedAt: staged.entry.updated_at,
      })),
    });
    await Deno.mkdir(staging.trash, { recursive: true });
    const made: { swap: (typeof swaps)[number]; movedOld: boolean; movedNew: boolean }[] = [];
    try {
      for (const swap of swaps) {
        const step = { swap, movedOld: false, movedNew: false };
        made.push(step);
        if (await exists(swap.target)) {
          await Deno.rename(swap.target, swap.aside);
          step.movedOld = true;
        }
        await Deno.rename(swap.staged.dir, swap.target);
        step.movedNew = true;
        registry = upsertEntry(registry, await withListingSummary(swap.staged.entry, home));
      }
      writeRegistryUnlocked(home, registry);
    } catch (error) {
      for (const { swap, movedOld, movedNew } of made.reverse()) {
        if (movedNew) await Deno.rename(swap.target, swap.staged.dir).catch(() => {});
        if (movedOld) await Deno.rename(swap.aside, swap.target).catch(() => {});
      }
      throw error;
    }
  });
  for (const { plan } of swaps) {
    await removeIfExists(digestCachePath(home, plan.canonical)).catch(() => {});
  }
  return notes;
}

/**
 * Removes skills: each directory is renamed aside into the trash first, then the entries
 * are dropped; the files are deleted with the staging area, after the lock is released.
 * Only `$SKILLS_HOME/<canonical>` is ever moved; any other entry is only dropped.
 */
export async function removeSkills(
  home: string,
  staging: Staging,
  entries: readonly RegistryEntry[],
): Promise<{ removed: string[]; notes: string[] }> {
  const { result: removed, notes } = await underLock(home, async (registry) => {
    for (const planned of entries) {
      assertUnchanged(
        registry,
        planned,
        `Cannot remove skill '${planned.name_canonical}': another command changed it meanwhile`,
      );
    }
    const managed = new Set(
      entries.filter((e) => isManagedEntry(home, e)).map((e) => e.name_canonical),
    );
    const items = entries.map((e) => ({
      canonical: e.name_canonical,
      target: e.installed_path,
      aside: asidePath(staging, managed.has(e.name_canonical) ? e.name_canonical : "unmanaged"),
      movesIn: false,
      updatedAt: null,
    }));
    writeJournal(staging, { version: 2, scope: "user", lockfile: null, items });
    await Deno.mkdir(staging.trash, { recursive: true });
    const moved: typeof items = [];
    try {
      for (const item of items) {
        if (managed.has(item.canonical) && await exists(item.target)) {
          await Deno.rename(item.target, item.aside);
          moved.push(item);
        }
        registry = removeEntry(registry, item.canonical);
      }
      writeRegistryUnlocked(home, registry);
    } catch (error) {
      for (const item of moved.reverse()) {
        await Deno.rename(item.aside, item.target).catch(() => {});
      }
      throw error;
    }
    return items.map((i) => i.canonical);
  });
  for (const name of removed) {
    await removeIfExists(digestCachePath(home, name)).catch(() => {});
  }
  return { removed, notes };
}

/** Rewrites one entry (no files move, so no intent); a changed entry is a conflict. */
async function changeEntry(
  home: string,
  planned: RegistryEntry,
  change: (entry: RegistryEntry) => RegistryEntry,
): Promise<RegistryEntry> {
  const { result } = await underLock(home, (registry) => {
    assertUnchanged(
      registry,
      planned,
      `Skill '${planned.name_canonical}' was changed by another command meanwhile`,
    );
    const next = change(findEntry(registry, planned.name_canonical)!);
    writeRegistryUnlocked(home, upsertEntry(registry, next));
    return next;
  });
  return result;
}

/**
 * Records approval of `digest` (computed by the caller and shown to the user). The digest
 * cache is rebuilt from scratch so the next run verifies against fresh hashes.
 */
export async function trustSkill(
  home: string,
  entry: RegistryEntry,
  digest: string,
): Promise<RegistryEntry> {
  const next = await changeEntry(home, entry, (current) => ({
    ...current,
    trusted: true,
    trusted_digest: digest,
  }));
  const cache = digestCachePath(home, entry.name_canonical);
  await removeIfExists(cache).catch(() => {});
  await Deno.mkdir(join(home, ".cache"), { recursive: true }).catch(() => {});
  await cachedDigest(entry.installed_path, cache).catch(() => {});
  return next;
}

/** Withdraws approval; the skill stays installed. */
export async function untrustSkill(home: string, entry: RegistryEntry): Promise<RegistryEntry> {
  const next = await changeEntry(home, entry, (current) => ({
    ...current,
    trusted: false,
    trusted_digest: null,
  }));
  await removeIfExists(digestCachePath(home, entry.name_canonical)).catch(() => {});
  return next;
}

/**
 * Records the commits that skills whose repository moved, but whose own files did not, are
 * now known to match (update_planner.ts: "moved"): one registry write for them all, no file
 * moves. An entry another command changed meanwhile is left as it is.
 */
export async function recordCommits(
  home: string,
  moves: readonly { entry: RegistryEntry; sha: string }[],
): Promise<string[]> {
  if (moves.length === 0) return [];
  const { notes } = await underLock(home, (registry) => {
    let next = registry;
    for (const { entry, sha } of moves) {
      const current = findEntry(next, entry.name_canonical);
      if (current === undefined || current.updated_at !== entry.updated_at) continue;
      next = upsertEntry(next, { ...current, commit_sha: sha });
    }
    if (next !== registry) writeRegistryUnlocked(home, next);
  });
  return notes;
}

/**
 * Adds requirers to installed dependencies (`required_by`) that a new install needs again: one
 * registry write, no file moves. Only an entry some skill already required is extended — one
 * the user asked for stays theirs (no requirer), so removing a requirer never takes it along.
 */
export async function recordRequirers(
  home: string,
  additions: readonly { canonical: string; requiredBy: readonly string[] }[],
): Promise<string[]> {
  if (additions.length === 0) return [];
  const { notes } = await underLock(home, (registry) => {
    let next = registry;
    for (const { canonical, requiredBy } of additions) {
      const current = findEntry(next, canonical);
      const by = current?.required_by;
      if (current === undefined || !Array.isArray(by) || by.length === 0) continue;
      const merged = [...new Set([...by, ...requiredBy])].sort();
      if (merged.length !== by.length) {
        next = upsertEntry(next, { ...current, required_by: merged });
      }
    }
    if (next !== registry) writeRegistryUnlocked(home, next);
  });
  return notes;
}

/** One folder of a project commit: the new one (from stageCopy), or null to remove it. */
export interface FolderMove {
  canonical: string;
  staged: string | null;
}

/**
 * What a project commit does to the lockfile: change the current one, replace it outright
 * (a foreign lockfile converted), or leave it as it is (null).
 */
export type LockChange = ((lock: Lockfile) => Lockfile) | { replace: Lockfile } | null;

/** Test hooks: simulate a crash at the worst moment (the folders moved, the lock not). */
export interface CommitHooks {
  beforeLockfile?: () => void;
}

/** The lockfile text a project commit writes last, or null when it leaves it alone. */
async function nextLockText(
  scope: ProjectScope,
  moves: readonly FolderMove[],
  next: LockChange,
): Promise<string | null> {
  if (next === null) return null;
  const staged = new Map(moves.map((m) => [m.canonical, m.staged]));
  const lock = typeof next === "function"
    ? next(lockForChange(readProjectLock(scope.root)))
    : next.replace;
  return serializeLockfile(
    await withPeerHashes(lock, (key) => staged.get(key) ?? skillFolder(scope, key)),
  );
}

/**
 * Moves every staged folder into `<root>/.agents/skills/<canonical>` (the previous one
 * aside), removes the folders of `staged: null` moves, then writes the lockfile (`next`).
 * All or nothing: a failure puts every folder back; a crash is rolled back by the next
 * change unless the lockfile was written (store/recovery).
 */
export async function commitFolders(
  scope: ProjectScope,
  staging: Staging,
  moves: readonly FolderMove[],
  next: LockChange,
  hooks: CommitHooks = {},
): Promise<string[]> {
  return await withRegistryLock(scope.home, async () => {
    const { notes } = await recoverUnderLock(scope, undefined);
    const text = await nextLockText(scope, moves, next);
    const items = moves.map((move) => {
      const target = skillFolder(scope, move.canonical);
      const hadOld = lstatSyncOrNull(target) !== null;
      const aside = hadOld ? join(staging.trash, move.canonical) : null;
      return { canonical: move.canonical, target, aside, staged: move.staged };
    });
    const before = await lockfileText(scope.root);
    // A lockfile that does not change cannot tell a finished change from an interrupted
    // one: such a change completes folder by folder (store/recovery).
    const lockfile = text === null || text === before ? LOCKFILE_UNCHANGED : await sha256Hex(text);
    writeJournal(staging, {
      version: 2,
      scope: "project",
      lockfile,
      items: items.map(({ canonical, target, aside, staged }) => ({
        canonical,
        target,
        aside,
        movesIn: staged !== null,
        updatedAt: null,
      })),
    });
    await Deno.mkdir(staging.trash, { recursive: true });
    await Deno.mkdir(dirname(skillFolder(scope, "_")), { recursive: true });
    const done: { item: (typeof items)[number]; movedOld: boolean; movedNew: boolean }[] = [];
    try {
      for (const item of items) {
        const step = { item, movedOld: false, movedNew: false };
        done.push(step);
        if (item.aside !== null) {
          await Deno.rename(item.target, item.aside);
          step.movedOld = true;
        }
        if (item.staged !== null) {
          await Deno.rename(item.staged, item.target);
          step.movedNew = true;
        }
      }
      hooks.beforeLockfile?.();
      if (text !== null) writeLockfileText(scope.root, text);
    } catch (error) {
      for (const { item, movedOld, movedNew } of done.reverse()) {
        if (movedNew) await Deno.rename(item.target, item.staged!).catch(() => {});
        if (movedOld) await Deno.rename(item.aside!, item.target).catch(() => {});
      }
      throw error;
    }
    return notes;
  });
}

/**
 * Copies `files` (relative paths, already verified by the caller) from `from` into
 * `staging` as the new folder of `canonical`, with their modes: a project's staging is on
 * the skills' own disk, so the commit's rename moves a whole folder at once.
 */
export async function stageCopy(
  staging: Staging,
  from: string,
  canonical: string,
  files: readonly string[],
): Promise<string> {
  const dest = join(staging.path, "new", canonical);
  Deno.mkdirSync(dest, { recursive: true });
  // Sync calls, with a turn of the event loop now and then: see copyTree (fetch_source.ts).
  const turn = fileTurns();
  const made = new Set([dest]);
  for (const rel of files) {
    await turn();
    if (!safeRelativePath(rel)) throw new SkillError("invalid_path", `Unsafe path: ${rel}`);
    const src = join(from, ...rel.split("/"));
    const info = Deno.lstatSync(src);
    if (!info.isFile) throw new SkillError("integrity_mismatch", `Not a regular file: ${rel}`);
    const to = join(dest, ...rel.split("/"));
    const folder = dirname(to);
    if (!made.has(folder)) {
      Deno.mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    Deno.copyFileSync(src, to);
    if (info.mode !== null) Deno.chmodSync(to, info.mode & 0o755);
  }
  return dest;
}
