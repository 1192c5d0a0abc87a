/**
 * Consistency of `$SKILLS_HOME`: every registry entry has its files, every skill directory
 * has an entry, and no leftovers of dead commands remain. Staging and trash directories of
 * running commands (named `<pid>-<id>`, pid alive) are in use and never reported or touched.
 * `repair` fixes what is safe to fix.
 */

import { join } from "../os/paths.ts";
import type { Registry } from "../../core/records/registry.ts";
import { removeEntry } from "../../core/records/registry.ts";
import { isWithin, lstatOrNull, removeIfExists } from "../os/fs.ts";
import { CACHE_DIR, CORE_CACHE_DIR, LEGACY_CORE_DIR, STAGING_DIR, TRASH_DIR } from "./home.ts";
import { readRegistry, updateRegistry } from "./registry.ts";
import { listStale } from "./staging.ts";
import { recoverUnderLock } from "./recovery.ts";

export interface ConsistencyReport {
  /** Registry entries whose directory is missing. */
  missing: string[];
  /** Directories in $SKILLS_HOME with a SKILL.md but no registry entry. */
  orphans: string[];
  /** Leftovers from interrupted installs/updates/removals (dead owners only). */
  leftovers: string[];
}

interface UnusedOptions {
  /** What the running binary materialises under `.cache/core` (everything else there goes). */
  keepCore: readonly string[];
  /** Unused files the modules that write them found (kept listings of folders now gone). */
  alsoUnused?: readonly string[];
}

export function isConsistent(report: ConsistencyReport): boolean {
  return report.missing.length === 0 && report.orphans.length === 0;
}

const RESERVED_DIRS = new Set([LEGACY_CORE_DIR, CACHE_DIR, STAGING_DIR, TRASH_DIR]);

export async function inspectHome(home: string, registry?: Registry): Promise<ConsistencyReport> {
  const reg = registry ?? await readRegistry(home);
  const missing: string[] = [];
  for (const entry of reg.skills) {
    const info = await lstatOrNull(entry.installed_path);
    if (info === null || !info.isDirectory || !isWithin(home, entry.installed_path)) {
      missing.push(entry.name_canonical);
    }
  }
  const known = new Set(reg.skills.map((e) => e.installed_path));
  const orphans: string[] = [];
  try {
    for await (const item of Deno.readDir(home)) {
      if (RESERVED_DIRS.has(item.name) || item.name.startsWith(".") || !item.isDirectory) continue;
      const path = join(home, item.name);
      if (!known.has(path) && await lstatOrNull(join(path, "SKILL.md"))) orphans.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const leftovers = (await listStale(home, true)).map((e) => e.path);
  return { missing: missing.sort(), orphans: orphans.sort(), leftovers };
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Clutter no current version uses: materialised bundled skills and helpers of other
 * versions, digest caches and verified copies of skills no longer installed, the registry's backup, the pre-0.2
 * `.core` directory. Harmless; {@link pruneUnused} removes it.
 */
export async function findUnused(
  home: string,
  options: UnusedOptions,
  registry?: Registry,
): Promise<string[]> {
  const reg = registry ?? await readRegistry(home);
  const unused: string[] = [];
  if (await lstatOrNull(join(home, LEGACY_CORE_DIR))) unused.push(join(home, LEGACY_CORE_DIR));
  const keep = new Set(options.keepCore);
  for (const name of await namesIn(join(home, CORE_CACHE_DIR))) {
    const path = join(home, CORE_CACHE_DIR, name);
    if (!keep.has(path)) unused.push(path);
  }
  const installed = new Set(reg.skills.map((e) => e.name_canonical));
  for (const name of await namesIn(join(home, CACHE_DIR))) {
    // Per-skill caches (digests, kept audits) of skills no longer installed.
    const digestOf = /^(?:digest|audit)-(.+)\.json$/.exec(name)?.[1];
    if (digestOf !== undefined && !installed.has(digestOf)) {
      unused.push(join(home, CACHE_DIR, name));
    }
  }
  // Verified copies (runtime/trust/verified_copy.ts) of skills no longer installed, with
  // what is kept beside them, copies moved aside and builds left behind.
  for (const name of await namesIn(join(home, CACHE_DIR, "run"))) {
    const copyOf =
      /^(.+)-[0-9a-f]{32}(?:\.json|\.hashes\.json|\.record\.json|\.(?:old|tmp)-\d+-[0-9a-f]{8})?$/
        .exec(name)?.[1];
    if (copyOf !== undefined && !installed.has(copyOf)) {
      unused.push(join(home, CACHE_DIR, "run", name));
    }
  }
  const backup = join(home, "registry.json.bak");
  if (await lstatOrNull(backup)) unused.push(backup);
  unused.push(...(options.alsoUnused ?? []).filter((path) => isWithin(home, path)));
  return unused.sort();
}

/**
 * Rolls back and clears what dead commands left behind, drops entries without files, and
 * moves orphan directories out of the way (to .trash, where the next repair clears them).
 */
export async function repairHome(home: string): Promise<ConsistencyReport> {
  return await updateRegistry(home, async (registry) => {
    await recoverUnderLock({ kind: "user", home }, registry, true);
    const report = await inspectHome(home, registry);
    let next = registry;
    for (const name of report.missing) next = removeEntry(next, name);
    if (report.orphans.length > 0) {
      const trash = join(home, TRASH_DIR);
      await Deno.mkdir(trash, { recursive: true });
      for (const orphan of report.orphans) {
        const name = orphan.split(/[\\/]/).pop()!;
        await Deno.rename(orphan, join(trash, `${name}-orphan-${Date.now()}`));
      }
    }
    return { registry: next, result: report };
  });
}

/** Removes what {@link findUnused} finds, under the registry lock; returns the paths. */
export async function pruneUnused(home: string, options: UnusedOptions): Promise<string[]> {
  return await updateRegistry(home, async (registry) => {
    const unused = await findUnused(home, options, registry);
    for (const path of unused) await removeIfExists(path).catch(() => {});
    return { registry, result: unused };
  });
}
