/**
 * `skills remove` below the CLI: which registry entries the names mean. The removal itself
 * is a Change (change.ts, commit.ts): under the registry lock each directory is renamed
 * aside into `.trash` first, then the entry is dropped; the files are deleted after the lock
 * is released. An interruption therefore never leaves an entry without files (recovery puts
 * the directory back while the entry exists) nor files without an entry.
 */

import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { findEntry, type RegistryEntry } from "../../core/records/registry_model.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import { readRegistry } from "../store/registry.ts";

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
