/**
 * Who a skill is to its sandbox cache: the key of the skill as listed, the id of its cache
 * folder, and which install of it this is (a new install starts with an empty cache).
 */

import { sha256Hex } from "../../../core/records/digest.ts";
import type { LoadedSkill } from "../../catalog/catalog.ts";

/**
 * Who a skill is, for its sandbox cache and a root CLI's uid: scope, folder and source of
 * the skill as listed (not its verified copy, whose folder changes with every version), so
 * a project skill named like a bundled one never shares the bundled one's cache.
 */
export function skillKeyOf(skill: Pick<LoadedSkill, "scope" | "dir" | "entry">): string {
  return `${skill.scope}\0${skill.dir}\0${skill.entry?.source ?? ""}`;
}

/**
 * The name of a skill's cache folder beside its own name: 64 bits of SHA-256 of its key, so
 * a hostile skill cannot search for a key that lands on another's folder. Kept in the run
 * plan with the key (WebCrypto's first digest in a process costs ~0.4 ms).
 */
export async function skillCacheIdOf(skillKey: string): Promise<string> {
  return (await sha256Hex(skillKey)).slice(0, 16);
}

/**
 * Which install of a skill this is, for its cache: installed and updated times of an
 * installed skill, the approved digest of a project skill, the content-addressed folder of
 * a bundled one. A new install (an update, a remove and add) starts with an empty cache.
 */
export function skillGenerationOf(
  skill: Pick<LoadedSkill, "dir" | "entry" | "project">,
): string {
  if (skill.entry !== undefined) {
    return `${skill.entry.installed_at}|${skill.entry.updated_at ?? ""}|${
      skill.entry.trusted_digest ?? ""
    }`;
  }
  if (skill.project !== undefined) return `project|${skill.project.trustedDigest ?? ""}`;
  return `dir|${skill.dir}`;
}
