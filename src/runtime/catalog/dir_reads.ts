/**
 * Directory listings and stats the loader took while a catalog loads, kept by path for the
 * listing cache: its key needs every folder of a skill and the stamps of the folder and its
 * manifest, which the loader read moments before (`list` of a thousand skills then reads
 * each folder once, not twice). Only ever a shortcut for the cache's key, and a safe one: a
 * stat taken before the read it keys can only make the key older than the contents (the
 * next listing reads them again), and the cache takes no skill changed within the last two
 * seconds (cache.ts).
 */

const reads = new Map<string, Deno.DirEntry[]>();
const stats = new Map<string, Deno.FileInfo>();
let recorders = 0;

/** `Deno.lstatSync`, or null when nothing is there; kept for {@link takeStat} while a catalog loads. */
export function lstatKeptOrNull(path: string): Deno.FileInfo | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
  if (recorders > 0) stats.set(path, info);
  return info;
}

/** The stat of `path` the loader took during this load (once), or a fresh one. */
export function takeStat(path: string): Deno.FileInfo {
  const kept = stats.get(path);
  if (kept === undefined) return Deno.lstatSync(path);
  stats.delete(path);
  return kept;
}

/** The entries of `path`, kept for {@link takeDirRead} while a catalog loads. */
export function readDirEntries(path: string): Deno.DirEntry[] {
  const entries = [...Deno.readDirSync(path)];
  if (recorders > 0) reads.set(path, entries);
  return entries;
}

/** The entries read of `path` during this load (once), or a fresh read. */
export function dirEntries(path: string): Deno.DirEntry[] {
  const kept = reads.get(path);
  if (kept === undefined) return [...Deno.readDirSync(path)];
  reads.delete(path);
  return kept;
}

/** Keeps listings while `load` runs; forgets them after. */
export async function keepingDirReads<T>(load: () => Promise<T>): Promise<T> {
  recorders++;
  try {
    return await load();
  } finally {
    if (--recorders === 0) {
      reads.clear();
      stats.clear();
    }
  }
}
