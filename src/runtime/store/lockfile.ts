/**
 * Reading a project's `skills-lock.json` (untrusted: validated, size-capped), for the catalog
 * (catalog/scopes.ts) and the project workflows. Its own module because the lockfile's model is
 * large: the catalog loads it only when a project has a lockfile, so a run with no project
 * around never compiles it.
 */

import { join } from "../os/paths.ts";
import {
  type ForeignLockedSkill,
  type Lockfile,
  MAX_LOCKFILE_BYTES,
  parseLockfileText,
} from "../../core/records/lockfile.ts";
import { LOCKFILE_NAME } from "../../core/records/scope.ts";
import { lstatSyncOrNull } from "../os/fs.ts";

/** What `skills-lock.json` at a root holds: nothing, this tool's lock, a foreign one. */
export type LockRead =
  | { state: "absent"; path: string }
  | { state: "ok"; path: string; lock: Lockfile }
  | { state: "foreign"; path: string; entries: ForeignLockedSkill[] }
  | { state: "invalid"; path: string; reason: string };

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
