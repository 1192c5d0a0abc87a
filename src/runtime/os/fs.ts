import { isAbsolute, join, normalize, relative, SEP } from "./paths.ts";

/** Small filesystem helpers shared by the runtime modules. */

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

export async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * What a listing keeps of a stat while a command runs: the listing cache's stamp and the
 * digest index's key need no more. A thousand skills' `Deno.FileInfo`s (four Dates each) kept
 * alive until the digest check costs the garbage collector more than taking these.
 */
export interface StatLite {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly size: number;
  /** In ms; 0 when unknown. */
  readonly mtime: number;
  /** In ms; null when unknown. */
  readonly ctime: number | null;
  readonly dev: number;
  readonly ino: number | null;
}

export function liteStat(info: Deno.FileInfo): StatLite {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    size: info.size,
    mtime: info.mtime?.getTime() ?? 0,
    ctime: info.ctime?.getTime() ?? null,
    dev: info.dev,
    ino: info.ino,
  };
}

/** `Deno.lstatSync`, kept as a {@link StatLite}. */
export function lstatLite(path: string): StatLite {
  return liteStat(Deno.lstatSync(path));
}

/** Synchronous lstat for hot paths (listing thousands of skills): no async overhead per call. */
export function lstatSyncOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/**
 * Reads at most `limit` bytes from the start of a file; `complete` says if that was all.
 * Small files (the common case) cost a single read.
 */
export function readPrefixSync(
  path: string,
  limit: number,
): { bytes: Uint8Array; complete: boolean } {
  const file = Deno.openSync(path, { read: true });
  try {
    let buffer = new Uint8Array(Math.min(8192, limit + 1));
    let filled = 0;
    while (filled < limit + 1) {
      if (filled === buffer.length) {
        const bigger = new Uint8Array(Math.min(buffer.length * 4, limit + 1));
        bigger.set(buffer);
        buffer = bigger;
      }
      const n = file.readSync(buffer.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return { bytes: buffer.subarray(0, Math.min(filled, limit)), complete: filled <= limit };
  } finally {
    file.close();
  }
}

interface AtomicWriteOptions {
  /**
   * fsync before the rename (default). Caches pass false: losing one to a crash only costs
   * time, and a thousand fsyncs cost seconds.
   */
  durable?: boolean;
}

/**
 * Writes a file atomically: temp file in the same directory, fsync, rename. Synchronous:
 * the files written this way are small, and async per-call overhead would be most of it.
 */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const temp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: 0o644 });
  try {
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    if (options.durable !== false) file.syncSync();
    file.close();
    Deno.renameSync(temp, path);
  } catch (error) {
    try {
      file.close();
    } catch { /* already closed */ }
    try {
      Deno.removeSync(temp);
    } catch { /* never created or already renamed */ }
    throw error;
  }
}

/** writeFileAtomicSync as a promise (a throw becomes a rejection). */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  return new Promise((resolve) => resolve(writeFileAtomicSync(path, data, options)));
}

/** Files a run of sync file calls handles between two turns of the event loop. */
const FILES_PER_TURN = 256;

/**
 * For a long run of sync file calls (a copy, a folder read): called once per file, it gives
 * a later turn of the event loop (a timer, not a microtask) every FILES_PER_TURN files, so
 * signals, timers and other requests are served meanwhile without each file paying a trip
 * through Deno's thread pool; `await` what it returns.
 */
export function fileTurns(): () => Promise<void> | undefined {
  let files = 0;
  return () =>
    ++files % FILES_PER_TURN === 0 ? new Promise((resolve) => setTimeout(resolve, 0)) : undefined;
}

/**
 * Removes a run's work folder, most often left empty: an empty one in one synchronous call
 * (no round trip through Deno's thread pool, ~0.5 ms on every run), a filled one as
 * {@link removeIfExists} does, asynchronously, so a large tree never blocks the event loop
 * (the MCP server and chat run scripts side by side). Never throws.
 */
export async function removeWorkFolder(path: string): Promise<void> {
  try {
    Deno.removeSync(path);
  } catch {
    await removeIfExists(path).catch(() => {});
  }
}

export async function removeIfExists(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    // Read-only folders (the verified copies scripts run from) must be opened up first.
    if (!(error instanceof Deno.errors.PermissionDenied) || !makeFoldersWritable(path)) throw error;
    try {
      await Deno.remove(path, { recursive: true });
    } catch (again) {
      if (!(again instanceof Deno.errors.NotFound)) throw again;
    }
  }
}

/** chmod u+rwx on `path` and every folder below it (never through a symlink); false if none. */
function makeFoldersWritable(path: string): boolean {
  if (Deno.build.os === "windows") return false;
  let changed = false;
  const visit = (dir: string) => {
    const info = lstatSyncOrNull(dir);
    if (info === null || !info.isDirectory) return;
    if (((info.mode ?? 0) & 0o700) !== 0o700) {
      Deno.chmodSync(dir, (info.mode ?? 0) | 0o700);
      changed = true;
    }
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory && !entry.isSymlink) visit(join(dir, entry.name));
    }
  };
  try {
    visit(path);
  } catch {
    return changed;
  }
  return changed;
}

/** True when `child` (a resolved absolute path) is inside `parent` or equal to it. */
export function isWithin(parent: string, child: string): boolean {
  const clean = (path: string) => isAbsolute(path) && normalize(path) === path;
  if (clean(parent) && clean(child)) {
    // The common case, without building a relative path.
    return child === parent || child.startsWith(parent.endsWith(SEP) ? parent : `${parent}${SEP}`);
  }
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${SEP}`) && !isAbsolute(rel));
}
