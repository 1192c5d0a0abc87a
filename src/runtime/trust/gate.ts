/**
 * The check before any script or toolset of a skill runs: an installed skill must be
 * trusted and its files must still match the trusted digest (bundled skills are checked
 * against the digests embedded at build time: snapshot.ts). What then runs is the
 * verified private copy snapshot.ts makes, never the installed files themselves.
 */

import { dirname, join } from "../os/paths.ts";
import type { StatLite } from "../os/fs.ts";
import { isSkillError, SkillError } from "../../core/errors.ts";
import type { LoadedSkill } from "../catalog/loader.ts";
import {
  cachedDigest,
  DigestIndex,
  digestReading,
  type HashOf,
  type ReadFile,
  uncoveredFiles,
} from "./file_hashes.ts";

export function digestCachePath(home: string, canonical: string): string {
  return join(home, ".cache", `digest-${canonical}.json`);
}

/** The digests of every listed skill with their trees' stat keys (file_hashes.ts). */
function digestIndexPath(home: string): string {
  return join(home, ".cache", "digests.json");
}

/**
 * Project skills (issue 17): the digest this user trusted is on the record (from
 * `$SKILLS_HOME/project-trust.json`, keyed by project and folder), and the size+mtime cache
 * is keyed by the skill's directory, since two projects may hold skills of one name.
 */
function trustedDigestOf(skill: LoadedSkill): string | null {
  if (skill.scope === "project") return skill.project?.trustedDigest ?? null;
  return skill.entry?.trusted_digest ?? null;
}

/** The gate's size+mtime digest cache for `skill` (dropped when trust changes). */
export function gateCachePath(
  skill: Pick<LoadedSkill, "scope" | "dir" | "canonical">,
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
  /** Say why a mismatch is one (legacy trust): skipped when only the verdict matters. */
  explain?: boolean;
  /**
   * Return the bytes the check read when it had to read every file (no digest cache yet),
   * for the verified copy to be written from (trust/snapshot.ts).
   */
  keepBytes?: boolean;
}

/**
 * The digest of an installed skill's files when it may run: trusted (or the user's
 * explicit opt-in), and unchanged since it was trusted. Throws `untrusted` or
 * `integrity_mismatch`. Bundled skills are verified by {@link verifiedSkill} instead.
 */
export async function assertRunnable(
  skill: LoadedSkill,
  home: string,
  options: GateOptions = {},
): Promise<CheckedSkill | undefined> {
  if (skill.origin === "core") return undefined;
  const trustedDigest = trustedDigestOf(skill);
  const trusted = skill.trusted && trustedDigest !== null;
  if (!trusted && options.allowUntrusted !== true) {
    throw new SkillError("untrusted", `Skill '${skill.canonical}' is not trusted`, {
      hint:
        `Review it with \`skills info ${skill.canonical}\`, then run \`skills trust ${skill.canonical}\``,
    });
  }
  // The registry says where the skill lives; a listing cache never does.
  const dir = skill.entry?.installed_path ?? skill.dir;
  let actual: string;
  let read: ReadFile[] | undefined;
  let hashOf: HashOf | undefined;
  if (options.keepBytes === true) {
    const cachePath = gateCachePath(skill, home);
    ensureCacheDir(dirname(cachePath));
    ({ digest: actual, read, hashOf } = await digestReading(dir, cachePath));
  } else {
    actual = await checkDigest(skill, dir, home);
  }
  if (trusted && actual !== trustedDigest && options.allowUntrusted !== true) {
    throw await mismatchError(skill.canonical, dir, trustedDigest, options.explain);
  }
  return {
    dir,
    digest: actual,
    ...read === undefined ? {} : { read },
    ...hashOf === undefined ? {} : { hashOf },
  };
}

/** What {@link assertRunnable} checked: where, at which digest, and with `keepBytes` what it read. */
interface CheckedSkill {
  dir: string;
  digest: string;
  /** Every file's bytes, when the check had to read them all. */
  read?: ReadFile[];
  /** Each file's hash in the digest checked. */
  hashOf?: HashOf;
}

/** The digest through the skill's own stat-keyed cache (and into the index, if any). */
async function checkDigest(
  skill: LoadedSkill,
  dir: string,
  home: string,
  index?: DigestIndex,
): Promise<string> {
  const cachePath = gateCachePath(skill, home);
  ensureCacheDir(dirname(cachePath));
  return index === undefined
    ? await cachedDigest(dir, cachePath)
    : await index.check(dir, cachePath);
}

/** Cache folders made by this process: `list` of a thousand skills asks a thousand times. */
const madeCacheDirs = new Set<string>();

function ensureCacheDir(dir: string): void {
  if (madeCacheDirs.has(dir)) return;
  try {
    Deno.mkdirSync(dir, { recursive: true });
  } catch { /* the digest cache's write reports it */ }
  madeCacheDirs.add(dir);
}

/** `integrity_mismatch`, saying so when the trust predates the digest covering bytecode. */
async function mismatchError(canonical: string, dir: string, trusted: string, explain = true) {
  const uncovered = explain ? await uncoveredFiles(dir, trusted).catch(() => undefined) : undefined;
  const review = `review it (\`skills info ${canonical}\`) and run \`skills trust ${canonical}\``;
  if (uncovered !== undefined) {
    const shown = uncovered.slice(0, 3).join(", ") + (uncovered.length > 3 ? ", …" : "");
    return new SkillError(
      "integrity_mismatch",
      `Skill '${canonical}' holds files its trust did not cover (${shown}): digests now cover every file, Python bytecode included`,
      {
        hint:
          `If they are Python caches an earlier version let scripts write, delete them; otherwise ${review}`,
      },
    );
  }
  return new SkillError(
    "integrity_mismatch",
    `Skill '${canonical}' files changed since you trusted it; ${review}`,
  );
}

/** Whether a skill's code may run now, as `list` and `check` show it. */
export type RunState =
  | { state: "ok" }
  | { state: "untrusted"; reason: string; fix: string }
  | { state: "modified"; reason: string; fix: string };

/**
 * The gate's verdict without running anything: `untrusted` (never approved, or approval
 * withdrawn) or `modified` (files changed since they were trusted: `skills run` would
 * refuse with integrity_mismatch). For a skill {@link settledState} could not tell: its
 * own digest cache is asked.
 */
async function runState(skill: LoadedSkill, home: string, index: DigestIndex): Promise<RunState> {
  const dir = skill.entry?.installed_path ?? skill.dir;
  try {
    return stateOf(skill, await checkDigest(skill, dir, home, index));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return {
        state: "modified",
        reason: "its files are being changed by another command",
        fix: "try again once that command has finished",
      };
    }
    // A symlink or special file in the skill: what run refuses as integrity_mismatch.
    if (isSkillError(error) && error.code === "integrity_mismatch") {
      return {
        state: "modified",
        reason: "files changed since it was trusted",
        fix: fixFor(skill),
      };
    }
    throw error;
  }
}

function fixFor(skill: LoadedSkill): string {
  return `review it (skills info ${skill.canonical}), then run \`skills trust ${skill.canonical}\``;
}

/** assertRunnable's comparison, without building an error per changed skill. */
function stateOf(skill: LoadedSkill, actual: string): RunState {
  if (actual === trustedDigestOf(skill)) return { state: "ok" };
  return { state: "modified", reason: "files changed since it was trusted", fix: fixFor(skill) };
}

/**
 * The state when it is known without hashing or waiting: bundled, never approved (a fresh
 * clone's project skills, by the thousand), or a digest the index still holds by stats
 * alone. Undefined: the skill's own digest cache must be asked.
 */
function settledState(
  skill: LoadedSkill,
  index: DigestIndex,
  stats: ReadonlyMap<string, StatLite> | undefined,
): RunState | undefined {
  if (skill.origin === "core") return { state: "ok" };
  if (!skill.trusted || trustedDigestOf(skill) === null) {
    return { state: "untrusted", reason: "not trusted", fix: fixFor(skill) };
  }
  const actual = index.digestOf(skill.entry?.installed_path ?? skill.dir, stats);
  return actual === undefined ? undefined : stateOf(skill, actual);
}

/**
 * {@link runState} of many skills, a few at a time. `stats`: ones the listing already took
 * (Catalog.listingStats), so each path is stat'ed once per command.
 */
export async function runStates(
  skills: readonly LoadedSkill[],
  home: string,
  stats?: ReadonlyMap<string, StatLite>,
): Promise<Map<string, RunState>> {
  const states = new Map<string, RunState>();
  const index = DigestIndex.load(digestIndexPath(home));
  // Most skills are told by stats alone, synchronously; the others a few at a time.
  const queue: LoadedSkill[] = [];
  for (const skill of skills) {
    const known = settledState(skill, index, stats);
    if (known !== undefined) states.set(skill.canonical, known);
    else queue.push(skill);
  }
  const worker = async () => {
    for (let skill = queue.shift(); skill !== undefined; skill = queue.shift()) {
      states.set(skill.canonical, await runState(skill, home, index));
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  await index.save();
  return states;
}
