/**
 * The verified private copies code runs from, `$SKILLS_HOME/.cache/run/<skill>-<digest>/`:
 * written from exactly the bytes that were hashed (read once, hashed, written), and safe when
 * runs need the same copy at once — `script_run` calls of one MCP server, CLI runs started
 * together:
 *
 * - a copy is built in a folder of its own (`<id>.tmp-<time>-<random>`) and renamed into
 *   place; renaming a folder onto one that holds files fails, so one build wins and its copy is
 *   whole the moment it appears;
 * - a build that lost removes only itself, and uses the copy in place once it verified it;
 * - a copy in place is never deleted while it may be in use: one that no longer verifies
 *   (damaged, tampered) is renamed aside; asides, builds a killed process abandoned, and
 *   copies of other digests no run verified for ten minutes are removed later;
 * - in one process, runs that need the same copy share one build.
 */

import { dirname, join } from "../os/paths.ts";
import { combineDigest, type FileHash, sha256Hex } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES, tooLargeMessage } from "../../core/manifest/limits.ts";
import { lstatOrNull, removeIfExists, writeFileAtomicSync } from "../os/fs.ts";
import { cachedDigest, listFiles, type ReadFile } from "./file_hashes.ts";

/** Where verified copies live, under `$SKILLS_HOME`. */
export const RUN_DIR = ".cache/run";
/**
 * 3: the stamp also keeps what the copy's files say (copy_contents.ts), and is written once
 * the copy is in place. 2: files keep their owner's write bit.
 */
const STAMP_VERSION = 3;
/** A copy of another digest is kept this long after a run last verified it. */
const PRUNE_AFTER_MS = 10 * 60_000;
/** A copy's stamp is touched when a run uses it and it is older than this. */
const TOUCH_AFTER_MS = 60_000;
/** A build no process finished in this long was abandoned (its process was killed). */
const ABANDONED_AFTER_MS = 60 * 60_000;
/** Tries at putting a build in place while others keep putting copies there that fail. */
const PLACE_ATTEMPTS = 3;

/** A verified copy: its folder, the digest it was just verified to have, and its stamp. */
export interface VerifiedCopy {
  dir: string;
  digest: string;
  /**
   * What the copy's stamp keeps of its files' contents, as read (unchecked: a caller checks
   * it against the copy before use); absent when the copy has no stamp yet.
   */
  kept?: unknown;
  /** Whether the copy has its stamp; one that has none gets it from {@link keep}. */
  stamped: boolean;
  /**
   * Writes the copy's stamp, keeping `contents` (what its files say) when given: what binds
   * the copy to its digest for the next run, which then neither hashes its source nor reads
   * its manifest again. Best effort: a stamp not written only costs the next run a build.
   */
  keep(contents?: unknown): void;
}

/** The files of one copy: the folder, and beside it its stamp and hashes cache. */
interface CopyPaths {
  base: string;
  id: string;
  dir: string;
  stamp: string;
  hashes: string;
}

function copyPaths(home: string, canonical: string, digest: string): CopyPaths {
  const base = join(home, RUN_DIR);
  const id = `${canonical}-${digest.replace(/^sha256:/, "").slice(0, 32)}`;
  return {
    base,
    id,
    dir: join(base, id),
    stamp: join(base, `${id}.json`),
    hashes: join(base, `${id}.hashes.json`),
  };
}

interface Stamp {
  /** The digest of the installed files the copy was made from. */
  digest: string;
  /** The digest of the copy (its files minus bytecode). */
  run_digest: string;
  /** What the copy's files say (copy_contents.ts), when they were kept. */
  contents?: unknown;
}

function readStamp(path: string): Stamp | undefined {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    return parsed?.version === STAMP_VERSION && typeof parsed.digest === "string" &&
        typeof parsed.run_digest === "string"
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

/** The copy at `paths`, verified at `runDigest` (made from `digest`), with its stamp if any. */
function copyAt(
  paths: CopyPaths,
  digest: string,
  runDigest: string,
  stamp: Stamp | undefined,
): VerifiedCopy {
  return {
    dir: paths.dir,
    digest: runDigest,
    stamped: stamp !== undefined,
    ...stamp?.contents === undefined ? {} : { kept: stamp.contents },
    keep(contents?: unknown) {
      try {
        writeFileAtomicSync(
          paths.stamp,
          JSON.stringify({
            version: STAMP_VERSION,
            digest,
            run_digest: runDigest,
            ...contents === undefined ? {} : { contents },
          }),
          { durable: false },
        );
      } catch { /* read-only home, full disk: the next run builds the copy again */ }
    },
  };
}

/** Python bytecode: covered by a digest, never copied to where code runs. */
function isBytecode(path: string): boolean {
  return path.endsWith(".pyc") || path.split("/").includes("__pycache__");
}

/** Builds under way in this process, by copy folder: runs that need one share it. */
const building = new Map<string, Promise<VerifiedCopy>>();

/**
 * The verified copy of `source` (whose files hashed to `digest`), made when missing: from
 * `read`, the bytes the digest check just hashed (every file, in listing order), when given.
 */
export async function verifiedCopy(
  home: string,
  canonical: string,
  source: string,
  digest: string,
  read?: readonly ReadFile[],
): Promise<VerifiedCopy> {
  const paths = copyPaths(home, canonical, digest);
  const ready = await intact(paths, digest);
  if (ready !== undefined) return used(paths, digest, ready);
  let build = building.get(paths.dir);
  if (build === undefined) {
    build = buildCopy(paths, canonical, source, digest, read).finally(() =>
      building.delete(paths.dir)
    );
    building.set(paths.dir, build);
  }
  return await build;
}

/** The copy's stamp when the copy is in place, stamped and intact, else undefined. */
async function intact(paths: CopyPaths, digest: string): Promise<Stamp | undefined> {
  const stamp = readStamp(paths.stamp);
  if (stamp === undefined || stamp.digest !== digest) return undefined;
  return await copyDigest(paths) === stamp.run_digest ? stamp : undefined;
}

/** The digest of the copy in place now (its stat-keyed hashes), or undefined. */
async function copyDigest(paths: CopyPaths): Promise<string | undefined> {
  try {
    return await cachedDigest(paths.dir, paths.hashes);
  } catch {
    return undefined; // missing, or holds a symlink or special file now
  }
}

/** The stamped copy, its stamp's time moved on (at most once a minute) so pruning sees it in use. */
function used(paths: CopyPaths, digest: string, stamp: Stamp): VerifiedCopy {
  try {
    const mtime = Deno.lstatSync(paths.stamp).mtime?.getTime() ?? 0;
    const now = Date.now();
    if (now - mtime > TOUCH_AFTER_MS) Deno.utimeSync(paths.stamp, now / 1000, now / 1000);
  } catch { /* a stamp another run replaced meanwhile is as fresh */ }
  return copyAt(paths, digest, stamp.run_digest, stamp);
}

/**
 * Builds the copy and puts it in place. Its stamp is not written here: the caller keeps it
 * with what the copy's files say, one file a copy (a first `context` builds hundreds).
 */
async function buildCopy(
  paths: CopyPaths,
  canonical: string,
  source: string,
  digest: string,
  read: readonly ReadFile[] | undefined,
): Promise<VerifiedCopy> {
  // Synchronous file operations here and below: a first `context` builds hundreds of copies
  // in a row, and each asynchronous call waited for a worker thread and the event loop.
  const staging = join(paths.base, `${paths.id}.tmp-${Date.now()}-${randomTag()}`);
  let placed = false;
  try {
    const copied = await copyVerified(source, staging, read);
    if (copied.digest !== digest) {
      throw new SkillError(
        "integrity_mismatch",
        `Skill '${canonical}' files changed while they were being verified`,
        { hint: `Run it again; if this persists, review it and run \`skills trust ${canonical}\`` },
      );
    }
    const { stamp, ours } = await place(staging, paths, digest, copied.runDigest, canonical);
    placed = ours;
    await pruneCopies(paths.base, canonical, paths.id).catch(() => {});
    return stamp === undefined
      ? copyAt(paths, digest, copied.runDigest, undefined)
      : used(paths, digest, stamp);
  } finally {
    // Put in place, the build is gone: only a failed or lost one is left to remove.
    if (!placed) await removeIfExists(staging);
  }
}

function randomTag(): string {
  return crypto.randomUUID().slice(0, 8);
}

/**
 * Puts the build in place, or takes the copy another run put there first once it verifies:
 * by its stamp, or — its build not having stamped it yet — by its files hashing to this
 * build's digest. One that does not verify is moved aside, not deleted (a run may be using
 * it), and the build tried again.
 */
async function place(
  staging: string,
  paths: CopyPaths,
  digest: string,
  runDigest: string,
  canonical: string,
): Promise<{ stamp?: Stamp; ours: boolean }> {
  for (let attempt = 0; attempt < PLACE_ATTEMPTS; attempt++) {
    try {
      Deno.renameSync(staging, paths.dir);
      return { ours: true };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    }
    const stamp = await intact(paths, digest);
    if (stamp !== undefined) return { stamp, ours: false };
    if (await copyDigest(paths) === runDigest) return { ours: false };
    const aside = join(paths.base, `${paths.id}.old-${Date.now()}-${randomTag()}`);
    try {
      Deno.renameSync(paths.dir, aside);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  throw new SkillError(
    "conflict",
    `Skill '${canonical}' could not be copied for this run: its copy kept changing`,
    { hint: "Run it again" },
  );
}

/**
 * Copies every file of `source` but bytecode into `target`, each read once: the bytes
 * hashed are the bytes written. Returns the digest of everything read (what trust
 * covers) and of what was written.
 *
 * Files keep their owner's write bit (0644, or 0755 for an executable one) and folders are
 * sealed read-only: a script that copies a file out of its skill (docx's `comment.py` copies
 * its XML templates with `shutil.copy`, which copies the mode too) must be able to edit its
 * copy in the workspace. The copy itself stays unchanged by other means: the sandbox binds
 * it read-only (`EROFS`, for every uid), sealed folders refuse new, renamed and removed
 * files, and every run re-checks it by its stat-keyed digest (ctime moves on any write), so
 * an edited file (possible only outside the sandbox, in policy mode) means a fresh copy.
 */
async function copyVerified(
  source: string,
  target: string,
  read?: readonly ReadFile[],
): Promise<{ digest: string; runDigest: string }> {
  const files = read ?? listFiles(source);
  const all: FileHash[] = [];
  const run: FileHash[] = [];
  try {
    Deno.mkdirSync(target);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    // The run folder itself is missing (the first copy of this home): one recursive mkdir.
    Deno.mkdirSync(target, { recursive: true });
  }
  // Each folder made once, its parent first: a recursive mkdir per file asked the disk for
  // every parent again.
  const made = new Set([target]);
  const makeFolder = (folder: string) => {
    if (made.has(folder)) return;
    makeFolder(dirname(folder));
    Deno.mkdirSync(folder);
    made.add(folder);
  };
  for (const file of files) {
    const given = "bytes" in file ? file : undefined;
    const bytes = given?.bytes ?? Deno.readFileSync((file as { abs: string }).abs);
    if (bytes.length > MAX_SKILL_FILE_BYTES) {
      throw new SkillError("io_error", `Skill file ${tooLargeMessage(file.path, bytes.length)}`);
    }
    const hash = { path: file.path, sha256: given?.sha256 ?? await sha256Hex(bytes) };
    all.push(hash);
    if (isBytecode(file.path)) continue;
    const dest = join(target, ...file.path.split("/"));
    makeFolder(dirname(dest));
    const mode = (file.mode & 0o111) !== 0 ? 0o755 : 0o644;
    Deno.writeFileSync(dest, bytes, { createNew: true, mode });
    run.push(hash);
  }
  sealFolders(made);
  return { digest: await combineDigest(all), runDigest: await combineDigest(run) };
}

/**
 * Makes every folder of a copy read-only (deepest first: a folder's path is longer than its
 * parent's), so that a script writing into its own skill fails at once — `EACCES`, or
 * `EROFS` inside the OS sandbox — rather than changing the files it runs from. Root ignores
 * modes; the sandbox binds the copy read-only. The folders are the ones the copy made: no
 * walk of what it just wrote.
 */
function sealFolders(folders: ReadonlySet<string>): void {
  if (Deno.build.os === "windows") return;
  for (const dir of [...folders].sort((a, b) => b.length - a.length)) Deno.chmodSync(dir, 0o555);
}

/** How long one listing of the run folder serves the pruning of the copies built after it. */
const LISTING_FRESH_MS = 10_000;

/** The run folder's entries by the skill they belong to, as last listed, and when. */
let listing: { base: string; at: number; byCanonical: Map<string, string[]> } | undefined;

/**
 * The entries of `base` that belong to `canonical`'s copies (`<canonical>-<32 hex>` and what
 * sits beside it), from one listing of the folder shared by the builds of the next seconds:
 * a first `context` of 400 skills builds 400 copies, and listing the whole folder (four
 * entries a skill) for each was quadratic. An entry made after the listing belongs to a build
 * of now, which pruning leaves alone anyway; a skill's names are handed out once per listing.
 */
function entriesOf(base: string, canonical: string): string[] {
  const now = Date.now();
  if (listing === undefined || listing.base !== base || now - listing.at > LISTING_FRESH_MS) {
    const byCanonical = new Map<string, string[]>();
    for (const entry of Deno.readDirSync(base)) {
      const owner = /^(.+)-[0-9a-f]{32}(?:\.|$)/.exec(entry.name)?.[1];
      if (owner === undefined) continue;
      const names = byCanonical.get(owner);
      if (names === undefined) byCanonical.set(owner, [entry.name]);
      else names.push(entry.name);
    }
    listing = { base, at: now, byCanonical };
  }
  const names = listing.byCanonical.get(canonical) ?? [];
  listing.byCanonical.delete(canonical);
  return names;
}

/**
 * Removes, for `canonical`: copies of other digests no run verified for ten minutes (their
 * stamps' times, or the folder's own for a copy whose build was killed before it stamped
 * it), copies moved aside that long ago, and builds abandoned an hour ago.
 */
async function pruneCopies(base: string, canonical: string, keep: string): Promise<void> {
  const now = Date.now();
  const names = entriesOf(base, canonical);
  for (const name of names) {
    const left = /^(.+-[0-9a-f]{32})\.(old|tmp)-(\d+)-[0-9a-f]{8}$/.exec(name);
    if (left !== null && left[1]!.slice(0, -33) === canonical) {
      const age = now - Number(left[3]);
      if (age > (left[2] === "old" ? PRUNE_AFTER_MS : ABANDONED_AFTER_MS)) {
        await removeIfExists(join(base, name));
      }
      continue;
    }
    const match = /^(.+)-([0-9a-f]{32})(\.json)?$/.exec(name);
    if (match === null || match[1] !== canonical) continue;
    const id = `${match[1]}-${match[2]}`;
    // A stamped copy goes by its stamp's time: its folder's own entry is left to the stamp's.
    if (id === keep || (match[3] === undefined && names.includes(`${id}.json`))) continue;
    const used = await lstatOrNull(join(base, name));
    if (used === null || now - (used.mtime?.getTime() ?? now) < PRUNE_AFTER_MS) continue;
    await removeIfExists(join(base, id));
    await removeIfExists(join(base, `${id}.hashes.json`));
    await removeIfExists(join(base, `${id}.record.json`)); // kept apart by older versions
    await removeIfExists(join(base, `${id}.json`));
  }
}
