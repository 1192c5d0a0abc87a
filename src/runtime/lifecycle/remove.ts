/**
 * `skills remove` below the CLI. Under the registry lock the directory is renamed aside into
 * `.trash` first, then the entry is dropped; the files are deleted after the lock is released.
 * An interruption therefore never leaves an entry without files (recovery puts the
 * directory back while the entry exists) nor files without an entry.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { findEntry, type RegistryEntry, removeEntry } from "../../core/registry_model.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import { exists, removeIfExists } from "../os/fs.ts";
import { readRegistry, withRegistryLock, writeRegistryUnlocked } from "../store/registry.ts";
import {
  createStaging,
  disposeStaging,
  isManagedEntry,
  recoverStale,
  writeIntent,
} from "../store/staging.ts";
import { digestCachePath } from "../trust/gate.ts";

/** The registry entries for `names` (any accepted spelling); bundled or unknown names throw. */
export async function entriesToRemove(
  home: string,
  names: readonly string[],
): Promise<RegistryEntry[]> {
  const registry = await readRegistry(home);
  const out: RegistryEntry[] = [];
  for (const name of names) {
    const canonical = canonicalSkillName(name);
    const entry = findEntry(registry, canonical);
    if (entry === undefined) {
      if (bundledSkillNames().includes(canonical)) {
        throw new SkillError(
          "permission_denied",
          `Cannot remove skill '${canonical}': it is bundled`,
          {
            hint: "Bundled skills ship with skills itself; deactivate it with AGENT_SKILLS instead",
          },
        );
      }
      throw new SkillError("not_found", `Cannot remove skill '${canonical}': it is not installed`, {
        hint: "Run `skills list` to see the installed skills",
      });
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}

/**
 * Removes the given skills in one transaction. `entries` come from `entriesToRemove`; an
 * entry changed by another command meanwhile is a conflict.
 */
export async function removeSkills(
  home: string,
  entries: readonly RegistryEntry[],
): Promise<{ removed: string[]; notes: string[] }> {
  const staging = createStaging(home);
  try {
    const result = await withRegistryLock(home, async () => {
      let registry = await readRegistry(home);
      const { notes } = await recoverStale(home, registry);
      for (const planned of entries) {
        const current = findEntry(registry, planned.name_canonical);
        if (current === undefined || current.updated_at !== planned.updated_at) {
          throw new SkillError(
            "conflict",
            `Cannot remove skill '${planned.name_canonical}': another command changed it meanwhile`,
            { hint: "Run the command again" },
          );
        }
      }
      const managed = new Set(
        entries.filter((e) => isManagedEntry(home, e)).map((e) => e.name_canonical),
      );
      const items = entries.map((e) => ({
        canonical: e.name_canonical,
        target: e.installed_path,
        aside: join(staging.trash, managed.has(e.name_canonical) ? e.name_canonical : "unmanaged"),
        updatedAt: null,
      }));
      writeIntent(staging, { version: 1, op: "remove", items });
      await Deno.mkdir(staging.trash, { recursive: true });
      const moved: typeof items = [];
      try {
        for (const item of items) {
          // Only $SKILLS_HOME/<canonical> is ever moved; any other entry is only dropped.
          if (managed.has(item.canonical) && await exists(item.target)) {
            await Deno.rename(item.target, item.aside);
            moved.push(item);
          }
          registry = removeEntry(registry, item.canonical);
        }
        writeRegistryUnlocked(home, registry);
      } catch (error) {
        for (const item of moved.reverse()) {
          await Deno.rename(item.aside, item.target).catch(() => {});
        }
        throw error;
      }
      return { removed: items.map((i) => i.canonical), notes };
    });
    for (const name of result.removed) {
      await removeIfExists(digestCachePath(home, name)).catch(() => {});
    }
    return result;
  } finally {
    disposeStaging(staging);
  }
}
