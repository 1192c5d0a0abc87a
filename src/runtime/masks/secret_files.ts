/**
 * Secret files by name in a folder a script is shown, found on every sandboxed run, writable
 * workspace or read-only: every folder is listed (no entry cap, no depth cap) and only the
 * names and dirent types are read — no stat per entry — so a workspace of 100,000 files is
 * one pass of `readdir`; with a store, a folder whose entries did not change since the last
 * search is not read again (listing_cache.ts: one `lstat` of it instead), and every name is
 * judged again all the same. What the search must never do is expose: a folder it cannot list
 * is hidden whole, a symlinked secret is masked by its target (and so is a link whose target
 * is a secret), and a search that would take longer than {@link SEARCH_BUDGET_MS} refuses
 * the run rather than show a folder it did not finish. Rules: core/policy/workspace_rules.ts.
 */

import { SkillError } from "../../core/errors.ts";
import {
  isSecretDirName,
  isSecretFileName,
  SECRET_FILE_RULES,
} from "../../core/policy/workspace_rules.ts";
import { isWithin } from "../os/fs.ts";
import { type FolderListing, type KeptEntries, ListingCache } from "./listing_cache.ts";
import { basename, dirname, resolve } from "../os/paths.ts";

/**
 * How long the search may take before the run is refused: ~3 s for a million entries on an
 * idle 2-core machine, with room for one loaded several times over (a refusal is safe, yet
 * stops an honest run).
 */
const SEARCH_BUDGET_MS = 10_000;
/** More masks than this is no project (each is a mount): the run is refused. */
const MAX_MASKS = 4_096;

/** What the sandbox must hide in one shown folder. */
interface SecretFinding {
  /** Secret files, by their real paths (a symlinked one where it points). */
  files: string[];
  /** Folders hidden whole: secret folders (`.ssh`), and folders the search could not list. */
  folders: string[];
  /** Every `.git` entry found: repository folders, and a worktree's or submodule's `.git` file. */
  gitEntries: string[];
  /** Entries listed. */
  entries: number;
}

interface SearchOptions {
  /** Folders inside `dir` hidden anyway (other skills, `$SKILLS_HOME`): not searched. */
  skip?: readonly string[];
  /**
   * Where folder listings are kept between searches (listing_cache.ts): a folder whose entries
   * did not change since the last search is not read again. Every name is still judged.
   */
  store?: string;
  /** How long a folder must have been unchanged for its listing to be kept (tests). */
  settledMs?: number;
  budgetMs?: number;
  /** Milliseconds, monotonic (tests pass a clock that runs out). */
  clock?: () => number;
}

/** Refuses the run: the folder cannot be shown without showing what was not searched. */
function refuse(dir: string, why: string): never {
  throw new SkillError(
    "permission_denied",
    `Cannot show the workspace ${dir} to the script: ${why}, and a secret file there could be read`,
    {
      hint:
        "Run skills from the project's own folder rather than a folder that holds many projects",
    },
  );
}

/**
 * Searches `dir` (a real path) depth first. `.git` folders are noted, not entered: git's
 * own files have fixed names, and a user's secret is never among them.
 */
export function findSecretFiles(dir: string, options: SearchOptions = {}): SecretFinding {
  const clock = options.clock ?? (() => performance.now());
  const budget = options.budgetMs ?? SEARCH_BUDGET_MS;
  const deadline = clock() + budget;
  const skip = new Set(options.skip ?? []);
  const found: SecretFinding = { files: [], folders: [], gitEntries: [], entries: 0 };
  const cache = options.store === undefined
    ? undefined
    : ListingCache.open(options.store, dir, options.settledMs, SEARCHED_ENTRIES);
  const stack = [dir];
  for (let folder = stack.pop(); folder !== undefined; folder = stack.pop()) {
    if (clock() > deadline) {
      refuse(
        dir,
        `searching it for secret files took over ${budget / 1000} s (${found.entries} entries)`,
      );
    }
    let listing: FolderListing;
    try {
      listing = cache?.list(folder) ?? listOf(folder);
    } catch (error) {
      // Gone since its parent was listed: nothing to show. Anything else (unlistable, or the
      // listing broke off part way): hidden whole.
      if (!(error instanceof Deno.errors.NotFound)) found.folders.push(folder);
      continue;
    }
    const prefix = folder === "/" ? "/" : `${folder}/`;
    const { names, kinds } = listing;
    found.entries += listing.count ?? names.length;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const kind = kinds.charCodeAt(i);
      // Paths are built only for what is kept: most entries are plain files, dismissed by
      // their first and last characters before any pattern runs.
      if (name === ".git") found.gitEntries.push(prefix + name);
      else if (kind === DIR) {
        const path = prefix + name;
        if (isSecretDirName(name)) found.folders.push(path);
        else if (!skip.has(path)) stack.push(path);
      } else if (kind === LINK) linkedSecret(dir, folder, prefix + name, name, found);
      else if (mayBeSecret(name) && isSecretFileName(name)) found.files.push(prefix + name);
    }
  }
  cache?.save();
  if (found.files.length + found.folders.length > MAX_MASKS) {
    refuse(dir, `it holds more than ${MAX_MASKS} secret files and unreadable folders`);
  }
  return found;
}

const DIR = "d".charCodeAt(0);
const LINK = "l".charCodeAt(0);

/**
 * What the search keeps of a folder's listing: what it acts on when it meets it again (folders
 * to enter or hide, links to follow, `.git` entries, secret files), not the plain files that
 * are most of a project: a kept listing of a 10,000-file project then holds a few hundred names,
 * not ten thousand to read and judge before every run. Kept under the fingerprint of the secret
 * file rules: when they change, every folder is read again.
 */
const SEARCHED_ENTRIES: KeptEntries = {
  rules: SECRET_FILE_RULES,
  keep: (name, kind) =>
    kind === "d" || kind === "l" || name === ".git" ||
    (mayBeSecret(name) && isSecretFileName(name)),
};

/** A folder's entries as the cache keeps them, read from the disk. */
function listOf(folder: string): FolderListing {
  const listing: FolderListing = { names: [], kinds: "" };
  for (const entry of Deno.readDirSync(folder)) {
    listing.names.push(entry.name);
    listing.kinds += entry.isDirectory ? "d" : entry.isSymlink ? "l" : entry.isFile ? "f" : "o";
  }
  return listing;
}

/**
 * False for names no secret pattern matches (core/policy/workspace_rules.ts): they start with `.`,
 * `_` or `id_`, or end in `.p12`/`.pfx`. Kept in step by tests/runtime/masks.
 */
export function mayBeSecret(name: string): boolean {
  const first = name.charCodeAt(0);
  if (first === 46 || first === 95 || first === 105 || first === 73) return true; // . _ i I
  const last = name.charCodeAt(name.length - 1) | 0x20;
  return last === 50 || last === 120; // 2, x (any case)
}

/**
 * A symlink is followed only when it may lead to a secret: its name or its target's is a
 * secret's, or it points out of `dir` (where the search does not go, so a chain may end at
 * a secret there). Then the file it resolves to is masked, wherever that is; a link inside
 * to a plain file inside needs nothing (that file is searched in its own place).
 */
function linkedSecret(
  dir: string,
  folder: string,
  path: string,
  name: string,
  found: SecretFinding,
): void {
  let text: string;
  try {
    text = Deno.readLinkSync(path);
  } catch {
    return;
  }
  const lexical = resolve(folder, text);
  const named = isSecretFileName(name) || isSecretFileName(basename(lexical));
  if (!named && isWithin(dir, lexical)) return;
  let real: string;
  try {
    real = Deno.realPathSync(path);
    if (!Deno.statSync(real).isFile) {
      if (isSecretDirName(basename(real))) found.folders.push(real);
      return;
    }
  } catch {
    return; // dangling: nothing to read
  }
  if (named || isSecretFileName(basename(real)) || isSecretDirName(basename(dirname(real)))) {
    found.files.push(real);
  }
}
