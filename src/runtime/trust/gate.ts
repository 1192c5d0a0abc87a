/**
 * The check before any script or toolset of a skill runs: bundled skills are trusted;
 * an installed skill must be trusted and its files must still match the trusted digest.
 */

import { dirname, join } from "../os/paths.ts";
import { isSkillError, SkillError } from "../../core/errors.ts";
import type { SkillRecord } from "../catalog/loader.ts";
import { cachedDigest } from "./file_hashes.ts";

export function digestCachePath(home: string, canonical: string): string {
  return join(home, ".cache", `digest-${canonical}.json`);
}

/**
 * Project skills (issue 17): the digest this user trusted is on the record (from
 * `$SKILLS_HOME/project-trust.json`, keyed by project and folder), and the size+mtime cache
 * is keyed by the skill's directory, since two projects may hold skills of one name.
 */
function trustedDigestOf(skill: SkillRecord): string | null {
  if (skill.scope === "project") return skill.project?.trustedDigest ?? null;
  return skill.entry?.trusted_digest ?? null;
}

/** The gate's size+mtime digest cache for `skill` (dropped when trust changes). */
export function gateCachePath(
  skill: Pick<SkillRecord, "scope" | "dir" | "canonical">,
  home: string,
): string {
  if (skill.scope !== "project") return digestCachePath(home, skill.canonical);
  let hash = 0x811c9dc5;
  for (let i = 0; i < skill.dir.length; i++) {
    hash = Math.imul(hash ^ skill.dir.charCodeAt(i), 0x01000193) >>> 0;
  }
  return join(home, ".cache", "projects", `digest-${skill.canonical}-${hash.toString(16)}.json`);
}

interface GateOptions {
  /**
   * The user's explicit opt-in (`AGENT_SKILLS=all-untrusted`): skills that were never
   * trusted, or changed since, run anyway. Callers must say so loudly.
   */
  allowUntrusted?: boolean;
}

/** Throws `untrusted` or `integrity_mismatch`; returns normally when the skill may run. */
export async function assertRunnable(
  skill: SkillRecord,
  home: string,
  options: GateOptions = {},
): Promise<void> {
  if (skill.origin === "core" || options.allowUntrusted === true) return;
  const trustedDigest = trustedDigestOf(skill);
  if (!skill.trusted || trustedDigest === null) {
    throw new SkillError("untrusted", `Skill '${skill.canonical}' is not trusted`, {
      hint:
        `Review it with \`skills info ${skill.canonical}\`, then run \`skills trust ${skill.canonical}\``,
    });
  }
  const cachePath = gateCachePath(skill, home);
  await Deno.mkdir(dirname(cachePath), { recursive: true }).catch(() => {});
  const actual = await cachedDigest(skill.dir, cachePath);
  if (actual !== trustedDigest) {
    throw new SkillError(
      "integrity_mismatch",
      `Skill '${skill.canonical}' files changed since you trusted it; review and run \`skills trust ${skill.canonical}\``,
    );
  }
}

/** Whether a skill's code may run now, as `list` and `check` show it. */
export type RunState =
  | { state: "ok" }
  | { state: "untrusted"; reason: string; fix: string }
  | { state: "modified"; reason: string; fix: string };

/**
 * The gate's verdict without running anything: `untrusted` (never approved, or approval
 * withdrawn) or `modified` (files changed since they were trusted: `skills run` would
 * refuse with integrity_mismatch).
 */
async function runState(skill: SkillRecord, home: string): Promise<RunState> {
  // Never approved (a fresh clone's project skills, by the thousand): known without
  // hashing, and without building an error per skill.
  if (skill.origin !== "core" && trustedDigestOf(skill) === null) {
    const fix =
      `review it (skills info ${skill.canonical}), then run \`skills trust ${skill.canonical}\``;
    return { state: "untrusted", reason: "not trusted", fix };
  }
  try {
    await assertRunnable(skill, home);
    return { state: "ok" };
  } catch (error) {
    if (!isSkillError(error)) throw error;
    const fix =
      `review it (skills info ${skill.canonical}), then run \`skills trust ${skill.canonical}\``;
    if (error.code === "integrity_mismatch") {
      return { state: "modified", reason: "files changed since it was trusted", fix };
    }
    if (error.code === "untrusted") return { state: "untrusted", reason: "not trusted", fix };
    throw error;
  }
}

/** {@link runState} of many skills, a few at a time. */
export async function runStates(
  skills: readonly SkillRecord[],
  home: string,
): Promise<Map<string, RunState>> {
  const states = new Map<string, RunState>();
  const queue = [...skills];
  const worker = async () => {
    for (let skill = queue.shift(); skill !== undefined; skill = queue.shift()) {
      states.set(skill.canonical, await runState(skill, home));
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  return states;
}
