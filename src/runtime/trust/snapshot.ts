/**
 * The skill a script or toolset runs from: `verifiedSkill` is the boundary between trust and
 * execution. Checking files and then running them by path leaves a window in which they
 * can be swapped, so code never runs from the installed directory: it runs from a private
 * copy written from exactly the bytes that were hashed (read once, hashed, written), in
 * `$SKILLS_HOME/.cache/run/<skill>-<digest>/`. The copy is made once per trusted digest and
 * re-checked on every run by the same stat-keyed digest as the installed files (a changed
 * or added file means a fresh copy). Its record is loaded from the copy itself, so the
 * manifest that decides the environment, the limits and the scripts is the verified one,
 * never the listing cache's.
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
import { combineDigest, type FileHash, sha256Hex } from "../../core/records/digest.ts";
import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES, tooLargeMessage } from "../../core/manifest/limits.ts";
// @ts-types="../../generated/bundled_index.d.ts"
import { BUNDLED_DIGESTS } from "../../generated/bundled_index.ts";
import { materializeBundledSkills, restoreBundledSkills } from "../catalog/bundled.ts";
import { SkillLoadError } from "../catalog/load_terms.ts";
import type { SkillRecord } from "../catalog/loader.ts";
import {
  exists,
  lstatOrNull,
  lstatSyncOrNull,
  removeIfExists,
  writeFileAtomicSync,
} from "../os/fs.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import { cachedDigest, listFiles } from "./file_hashes.ts";
import { assertRunnable } from "./gate.ts";
import { copyContents, readCopyContents, writeCopyContents } from "./copy_record.ts";

/** Where verified copies live, under `$SKILLS_HOME`. */
const RUN_DIR = ".cache/run";
/** 2: files keep their owner's write bit (copies made from them are writable). */
const STAMP_VERSION = 2;
/** A copy of an older digest is kept this long (a long-lived toolset host may use it). */
const PRUNE_AFTER_MS = 10 * 60_000;

interface VerifyOptions {
  /** `AGENT_SKILLS=all-untrusted`: run what is there, still from a private copy. */
  allowUntrusted?: boolean;
}

/** Python bytecode: covered by a digest, never copied to where code runs. */
function isBytecode(path: string): boolean {
  return path.endsWith(".pyc") || path.split("/").includes("__pycache__");
}

/**
 * The skill as it may run: trusted and unchanged (throws `untrusted`, `integrity_mismatch`),
 * its record read from the verified copy its code runs from. Its `dir`, `skillMdPath` and
 * script paths point into that copy.
 */
export async function verifiedSkill(
  skill: SkillRecord,
  home: string,
  options: VerifyOptions = {},
): Promise<SkillRecord> {
  try {
    if (skill.origin === "core") return await verifiedBundled(skill, home);
    const checked = (await assertRunnable(skill, home, options))!;
    const copy = await verifiedCopy(home, skill.canonical, checked.dir, checked.digest);
    return await reload(copy, skill);
  } catch (error) {
    if (await changedMeanwhile(skill, home, error)) {
      throw new SkillError(
        "conflict",
        `Skill '${skill.canonical}' is being changed by another command (add, update or remove)`,
        { hint: "Run it again once that command has finished" },
      );
    }
    throw error;
  }
}

/**
 * Whether a failure came from another command replacing the skill meanwhile: its files
 * vanished, or they no longer match while its registry entry has changed since it was read.
 */
async function changedMeanwhile(
  skill: SkillRecord,
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

/** A verified copy: its folder, the digest it was just verified to have, its record's file. */
interface VerifiedCopy {
  dir: string;
  digest: string;
  recordPath: string;
}

/**
 * The skill's record read from its verified copy: what the copy's files say (from the record
 * kept beside it when it is the copy's at this digest, else read and kept), under the names,
 * scope and trust it was listed with.
 */
async function reload(copy: VerifiedCopy, skill: SkillRecord): Promise<SkillRecord> {
  try {
    const realDir = join(Deno.realPathSync(dirname(copy.dir)), basename(copy.dir));
    let contents = readCopyContents(copy.recordPath, realDir, copy.digest);
    if (contents === undefined) {
      // The loader only when the copy has no record yet: a run of a kept copy never loads it.
      const { loadSkillDir } = await import("../catalog/loader.ts");
      contents = copyContents(
        await loadSkillDir(copy.dir, dirname(realDir), {
          origin: skill.origin,
          trusted: skill.trusted,
          entry: skill.entry,
          rootIsReal: true,
        }),
      );
      writeCopyContents(copy.recordPath, copy.digest, contents);
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
  }
}

async function verifiedBundled(skill: SkillRecord, home: string): Promise<SkillRecord> {
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
  const recordPath = join(home, RUN_DIR, `bundled-${name}.record.json`);
  return await reload({ dir, digest: expected, recordPath }, skill);
}

interface Stamp {
  /** The digest of the installed files the copy was made from. */
  digest: string;
  /** The digest of the copy (its files minus bytecode). */
  run_digest: string;
}

function readStamp(path: string): Stamp | undefined {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    return parsed?.version === STAMP_VERSION && typeof parsed.digest === "string" &&
        typeof parsed.run_digest === "string"
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

/** The verified copy of `source` (whose files hashed to `digest`), made when missing. */
async function verifiedCopy(
  home: string,
  canonical: string,
  source: string,
  digest: string,
): Promise<VerifiedCopy> {
  const base = join(home, RUN_DIR);
  const id = `${canonical}-${digest.replace(/^sha256:/, "").slice(0, 32)}`;
  const dir = join(base, id);
  const stampPath = join(base, `${id}.json`);
  const hashesPath = join(base, `${id}.hashes.json`);
  const recordPath = join(base, `${id}.record.json`);
  /** The copy's digest when it is intact, else undefined. */
  const intact = async () => {
    const stamp = readStamp(stampPath);
    if (stamp === undefined || stamp.digest !== digest) return undefined;
    try {
      return await cachedDigest(dir, hashesPath) === stamp.run_digest
        ? stamp.run_digest
        : undefined;
    } catch {
      return undefined; // missing, or holds a symlink or special file now
    }
  };
  const ready = await intact();
  if (ready !== undefined) return { dir, digest: ready, recordPath };

  await Deno.mkdir(base, { recursive: true });
  const staging = join(base, `${id}.tmp-${crypto.randomUUID().slice(0, 8)}`);
  let runDigest: string;
  try {
    const copied = await copyVerified(source, staging);
    runDigest = copied.runDigest;
    if (copied.digest !== digest) {
      throw new SkillError(
        "integrity_mismatch",
        `Skill '${canonical}' files changed while they were being verified`,
        { hint: `Run it again; if this persists, review it and run \`skills trust ${canonical}\`` },
      );
    }
    writeFileAtomicSync(
      stampPath,
      JSON.stringify({ version: STAMP_VERSION, digest, run_digest: copied.runDigest }),
      { durable: false },
    );
    // A concurrent run may have made the same copy meanwhile: keep it if it is intact.
    if ((await intact()) === undefined) {
      await removeIfExists(hashesPath);
      await removeIfExists(recordPath);
      await removeIfExists(dir);
      try {
        await Deno.rename(staging, dir);
      } catch (error) {
        if (!(await exists(dir))) throw error;
      }
    }
  } finally {
    await removeIfExists(staging);
  }
  await pruneCopies(base, canonical, id).catch(() => {});
  return { dir, digest: runDigest, recordPath };
}

/**
 * Copies every file of `source` but bytecode into `target`, each read once: the bytes
 * hashed are the bytes written. Returns the digest of everything read (what trust
 * covers) and of what was written.
 *
 * Files keep their owner's write bit (0644, or 0755 for an executable one) and folders are
 * sealed read-only: a script that copies a file out of its skill (docx's `comment.py` copies
 * its XML templates with `shutil.copy`, which copies the mode too) must be able to edit its
 * copy in the workspace. The copy itself stays unchanged by other means: the sandbox binds
 * it read-only (`EROFS`, for every uid), sealed folders refuse new, renamed and removed
 * files, and every run re-checks it by its stat-keyed digest (ctime moves on any write), so
 * an edited file (possible only outside the sandbox, in policy mode) means a fresh copy.
 */
async function copyVerified(
  source: string,
  target: string,
): Promise<{ digest: string; runDigest: string }> {
  const files = listFiles(source);
  const all: FileHash[] = [];
  const run: FileHash[] = [];
  Deno.mkdirSync(target, { recursive: true });
  for (const file of files) {
    const bytes = Deno.readFileSync(file.abs);
    if (bytes.length > MAX_SKILL_FILE_BYTES) {
      throw new SkillError("io_error", `Skill file ${tooLargeMessage(file.path, bytes.length)}`);
    }
    const hash = { path: file.path, sha256: await sha256Hex(bytes) };
    all.push(hash);
    if (isBytecode(file.path)) continue;
    const dest = join(target, ...file.path.split("/"));
    Deno.mkdirSync(dirname(dest), { recursive: true });
    const mode = (file.mode & 0o111) !== 0 ? 0o755 : 0o644;
    Deno.writeFileSync(dest, bytes, { createNew: true, mode });
    run.push(hash);
  }
  sealFolders(target);
  return { digest: await combineDigest(all), runDigest: await combineDigest(run) };
}

/**
 * Makes every folder of a copy read-only (deepest first), so that a script writing into its
 * own skill fails at once — `EACCES`, or `EROFS` inside the OS sandbox — rather than
 * changing the files it runs from. Root ignores modes; the sandbox binds the copy read-only.
 */
function sealFolders(root: string): void {
  if (Deno.build.os === "windows") return;
  const folders: string[] = [];
  const walk = (dir: string) => {
    folders.push(dir);
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory && !entry.isSymlink) walk(join(dir, entry.name));
    }
  };
  walk(root);
  for (const dir of folders.reverse()) Deno.chmodSync(dir, 0o555);
}

/** Removes copies of `canonical` made for other digests, once they are no longer fresh. */
async function pruneCopies(base: string, canonical: string, keep: string): Promise<void> {
  const now = Date.now();
  for (const entry of Deno.readDirSync(base)) {
    const match = /^(.+)-([0-9a-f]{32})\.json$/.exec(entry.name);
    if (match === null || match[1] !== canonical || `${match[1]}-${match[2]}` === keep) continue;
    const id = `${match[1]}-${match[2]}`;
    const stamp = await lstatOrNull(join(base, entry.name));
    if (stamp === null || now - (stamp.mtime?.getTime() ?? now) < PRUNE_AFTER_MS) continue;
    await removeIfExists(join(base, id));
    await removeIfExists(join(base, `${id}.hashes.json`));
    await removeIfExists(join(base, `${id}.record.json`));
    await removeIfExists(join(base, entry.name));
  }
}
