/**
 * The skill a script or toolset runs from: `verifiedSkill` is the boundary between trust and
 * execution. Checking files and then running them by path leaves a window in which they
 * can be swapped, so code never runs from the installed directory: it runs from a private
 * copy written from exactly the bytes that were hashed (read once, hashed, written), in
 * `$SKILLS_HOME/.cache/run/<skill>-<digest>/` (verified_copy.ts, safe for runs that make it
 * at once). The copy is made once per trusted digest and re-checked on every run by the same
 * stat-keyed digest as the installed files (a changed or added file means a fresh copy). The
 * loaded skill is read from the copy itself, so the manifest that decides the environment, the
 * limits and the scripts is the verified one, never the listing cache's.
 *
 * Python bytecode (`*.pyc`, `__pycache__/`) is covered by the digest but left out of the
 * copy, and scripts run with PYTHONDONTWRITEBYTECODE (core/policy/env_policy.ts), so Python never
 * reads bytecode from a skill folder: no sourceless import, no cached `.pyc` standing in for
 * its reviewed source. (A private PYTHONPYCACHEPREFIX would do the same for `__pycache__`
 * but not for sourceless files, and it moves the standard library's caches too: every run
 * would recompile what it imports, ~300 ms for argparse, json and urllib.)
 *
 * Bundled skills are already a private copy (materialised from the binary); each is
 * checked against the digest embedded at build time and rewritten from the binary when
 * it does not match.
 */

import { basename, dirname, join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
// @ts-types="../../generated/bundled_index.d.ts"
import { BUNDLED_DIGESTS } from "../../generated/bundled_index.ts";
import { materializeBundledSkills, restoreBundledSkills } from "../catalog/bundled.ts";
import { SkillLoadError } from "../catalog/load_terms.ts";
import type { LoadedSkill } from "../catalog/loader.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { MAX_SKILL_FILE_BYTES } from "../../core/manifest/limits.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import { cachedDigest } from "./file_hashes.ts";
import { assertRunnable } from "./gate.ts";
import {
  checkedContents,
  copyContents,
  readStoredContents,
  storedContents,
  writeStoredContents,
} from "./copy_contents.ts";
import { RUN_DIR, type VerifiedCopy, verifiedCopy } from "./verified_copy.ts";

interface VerifyOptions {
  /** `AGENT_SKILLS=all-untrusted`: run what is there, still from a private copy. */
  allowUntrusted?: boolean;
}

/**
 * The skill as it may run: trusted and unchanged (throws `untrusted`, `integrity_mismatch`),
 * loaded from the verified copy its code runs from. Its `dir`, `skillMdPath` and
 * script paths point into that copy.
 */
export async function verifiedSkill(
  skill: LoadedSkill,
  home: string,
  options: VerifyOptions = {},
): Promise<LoadedSkill> {
  return (await verifiedSkillAndDigest(skill, home, options)).skill;
}

/**
 * {@link verifiedSkill} and the digest its copy was verified at: what binds every byte it
 * runs from (a cache of what those bytes produce is keyed by it, never by a path).
 */
export async function verifiedSkillAndDigest(
  skill: LoadedSkill,
  home: string,
  options: VerifyOptions = {},
): Promise<{ skill: LoadedSkill; digest: string }> {
  try {
    if (skill.origin === "core") return await verifiedBundled(skill, home);
    const checked = (await assertRunnable(skill, home, { ...options, keepBytes: true }))!;
    const copy = await verifiedCopy(
      home,
      skill.canonical,
      checked.dir,
      checked.digest,
      checked.read,
    );
    return { skill: await reload(copy, skill), digest: copy.digest };
  } catch (error) {
    throw await conflictIfChanged(skill, home, error);
  }
}

/**
 * The bytes of a trusted skill's SKILL.md as a model may read them: the very bytes its trusted
 * digest covers — instructions are code too, so one edited after trust is `integrity_mismatch`,
 * as for a run. Reading needs no verified copy (a copy is what code runs from, made at the
 * first run): the bytes the digest check hashed, or the file read again and held to its hash
 * in that check, so a file swapped after the check is refused, not served.
 */
export async function verifiedInstructions(
  skill: LoadedSkill,
  home: string,
  options: VerifyOptions = {},
): Promise<Uint8Array> {
  if (skill.origin === "core") {
    return Deno.readFileSync((await verifiedBundled(skill, home)).skill.skillMdPath);
  }
  try {
    const checked = (await assertRunnable(skill, home, { ...options, keepBytes: true }))!;
    const name = basename(skill.skillMdPath);
    const kept = checked.read?.find((file) => file.path === name);
    if (kept !== undefined) return kept.bytes;
    const { bytes, complete } = readPrefixSync(join(checked.dir, name), MAX_SKILL_FILE_BYTES);
    const expected = checked.hashOf?.(name);
    if (!complete || expected === undefined || await sha256Hex(bytes) !== expected) {
      throw new SkillError(
        "integrity_mismatch",
        `Skill '${skill.canonical}' instructions changed while they were being verified`,
        {
          hint:
            `Run it again; if this persists, review it and run \`skills trust ${skill.canonical}\``,
        },
      );
    }
    return bytes;
  } catch (error) {
    throw await conflictIfChanged(skill, home, error);
  }
}

/** `conflict` when the failure came from another command replacing the skill, else the failure. */
async function conflictIfChanged(skill: LoadedSkill, home: string, error: unknown) {
  if (!await changedMeanwhile(skill, home, error)) return error;
  return new SkillError(
    "conflict",
    `Skill '${skill.canonical}' is being changed by another command (add, update or remove)`,
    { hint: "Run it again once that command has finished" },
  );
}

/**
 * Whether a failure came from another command replacing the skill meanwhile: its files
 * vanished, or they no longer match while its registry entry has changed since it was read.
 */
async function changedMeanwhile(
  skill: LoadedSkill,
  home: string,
  error: unknown,
): Promise<boolean> {
  if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
    return true;
  }
  if (!(error instanceof SkillError) || error.code !== "integrity_mismatch") return false;
  if (skill.entry === undefined) return false;
  const now = (await registryStamps(home))?.get(skill.canonical);
  return now === undefined || now.updated_at !== skill.entry.updated_at ||
    now.trusted_digest !== skill.entry.trusted_digest ||
    now.installed_path !== skill.entry.installed_path;
}

/** What of a registry entry tells that its skill was replaced: when, what was trusted, where. */
type EntryStamp = Pick<RegistryEntry, "updated_at" | "trusted_digest" | "installed_path">;

/** The registry's stamps as last read, reused while its file is unchanged (size, mtime, inode). */
let lastStamps: { key: string; stamps: Map<string, EntryStamp> | undefined } | undefined;

/**
 * Each skill's entry stamp in the registry now (a name's first entry, should one repeat).
 * Serving a thousand skills whose files all changed (`context`, MCP) asks once per skill:
 * one parse per version of the file, not one per skill. Only the stamps are kept, not the
 * whole parsed registry: it would stay in memory as long as the process.
 */
async function registryStamps(home: string): Promise<Map<string, EntryStamp> | undefined> {
  const { readRegistry, registryPath } = await import("../store/registry.ts");
  const info = lstatSyncOrNull(registryPath(home));
  const key = info === null
    ? ""
    : `${registryPath(home)}:${info.size}:${info.mtime?.getTime()}:${info.ino}`;
  if (key !== "" && lastStamps?.key === key) return lastStamps.stamps;
  const registry = await readRegistry(home).catch(() => undefined);
  let stamps: Map<string, EntryStamp> | undefined;
  if (registry !== undefined) {
    stamps = new Map();
    for (const { name_canonical, updated_at, trusted_digest, installed_path } of registry.skills) {
      if (!stamps.has(name_canonical)) {
        stamps.set(name_canonical, { updated_at, trusted_digest, installed_path });
      }
    }
  }
  lastStamps = { key, stamps };
  return stamps;
}

/**
 * The skill loaded from its verified copy: what the copy's files say (from the contents
 * kept with it when they are the copy's at this digest, else read and kept), under the names,
 * scope and trust it was listed with. A copy without its stamp gets it here, whatever the
 * reading gives: one file a copy, written once.
 */
async function reload(copy: VerifiedCopy, skill: LoadedSkill): Promise<LoadedSkill> {
  let stamped = copy.stamped;
  try {
    const realDir = join(Deno.realPathSync(dirname(copy.dir)), basename(copy.dir));
    let contents = copy.kept === undefined
      ? undefined
      : checkedContents(copy.kept, realDir, copy.digest);
    if (contents === undefined) {
      // The loader only when the copy has no contents kept yet: a run of a kept copy never loads it.
      const { loadSkillDir } = await import("../catalog/loader.ts");
      contents = copyContents(
        await loadSkillDir(copy.dir, dirname(realDir), {
          origin: skill.origin,
          trusted: skill.trusted,
          entry: skill.entry,
          rootIsReal: true,
        }),
      );
      copy.keep(storedContents(copy.digest, contents));
      stamped = true;
    }
    // The copy keeps the names and the scope the skill was listed under: a project skill
    // installed under another name (`add --project --name`) is named by its folder, not by
    // its SKILL.md, and stays a project skill (the copy's folder says nothing of either).
    return {
      name: skill.name,
      canonical: skill.canonical,
      dir: contents.dir,
      skillMdPath: contents.skillMdPath,
      origin: skill.origin,
      trusted: skill.trusted,
      manifest: contents.manifest,
      scripts: contents.scripts,
      references: contents.references,
      assets: contents.assets,
      files: contents.files,
      entry: skill.entry,
      warnings: contents.warnings,
      scope: skill.scope,
      project: skill.project,
    };
  } catch (error) {
    if (!(error instanceof SkillLoadError)) throw error;
    throw new SkillError(
      "invalid_manifest",
      `Skill '${skill.canonical}' cannot run: ${error.message}`,
    );
  } finally {
    // A manifest that does not load still binds the copy to its digest for the next run.
    if (!stamped) copy.keep();
  }
}

async function verifiedBundled(
  skill: LoadedSkill,
  home: string,
): Promise<{ skill: LoadedSkill; digest: string }> {
  const name = skill.dir.split(/[\\/]/).pop() ?? "";
  const expected = Object.hasOwn(BUNDLED_DIGESTS, name) ? BUNDLED_DIGESTS[name] : undefined;
  if (expected === undefined || name !== skill.canonical) {
    throw new SkillError("not_found", `Skill '${skill.canonical}' is not a bundled skill`);
  }
  const cache = join(home, RUN_DIR, `bundled-${name}.hashes.json`);
  Deno.mkdirSync(join(home, RUN_DIR), { recursive: true });
  const digestOf = (dir: string) => cachedDigest(dir, cache).catch(() => "");
  let dir = join(await materializeBundledSkills(home), name);
  if (await digestOf(dir) !== expected) {
    dir = join(await restoreBundledSkills(home), name);
    if (await digestOf(dir) !== expected) {
      throw new SkillError(
        "integrity_mismatch",
        `Bundled skill '${name}' does not match this binary even after rewriting it in ${dir}`,
      );
    }
  }
  // A bundled skill's copy is checked against the binary's digest, not a stamp: its contents
  // are kept in a file of their own.
  const contentsPath = join(home, RUN_DIR, `bundled-${name}.record.json`);
  const copy: VerifiedCopy = {
    dir,
    digest: expected,
    kept: readStoredContents(contentsPath),
    stamped: true,
    keep(stored?: unknown) {
      if (stored !== undefined) writeStoredContents(contentsPath, stored);
    },
  };
  return { skill: await reload(copy, skill), digest: expected };
}
