/**
 * A project's `skills-lock.json` on disk (its model: core/records/lockfile.ts): read as
 * untrusted input (validated, size-capped) for the catalog (catalog/scopes.ts), the
 * project workflows and a change; its text read and written for a project commit
 * (lifecycle/commit.ts), which writes it atomically (temp file, fsync, rename), last, under
 * the registry lock, and for recovery (store/recovery.ts), which compares it with the text
 * the journal announced. Everything that reads or writes the file goes through here.
 *
 * The catalog imports this module only when a project has a lockfile, so a run with no
 * project around never compiles the lockfile's model.
 */

import { join } from "../os/paths.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import {
  emptyLockfile,
  type LockedSkill,
  type Lockfile,
  MAX_LOCKFILE_BYTES,
  parseLockfileText,
} from "../../core/records/lockfile.ts";
import { foreignComputedHash, type ForeignLockedSkill } from "../../core/records/peer_lockfile.ts";
import { LOCKFILE_NAME } from "../../core/records/scope.ts";
import { lstatSyncOrNull, writeFileAtomicSync } from "../os/fs.ts";

/** What `skills-lock.json` at a root holds: nothing, this tool's lock, a foreign one. */
export type LockRead =
  | { state: "absent"; path: string }
  | { state: "ok"; path: string; lock: Lockfile }
  | { state: "foreign"; path: string; entries: ForeignLockedSkill[] }
  | { state: "invalid"; path: string; reason: string };

export function lockfilePath(root: string): string {
  return join(root, LOCKFILE_NAME);
}

/** Reads `<root>/skills-lock.json` (untrusted: validated, size-capped). */
export function readProjectLock(root: string): LockRead {
  const path = join(root, LOCKFILE_NAME);
  const info = lstatSyncOrNull(path);
  if (info === null) return { state: "absent", path };
  if (!info.isFile) return { state: "invalid", path, reason: "is not a regular file" };
  if (info.size > MAX_LOCKFILE_BYTES) {
    return { state: "invalid", path, reason: `is larger than ${MAX_LOCKFILE_BYTES} bytes` };
  }
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    return { state: "invalid", path, reason: `cannot be read (${(error as Error).message})` };
  }
  const parsed = parseLockfileText(text);
  if (!parsed.ok) return { state: "invalid", path, reason: parsed.reason };
  return parsed.format === "skills"
    ? { state: "ok", path, lock: parsed.lock }
    : { state: "foreign", path, entries: parsed.entries };
}

/** The lock to change: the current one, or an empty one when there is none yet. */
export function lockForChange(read: LockRead): Lockfile {
  if (read.state === "absent") return emptyLockfile();
  if (read.state === "ok") return read.lock;
  if (read.state === "foreign") {
    throw new SkillError(
      "conflict",
      `${read.path} has entries vercel-labs' skills CLI wrote (no commits, no file digests)`,
      { hint: "Run `skills install` first: it resolves the commits and rewrites the lockfile" },
    );
  }
  throw new SkillError("parse_error", `Cannot read ${read.path}: it ${read.reason}`, {
    hint: "Fix the file (git diff / git checkout it), then run the command again",
  });
}

/**
 * The file's text as it is, "" when there is none (or it cannot be read): what a commit
 * compares its new text with, and recovery the text a journal announced.
 */
export async function lockfileText(root: string): Promise<string> {
  return await Deno.readTextFile(lockfilePath(root)).catch(() => "");
}

/** Replaces the file with `text` atomically (temp file, fsync, rename). */
export function writeLockfileText(root: string, text: string): void {
  writeFileAtomicSync(lockfilePath(root), text);
}

/**
 * The lock with each entry's `computedHash` — vercel-labs' digest, which that CLI compares
 * when it reads the file — computed from `folderOf(key)` when that folder holds exactly the
 * bytes the entry lists. An entry whose folder differs gets none: a stale hash would tell
 * that CLI the wrong thing, and this tool trusts its own sha256s, not this hash.
 */
export async function withPeerHashes(
  lock: Lockfile,
  folderOf: (key: string) => string,
): Promise<Lockfile> {
  const skills: Record<string, LockedSkill> = {};
  for (const [key, entry] of Object.entries(lock.skills)) {
    const { computedHash: _stale, ...rest } = entry;
    const hash = await hashOfListedFiles(folderOf(key), entry.files);
    skills[key] = hash === undefined ? rest : { ...rest, computedHash: hash };
  }
  return { ...lock, skills };
}

async function hashOfListedFiles(
  dir: string,
  files: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const read: { path: string; bytes: Uint8Array }[] = [];
  for (const [path, sha] of Object.entries(files)) {
    const bytes = await Deno.readFile(join(dir, ...path.split("/"))).catch(() => undefined);
    if (bytes === undefined || (await sha256Hex(bytes)) !== sha) return undefined;
    read.push({ path, bytes });
  }
  return await foreignComputedHash(read);
}
