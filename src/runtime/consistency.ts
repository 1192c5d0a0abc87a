/**
 * Consistency of `$SKILLS_HOME`: every registry entry has its files, every skill directory
 * has an entry, and no staging leftovers remain. `repair` fixes what is safe to fix.
 */

import { join } from "node:path";
import type { Registry } from "../core/registry_model.ts";
import { removeEntry } from "../core/registry_model.ts";
import { isWithin, lstatOrNull, removeIfExists } from "./fsutil.ts";
import { STAGING_DIR, TRASH_DIR } from "./home.ts";
import { readRegistry, updateRegistry } from "./registry_store.ts";

export interface ConsistencyReport {
  /** Registry entries whose directory is missing. */
  missing: string[];
  /** Directories in $SKILLS_HOME with a SKILL.md but no registry entry. */
  orphans: string[];
  /** Leftovers from interrupted installs/updates/removals. */
  leftovers: string[];
}

export function isConsistent(report: ConsistencyReport): boolean {
  return report.missing.length === 0 && report.orphans.length === 0;
}

const RESERVED_DIRS = new Set([".core", ".cache", STAGING_DIR, TRASH_DIR]);

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
  const leftovers: string[] = [];
  try {
    for await (const item of Deno.readDir(home)) {
      const path = join(home, item.name);
      if (RESERVED_DIRS.has(item.name)) {
        if (item.name === STAGING_DIR || item.name === TRASH_DIR) {
          for await (const inner of Deno.readDir(path)) leftovers.push(join(path, inner.name));
        }
        continue;
      }
      if (item.name.startsWith(".") || !item.isDirectory) continue;
      if (!known.has(path) && await lstatOrNull(join(path, "SKILL.md"))) orphans.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return { missing: missing.sort(), orphans: orphans.sort(), leftovers: leftovers.sort() };
}

/**
 * Drops entries without files, moves orphan directories out of the way (to .trash, so
 * nothing is deleted that a user might want) and clears leftovers.
 */
export async function repairHome(home: string): Promise<ConsistencyReport> {
  return await updateRegistry(home, async (registry) => {
    const report = await inspectHome(home, registry);
    let next = registry;
    for (const name of report.missing) next = removeEntry(next, name);
    for (const leftover of report.leftovers) await removeIfExists(leftover);
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
