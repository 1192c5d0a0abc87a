/**
 * Directory listings the loader read while a catalog loads, kept by path for the listing
 * cache: its key needs every folder of a skill, which the loader read moments before
 * (`list` of a thousand skills then reads each folder once, not twice). Only ever a
 * shortcut for the cache's key: a folder changed in between has a fresh mtime, and the
 * cache takes no skill changed within the last two seconds (cache.ts).
 */

const reads = new Map<string, Deno.DirEntry[]>();
let recorders = 0;

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
    if (--recorders === 0) reads.clear();
  }
}
