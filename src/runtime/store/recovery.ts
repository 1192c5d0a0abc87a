/**
 * Crash recovery, the same for both scopes: what a dead command left in a scope's staging
 * is rolled back, or — when the record it meant to write last is already on disk — left as
 * it finished, and its staging and trash are deleted. The record decides: in `$SKILLS_HOME`
 * the registry (has each entry the command meant to write?), in a project its lockfile (is
 * it the text the journal announced?). Runs under the registry lock, which every change of
 * either scope takes; never touches the directories of running commands.
 */

import { join } from "../os/paths.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { safeRelativePath } from "../../core/records/lockfile.ts";
import { findEntry, type Registry } from "../../core/records/registry.ts";
import { PROJECT_SKILLS_DIR, type Scope } from "../../core/records/scope.ts";
import { exists, removeIfExists } from "../os/fs.ts";
import { readJournal } from "./journal.ts";
import { type Journal, type JournalItem, LOCKFILE_UNCHANGED } from "../../core/records/journal.ts";
import { readRegistry, withRegistryLock } from "./registry.ts";
import { lockfileText } from "./lockfile.ts";
import { listStale, removeIfEmpty } from "./staging.ts";
import { STAGING_DIR, TRASH_DIR } from "./home.ts";

/** Where a scope keeps its staging and trash: `$SKILLS_HOME`, or `<root>/.agents`. */
export function stagingBase(scope: Scope): string {
  return scope.kind === "user" ? scope.home : join(scope.root, PROJECT_SKILLS_DIR[0]);
}

/** A skill's folder in its scope: `$SKILLS_HOME/<name>` or `<root>/.agents/skills/<name>`. */
export function skillFolder(scope: Scope, canonical: string): string {
  return scope.kind === "user"
    ? join(scope.home, canonical)
    : join(scope.root, ...PROJECT_SKILLS_DIR, canonical);
}

/**
 * What recovery does with one item: `keep` (the change finished it), `undo` (put the old
 * folder back and the new one out), or `restore-only` (a change that left the lockfile as
 * it was cannot tell finished from interrupted: only a folder moved aside without its
 * replacement goes back).
 */
type Verdict = "keep" | "undo" | "restore-only";

/** Decides each item of a user-scope journal from the registry, entry by entry. */
function userVerdict(item: JournalItem, registry: Registry): Verdict {
  const entry = findEntry(registry, item.canonical);
  if (!item.movesIn) return entry === undefined ? "keep" : "undo";
  // An install is undone only while no entry has the name; an update while the entry is
  // not the one it wrote.
  if (item.aside === null) return entry === undefined ? "undo" : "keep";
  const written = entry !== undefined && entry.updated_at === item.updatedAt &&
    entry.installed_path === item.target;
  return written ? "keep" : "undo";
}

/**
 * The journal is data in a folder a repository could plant: in a project, only a skill
 * folder of `.agents/skills` and the command's own trash are ever moved.
 */
function projectItemSafe(scope: Scope, item: JournalItem, trash: string): boolean {
  if (!safeRelativePath(item.canonical) || item.canonical.includes("/")) return false;
  if (item.target !== skillFolder(scope, item.canonical)) return false;
  return item.aside === null || item.aside === join(trash, item.canonical);
}

function note(scope: Scope, item: JournalItem): string {
  if (scope.kind === "project") {
    return `rolled back the interrupted change of project skill '${item.canonical}'`;
  }
  if (!item.movesIn) return `restored '${item.canonical}' after an interrupted removal`;
  const op = item.aside === null ? "install" : "update";
  return `rolled back the interrupted ${op} of '${item.canonical}'`;
}

/**
 * Puts one item back: its new folder out into the dead command's staging (deleted with
 * it), its old folder back from the trash. A new folder is only taken out when it is
 * certainly the new one: its old folder is in the trash, or it never had one. Returns
 * whether anything moved.
 */
async function undoItem(
  item: JournalItem,
  moveNewOut: boolean,
  outPath: () => string,
): Promise<boolean> {
  const asideHere = item.aside !== null && await exists(item.aside);
  const newIn = moveNewOut && item.movesIn && await exists(item.target) &&
    (asideHere || item.aside === null);
  if (newIn) await Deno.rename(item.target, outPath());
  let restored = false;
  if (asideHere && !(await exists(item.target))) {
    await Deno.rename(item.aside!, item.target);
    restored = true;
  }
  return newIn || restored;
}

async function lockfileHash(root: string): Promise<string> {
  return await sha256Hex(await lockfileText(root));
}

/** Rolls back one dead command's journal; returns notes for the user. */
async function replay(
  scope: Scope,
  journal: Journal,
  stagingPath: string,
  trash: string,
  registry: Registry | undefined,
): Promise<string[]> {
  const notes: string[] = [];
  const lockHash = scope.kind === "project" ? await lockfileHash(scope.root) : undefined;
  let n = 0;
  const outPath = () => join(stagingPath, `rolled-back-${n++}`);
  for (const item of journal.items) {
    let verdict: Verdict;
    if (scope.kind === "user") verdict = userVerdict(item, registry!);
    else if (!projectItemSafe(scope, item, trash)) continue;
    else if (journal.lockfile === lockHash) verdict = "keep";
    else verdict = journal.lockfile === LOCKFILE_UNCHANGED ? "restore-only" : "undo";
    if (verdict === "keep") continue;
    if (await undoItem(item, verdict === "undo", outPath)) notes.push(note(scope, item));
  }
  return notes;
}

/**
 * Cleans up after commands of `scope` that died: rolls back their half-finished moves and
 * deletes their staging and trash. Caller holds the registry lock; `registry` is the one
 * read under it (the user scope's record). Does not change the registry or the lockfile.
 * `includeForeign` also clears names this tool did not create (`skills check --repair`).
 */
export async function recoverUnderLock(
  scope: Scope,
  registry: Registry | undefined,
  includeForeign = false,
): Promise<{ cleaned: string[]; notes: string[] }> {
  const base = stagingBase(scope);
  const stale = await listStale(base, includeForeign);
  if (stale.length === 0) return { cleaned: [], notes: [] };
  const records = scope.kind === "user" ? registry ?? await readRegistry(scope.home) : undefined;
  const notes: string[] = [];
  for (const entry of stale.filter((e) => e.area === "staging")) {
    const journal = await readJournal(entry.path, scope.kind);
    if (journal === undefined) continue;
    const trash = join(base, TRASH_DIR, entry.name);
    notes.push(...await replay(scope, journal, entry.path, trash, records));
  }
  const cleaned: string[] = [];
  // Trash first: a staging directory (holding the journal) must outlive its trash.
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
  // A project keeps no empty `.agents/.staging` behind (it would show in `git status`).
  if (scope.kind === "project") {
    removeIfEmpty(join(base, STAGING_DIR));
    removeIfEmpty(join(base, TRASH_DIR));
  }
  return { cleaned, notes };
}

/**
 * What every change does first: if dead commands left anything in its scope, take the lock
 * and recover. Cheap when there is nothing to do (one directory listing, no lock).
 */
export async function cleanStale(scope: Scope): Promise<string[]> {
  if ((await listStale(stagingBase(scope))).length === 0) return [];
  return await withRegistryLock(scope.home, async () => {
    return (await recoverUnderLock(scope, undefined)).notes;
  });
}
