/**
 * Folder listings kept between runs from one folder, so the sandbox's secret search (and policy
 * mode's walk before a run, runtime/exec/workspace_walk.ts, in a store of its own) reads again
 * only the folders whose entries changed. A listing is used only while the folder's key
 * (runtime/os/folder_keys.ts: device, inode, ctime, mtime, links, mode, size) is the one taken
 * just before it was read, which any entry added, removed or renamed in the folder moves, and
 * only on filesystems known to stamp folders so; a folder changed within a few seconds of its
 * listing keeps none. Names and kinds are kept, never conclusions: every name kept is judged
 * again by today's rules on every run, and symlinks are followed again. A walk may keep only
 * the entries it can act on ({@link KeptEntries}: the secret search, folders, links and the
 * names its rules call secret), under the fingerprint of those rules, so listings kept under
 * other rules are read again. The file lives under
 * `$SKILLS_HOME/.cache/` (hidden from every sandboxed script); one that is unreadable, torn or
 * for another folder is ignored, and it holds only the folders the last search listed.
 */

import { folderKey, SETTLED_MS } from "../os/folder_keys.ts";
import { join } from "../os/paths.ts";

/** One folder's entries: names, and their kinds (`d` folder, `l` symlink, `f` file, `o` other). */
export interface FolderListing {
  names: string[];
  kinds: string;
  /** How many entries the folder held, when only some of them were kept. */
  count?: number;
}

interface Kept extends FolderListing {
  key: string;
}

/**
 * Which entries a walk keeps of each listing: `keep(name, kind)`, and `rules`, a fingerprint of
 * what `keep` depends on (derived from the rules' own table), kept with the listings. A store
 * kept under another fingerprint is not used: its folders are read again.
 */
export interface KeptEntries {
  rules: string;
  keep(name: string, kind: string): boolean;
}

/**
 * Where each walk keeps its listings, under `$SKILLS_HOME/.cache/`: the sandbox's secret search,
 * and policy mode's walk before a run (runtime/exec/workspace_walk.ts), which lists other folders.
 */
const LISTING_STORES = { secrets: "listings", policy: "policy-listings" } as const;

/** The folder of one of {@link LISTING_STORES} in `home`. */
export function listingStore(home: string, walk: keyof typeof LISTING_STORES): string {
  return join(home, ".cache", LISTING_STORES[walk]);
}

/**
 * The kept listings in `home` that serve no folder any more: their folder is gone, or the file
 * is not one a search could use (torn, another version). `skills check` reports them unused.
 */
export function listingsOfGoneFolders(home: string): string[] {
  const gone: string[] = [];
  for (const walk of Object.keys(LISTING_STORES) as (keyof typeof LISTING_STORES)[]) {
    const store = listingStore(home, walk);
    let names: string[] = [];
    try {
      names = [...Deno.readDirSync(store)].filter((e) => e.isFile).map((e) => e.name);
    } catch { /* none kept */ }
    for (const name of names) {
      const file = join(store, name);
      let dir: unknown;
      try {
        const data = JSON.parse(Deno.readTextFileSync(file));
        dir = data?.version === VERSION && file === fileFor(store, data.dir) ? data.dir : undefined;
      } catch { /* torn, or a write in progress's temporary file */ }
      if (typeof dir !== "string" || !isFolder(dir)) gone.push(file);
    }
  }
  return gone.sort();
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Past this many entries a search's listings are not kept (the file would outweigh them). */
const MAX_KEPT_ENTRIES = 500_000;
const VERSION = 1;

/** A file name for `dir`'s listings: FNV-1a of its path (the file names its folder, checked). */
function fileFor(store: string, dir: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < dir.length; i++) hash = Math.imul(hash ^ dir.charCodeAt(i), 0x01000193);
  return join(store, `${(hash >>> 0).toString(16).padStart(8, "0")}-${dir.length}.json`);
}

function isKept(value: unknown): value is Kept {
  const kept = value as Kept;
  return typeof kept?.key === "string" && typeof kept.kinds === "string" &&
    /^[dlfo]*$/.test(kept.kinds) &&
    Array.isArray(kept.names) && kept.names.length === kept.kinds.length &&
    (kept.count === undefined ||
      (Number.isSafeInteger(kept.count) && kept.count >= kept.names.length)) &&
    kept.names.every((name) => typeof name === "string" && name !== "" && !name.includes("/"));
}

export class ListingCache {
  readonly #file: string;
  readonly #dir: string;
  readonly #known: Map<string, Kept>;
  readonly #now = new Map<string, Kept>();
  readonly #settled: number;
  readonly #entries: KeptEntries | undefined;
  #count = 0;
  #changed = false;

  private constructor(
    file: string,
    dir: string,
    known: Map<string, Kept>,
    settledMs: number,
    entries: KeptEntries | undefined,
  ) {
    this.#file = file;
    this.#dir = dir;
    this.#known = known;
    this.#settled = Date.now() - settledMs;
    this.#entries = entries;
  }

  /**
   * The listings kept for `dir` under `store` (none when there are none, or they do not check
   * out); `entries`: which entries of each folder to keep (all when not given).
   */
  static open(
    store: string,
    dir: string,
    settledMs = SETTLED_MS,
    entries?: KeptEntries,
  ): ListingCache {
    const file = fileFor(store, dir);
    const known = new Map<string, Kept>();
    try {
      const data = JSON.parse(Deno.readTextFileSync(file));
      if (
        data?.version === VERSION && data.dir === dir && typeof data.folders === "object" &&
        (data.rules ?? "") === (entries?.rules ?? "")
      ) {
        for (const [rel, kept] of Object.entries(data.folders ?? {})) {
          if (isKept(kept)) known.set(rel, kept);
        }
      }
    } catch { /* none yet, or unreadable: every folder is listed */ }
    return new ListingCache(file, dir, known, settledMs, entries);
  }

  /**
   * The entries of `folder` (a real path inside the cache's folder): the kept listing when the
   * folder's key is the one it was kept with, else read (errors thrown as `Deno.readDirSync`'s);
   * with the key it is kept under, when it is kept. With {@link KeptEntries}, only the entries
   * it keeps, and the count of all.
   */
  list(folder: string): FolderListing & { key?: string } {
    const rel = folder.slice(this.#dir.length);
    // Taken before any reading: an entry added after it moves the folder past this key.
    const key = folderKey(folder, this.#settled);
    const known = this.#known.get(rel);
    if (known !== undefined && key === known.key) return this.#keep(rel, known);
    const listing: FolderListing = { names: [], kinds: "" };
    for (const entry of Deno.readDirSync(folder)) {
      listing.names.push(entry.name);
      listing.kinds += entry.isDirectory ? "d" : entry.isSymlink ? "l" : entry.isFile ? "f" : "o";
    }
    this.#changed = true;
    if (key === undefined) return listing;
    return this.#keep(rel, { ...this.#kept(listing), key });
  }

  /** What {@link KeptEntries} keeps of a listing just read (all of it when none is given). */
  #kept(listing: FolderListing): FolderListing {
    const entries = this.#entries;
    if (entries === undefined) return listing;
    const kept: FolderListing = { names: [], kinds: "", count: listing.names.length };
    for (let i = 0; i < listing.names.length; i++) {
      const kind = listing.kinds[i]!;
      if (!entries.keep(listing.names[i]!, kind)) continue;
      kept.names.push(listing.names[i]!);
      kept.kinds += kind;
    }
    return kept;
  }

  #keep(rel: string, kept: Kept): Kept {
    this.#now.set(rel, kept);
    this.#count += kept.names.length;
    return kept;
  }

  /** Keeps what this search listed, for the next (written aside, then renamed into place). */
  save(): void {
    if (!this.#changed && this.#now.size === this.#known.size) return;
    if (this.#count > MAX_KEPT_ENTRIES) return;
    const text = JSON.stringify({
      version: VERSION,
      dir: this.#dir,
      ...(this.#entries === undefined ? {} : { rules: this.#entries.rules }),
      folders: Object.fromEntries(this.#now),
    });
    const temp = `${this.#file}.${Deno.pid}.tmp`;
    try {
      Deno.mkdirSync(join(this.#file, ".."), { recursive: true, mode: 0o700 });
      Deno.writeTextFileSync(temp, text, { mode: 0o600 });
      Deno.renameSync(temp, this.#file);
    } catch {
      try {
        Deno.removeSync(temp);
      } catch { /* never written */ }
    }
  }
}
