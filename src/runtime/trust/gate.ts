/**
 * The check before any script or toolset of a skill runs: bundled skills are trusted;
 * an installed skill must be trusted and its files must still match the trusted digest.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import type { SkillRecord } from "../catalog/loader.ts";
import { cachedDigest } from "./file_hashes.ts";

export function digestCachePath(home: string, canonical: string): string {
  return join(home, ".cache", `digest-${canonical}.json`);
}

/** Throws `untrusted` or `integrity_mismatch`; returns normally when the skill may run. */
export async function assertRunnable(skill: SkillRecord, home: string): Promise<void> {
  if (skill.origin === "core") return;
  const entry = skill.entry;
  if (!skill.trusted || entry === undefined || entry.trusted_digest === null) {
    throw new SkillError("untrusted", `Skill '${skill.canonical}' is not trusted`, {
      hint:
        `Review it with \`skills info ${skill.canonical}\`, then run \`skills trust ${skill.canonical}\``,
    });
  }
  await Deno.mkdir(join(home, ".cache"), { recursive: true }).catch(() => {});
  const actual = await cachedDigest(skill.dir, digestCachePath(home, skill.canonical));
  if (actual !== entry.trusted_digest) {
    throw new SkillError(
      "integrity_mismatch",
      `Skill '${skill.canonical}' files changed since you trusted it; review and run \`skills trust ${skill.canonical}\``,
    );
  }
}
