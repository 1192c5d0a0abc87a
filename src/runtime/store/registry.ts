/**
 * Registry persistence: atomic replace (temp, fsync, rename) under a cross-process lock.
 * A registry that fails to parse is an error with a backup kept, never treated as empty.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import {
  emptyRegistry,
  parseRegistry,
  type Registry,
  serializeRegistry,
} from "../../core/records/registry.ts";
import { writeFileAtomic, writeFileAtomicSync } from "../os/fs.ts";
import { REGISTRY_FILE } from "./home.ts";
import { acquireLock } from "./lock.ts";

export function registryPath(home: string): string {
  return join(home, REGISTRY_FILE);
}

function lockPath(home: string): string {
  return join(home, "registry.lock");
}

/** Reads the registry; a missing file is an empty registry, a corrupt one an error. */
export async function readRegistry(home: string): Promise<Registry> {
  const path = registryPath(home);
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return emptyRegistry();
    throw new SkillError("io_error", `Cannot read registry ${path}: ${(error as Error).message}`);
  }
  const parsed = parseRegistry(text);
  if (parsed.ok) return parsed.registry;
  const backup = await keepCorruptCopy(path, text);
  throw new SkillError("registry_corrupt", `Cannot read registry ${path}: it ${parsed.reason}`, {
    hint:
      `A copy was kept at ${backup}. Restore ${path}.bak if it is good, or fix the file by hand.`,
  });
}

async function keepCorruptCopy(path: string, text: string): Promise<string> {
  const backup = `${path}.corrupt`;
  try {
    const existing = await Deno.readTextFile(backup).catch(() => undefined);
    if (existing !== text) await writeFileAtomic(backup, text);
  } catch { /* best effort: the original file is left untouched either way */ }
  return backup;
}

/**
 * Runs `mutate` on the current registry under the lock and writes its result atomically.
 * Returns what `mutate` returned. If `mutate` throws, nothing is written.
 */
export async function updateRegistry<T>(
  home: string,
  mutate: (registry: Registry) => Promise<{ registry: Registry; result: T }> | {
    registry: Registry;
    result: T;
  },
): Promise<T> {
  Deno.mkdirSync(home, { recursive: true });
  const lock = await acquireLock(lockPath(home));
  try {
    const current = await readRegistry(home);
    const { registry, result } = await mutate(current);
    writeRegistryUnlocked(home, registry);
    return result;
  } finally {
    lock.release();
  }
}

/** Holds the registry lock around `work` without writing anything by itself. */
export async function withRegistryLock<T>(home: string, work: () => Promise<T>): Promise<T> {
  Deno.mkdirSync(home, { recursive: true });
  const lock = await acquireLock(lockPath(home));
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** Atomic write; the caller must hold the lock. The previous file is kept as `.bak`. */
export function writeRegistryUnlocked(home: string, registry: Registry): void {
  const path = registryPath(home);
  const text = serializeRegistry(registry);
  try {
    const previous = Deno.readTextFileSync(path);
    if (previous === text) return;
    keepBackup(path, previous);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  writeFileAtomicSync(path, text);
}

/**
 * Keeps the registry about to be replaced as `.bak`: a second name for the same file (it was
 * made durable when it was written, so no copy is written and synced again), put in place by
 * a rename so a `.bak` is always whole; a copy where the filesystem has no hard links.
 */
function keepBackup(path: string, previous: string): void {
  const temp = `${path}.bak.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    Deno.linkSync(path, temp);
    Deno.renameSync(temp, `${path}.bak`);
  } catch {
    try {
      Deno.removeSync(temp);
    } catch { /* never made, or already renamed */ }
    writeFileAtomicSync(`${path}.bak`, previous);
  }
}
