/**
 * One change to a project's skills — an install, an update, a restore, a removal — made
 * atomic and crash-safe the way runtime/lifecycle makes `$SKILLS_HOME` changes, with the
 * lockfile as the source of truth (where the registry is for the user's skills):
 *
 *   await using tx = await beginProjectChange(root, home);
 *   const staged = await tx.stageCopy(fetchedDir, "pdf", files);   // on the skills' disk
 *   await tx.commit([{ canonical: "pdf", staged }], (lock) => withLockedSkill(lock, ...));
 *
 * Staging lives in `<root>/.agents/.staging/<pid>-<id>/` (the same filesystem as the
 * skills, so a rename moves a whole folder at once), replaced folders go aside to
 * `<root>/.agents/.trash/<pid>-<id>/`, both owned through store/staging's flock. A commit,
 * under the registry lock: journal the moves and the hash the lockfile will have
 * (`project-intent.json`), move old folders aside and new ones in, then write the lockfile
 * atomically. Beginning a change recovers after a command that died: if the lockfile on
 * disk is the one the journal announced, the change was complete and its leftovers are
 * deleted; otherwise every folder goes back where it was.
 */

import { dirname, join } from "../os/paths.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import {
  type Lockfile,
  safeRelativePath,
  serializeLockfile,
} from "../../core/records/lockfile_model.ts";
import {
  array,
  boolean,
  literal,
  nullable,
  object,
  string,
  type Validator,
} from "../../core/manifest/validate.ts";
import { exists, lstatSyncOrNull, removeIfExists, writeFileAtomicSync } from "../os/fs.ts";
import { withRegistryLock } from "../store/registry.ts";
import {
  createStaging,
  disposeStaging,
  listStale,
  removeIfEmpty,
  type Staging,
} from "../store/staging.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { lockfilePath, lockForChange, readProjectLock, withPeerHashes } from "./lockfile.ts";

const INTENT_FILE = "project-intent.json";
/** The journal's lockfile hash when a change leaves the lockfile as it is. */
const UNCHANGED = "unchanged";

interface IntentItem {
  canonical: string;
  target: string;
  /** Where the previous folder goes (it had one), else null. */
  aside: string | null;
  /** The new folder (null for a removal). */
  staged: string | null;
  hadOld: boolean;
}

interface ProjectIntent {
  version: 1;
  /** sha256 of the lockfile text this change writes last. */
  lockfile: string;
  items: IntentItem[];
}

const INTENT: Validator<ProjectIntent> = object({
  version: literal(1),
  lockfile: string(),
  items: array(object({
    canonical: string(),
    target: string(),
    aside: nullable(string()),
    staged: nullable(string()),
    hadOld: boolean(),
  })),
});

interface ProjectMove {
  canonical: string;
  /** The new folder (from stageCopy), or null to remove the skill's folder. */
  staged: string | null;
}

/**
 * What a commit does to the lockfile: change the current one, replace it outright (a
 * foreign lockfile converted), or leave it as it is (null).
 */
export type LockChange = ((lock: Lockfile) => Lockfile) | { replace: Lockfile } | null;

/** Test hooks: simulate a crash at the worst moment (the folders moved, the lock not). */
interface CommitHooks {
  beforeLockfile?: () => void;
}

/** The folder `skills add --project` installs `canonical` into. */
export function projectSkillDir(root: string, canonical: string): string {
  return join(root, ...PROJECT_SKILLS_DIR, canonical);
}

function agentsDir(root: string): string {
  return join(root, PROJECT_SKILLS_DIR[0]);
}

export async function beginProjectChange(root: string, home: string): Promise<ProjectChange> {
  const hadAgents = lstatSyncOrNull(agentsDir(root)) !== null;
  const recovered = await recoverProject(root, home);
  return new ProjectChange(root, home, recovered, hadAgents);
}

export class ProjectChange implements AsyncDisposable {
  readonly root: string;
  readonly home: string;
  /** What recovering after a dead command did, as notes for the user. */
  readonly recovered: readonly string[];
  readonly #hadAgents: boolean;
  readonly #hadSkills: boolean;
  #staging: Staging | undefined;
  #disposed = false;

  constructor(root: string, home: string, recovered: string[], hadAgents: boolean) {
    this.root = root;
    this.home = home;
    this.recovered = recovered;
    this.#hadAgents = hadAgents;
    this.#hadSkills = lstatSyncOrNull(join(root, ...PROJECT_SKILLS_DIR)) !== null;
  }

  /**
   * Copies `files` (relative paths, already verified by the caller) from `from` into this
   * change's staging as the new folder of `canonical`, with their modes.
   */
  async stageCopy(from: string, canonical: string, files: readonly string[]): Promise<string> {
    const staging = this.#stage();
    const dest = join(staging.path, "new", canonical);
    await Deno.mkdir(dest, { recursive: true });
    for (const rel of files) {
      if (!safeRelativePath(rel)) throw new SkillError("invalid_path", `Unsafe path: ${rel}`);
      const src = join(from, ...rel.split("/"));
      const info = await Deno.lstat(src);
      if (!info.isFile) throw new SkillError("integrity_mismatch", `Not a regular file: ${rel}`);
      const to = join(dest, ...rel.split("/"));
      await Deno.mkdir(dirname(to), { recursive: true });
      await Deno.copyFile(src, to);
      if (info.mode !== null) await Deno.chmod(to, info.mode & 0o755);
    }
    return dest;
  }

  /**
   * Moves every staged folder into `<root>/.agents/skills/<canonical>` (the previous one
   * aside), removes the folders of `staged: null` moves, then writes `next(current lock)`
   * (or `next.replace`; with `next` null the lockfile is left as it is). All or nothing; a
   * failure puts every folder back.
   */
  async commit(
    moves: readonly ProjectMove[],
    next: LockChange,
    hooks: CommitHooks = {},
  ): Promise<void> {
    if (this.#disposed) throw new Error("This change is over: it was disposed");
    const staging = this.#stage();
    await withRegistryLock(this.home, async () => {
      const staged = new Map(moves.map((m) => [m.canonical, m.staged]));
      const text = next === null ? null : serializeLockfile(
        await withPeerHashes(
          typeof next === "function"
            ? next(lockForChange(readProjectLock(this.root)))
            : next.replace,
          (key) => staged.get(key) ?? projectSkillDir(this.root, key),
        ),
      );
      const items: IntentItem[] = [];
      for (const move of moves) {
        const target = projectSkillDir(this.root, move.canonical);
        const hadOld = lstatSyncOrNull(target) !== null;
        items.push({
          canonical: move.canonical,
          target,
          aside: hadOld ? join(staging.trash, move.canonical) : null,
          staged: move.staged,
          hadOld,
        });
      }
      const before = await Deno.readTextFile(lockfilePath(this.root)).catch(() => "");
      // A lockfile that does not change cannot tell a finished change from an interrupted
      // one: such a change completes folder by folder (see recoverProject).
      const lockfile = text === null || text === before ? UNCHANGED : await sha256Hex(text);
      const intent: ProjectIntent = { version: 1, lockfile, items };
      writeFileAtomicSync(join(staging.path, INTENT_FILE), JSON.stringify(intent));
      await Deno.mkdir(staging.trash, { recursive: true });
      await Deno.mkdir(join(this.root, ...PROJECT_SKILLS_DIR), { recursive: true });
      const done: { item: IntentItem; movedOld: boolean; movedNew: boolean }[] = [];
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
        if (text !== null) writeFileAtomicSync(lockfilePath(this.root), text);
      } catch (error) {
        for (const { item, movedOld, movedNew } of done.reverse()) {
          if (movedNew) await Deno.rename(item.target, item.staged!).catch(() => {});
          if (movedOld) await Deno.rename(item.aside!, item.target).catch(() => {});
        }
        throw error;
      }
    });
  }

  /** Removes staging and trash, and the `.agents` folders this change created if empty. */
  [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    this.#disposed = true;
    if (this.#staging !== undefined) disposeStaging(this.#staging);
    if (!this.#hadSkills) removeIfEmpty(join(this.root, ...PROJECT_SKILLS_DIR));
    if (!this.#hadAgents) removeIfEmpty(agentsDir(this.root));
    return Promise.resolve();
  }

  #stage(): Staging {
    if (this.#disposed) throw new Error("This change is over: it was disposed");
    this.#staging ??= createStaging(agentsDir(this.root));
    return this.#staging;
  }
}

async function readIntent(dir: string): Promise<ProjectIntent | undefined> {
  try {
    const data = JSON.parse(await Deno.readTextFile(join(dir, INTENT_FILE)));
    return INTENT(data) === undefined ? data as ProjectIntent : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Rolls back (or, when its lockfile was written, completes) what dead commands left in
 * this project, then deletes their staging and trash. Cheap when there is nothing: one
 * directory listing, no lock.
 */
async function recoverProject(root: string, home: string): Promise<string[]> {
  const dir = agentsDir(root);
  if ((await listStale(dir)).length === 0) return [];
  return await withRegistryLock(home, async () => {
    const stale = await listStale(dir);
    const notes: string[] = [];
    const lockText = await Deno.readTextFile(lockfilePath(root)).catch(() => "");
    const lockHash = await sha256Hex(lockText);
    const skillsRoot = join(root, ...PROJECT_SKILLS_DIR);
    for (const entry of stale.filter((e) => e.area === "staging")) {
      const intent = await readIntent(entry.path);
      if (intent === undefined || intent.lockfile === lockHash) continue;
      // A change that leaves the lockfile alone (a frozen restore) completes folder by
      // folder: only a folder moved aside without its replacement is put back.
      const complete = intent.lockfile === UNCHANGED;
      let n = 0;
      const trash = join(dir, ".trash", entry.name);
      for (const item of intent.items) {
        // The journal is data in a folder a repository could plant: only a skill folder of
        // .agents/skills and this command's own trash are ever moved.
        if (!safeRelativePath(item.canonical) || item.canonical.includes("/")) continue;
        if (item.target !== join(skillsRoot, item.canonical)) continue;
        if (item.aside !== null && item.aside !== join(trash, item.canonical)) continue;
        const asideHere = item.aside !== null && await exists(item.aside);
        const newIn = !complete && item.staged !== null && await exists(item.target) &&
          (asideHere || !item.hadOld);
        if (newIn) await Deno.rename(item.target, join(entry.path, `rolled-back-${n++}`));
        if (asideHere && !(await exists(item.target))) {
          await Deno.rename(item.aside!, item.target);
        }
        if (newIn || asideHere) {
          notes.push(`rolled back the interrupted change of project skill '${item.canonical}'`);
        }
      }
    }
    for (const entry of [...stale.filter((e) => e.area === "trash"), ...stale]) {
      await removeIfExists(entry.path).catch(() => {});
    }
    removeIfEmpty(join(dir, ".staging"));
    removeIfEmpty(join(dir, ".trash"));
    return notes;
  });
}
