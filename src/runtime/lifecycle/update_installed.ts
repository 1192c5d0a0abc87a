/**
 * The registry's side of `skills update`, around the one update planner (update_planner.ts):
 * which installed skills an update means (named ones, bundled names refused, or all of
 * them), that only a skill kept in `$SKILLS_HOME/<name>` is ever changed, and how a record
 * says what it follows ("branch main", "pinned to …"), in either scope's words.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { webTargetOf } from "../../core/sources/web_source.ts";
import { findEntry, type RegistryEntry } from "../../core/records/registry.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import { readRegistry } from "../store/registry.ts";
import { isManagedEntry } from "../store/staging.ts";

/** What a record (a registry entry or a lock entry) follows, e.g. "branch main". */
export function describeTracking(
  entry: Pick<RegistryEntry, "source" | "branch" | "tag" | "ref">,
): string {
  if (entry.source.type === "local") return `directory ${entry.source.url}`;
  if (entry.source.type === "web") {
    return webTargetOf(entry.source.url) === "site" ? "the site's index" : "the file at its URL";
  }
  if (entry.source.type === "npm") return `range ${entry.tag ?? "latest"}`;
  if (entry.tag !== null) return `tag ${entry.tag}`;
  if (entry.branch !== null) return `branch ${entry.branch}`;
  if (entry.ref !== null) return `pinned to ${entry.ref}`;
  return "default branch";
}

export function assertManaged(home: string, entry: RegistryEntry): void {
  if (!isManagedEntry(home, entry)) {
    throw new SkillError(
      "permission_denied",
      `Skill '${entry.name_canonical}' is recorded at ${entry.installed_path}, not at ${
        join(home, entry.name_canonical)
      }; refusing to change it`,
      { hint: "Remove it with `skills remove` and install it again" },
    );
  }
}

/** Registry entries to update: named ones (bundled names refused) or all of them. */
export async function entriesToUpdate(
  home: string,
  names: readonly string[],
): Promise<RegistryEntry[]> {
  const registry = await readRegistry(home);
  if (names.length === 0) return registry.skills;
  const out: RegistryEntry[] = [];
  for (const canonical of names) {
    const entry = findEntry(registry, canonical);
    if (entry === undefined) {
      throw bundledSkillNames().includes(canonical)
        ? new SkillError(
          "permission_denied",
          `Cannot update skill '${canonical}': it is bundled and updated with skills itself`,
        )
        : new SkillError("not_found", `Cannot update skill '${canonical}': it is not installed`, {
          hint: "Run `skills list` to see the installed skills",
        });
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
