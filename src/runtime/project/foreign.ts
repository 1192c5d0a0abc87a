/**
 * `skills install` of a `skills-lock.json` written by vercel-labs' `skills` CLI (version 1:
 * `source`, `sourceType`, an optional `ref` and `skillPath`, a `computedHash` and no commit).
 * Each skill is fetched where its entry points (the default branch, or its `ref`), so its
 * commit is resolved anew — the run says so. Its files are checked against `computedHash`
 * (that tool's sha256 over sorted paths and bytes): under `--frozen` a difference fails and
 * nothing is written; otherwise it is a note, the skills are restored and the lockfile is
 * rewritten in this tool's format, pinned to the commits found and their file digests.
 */

import { basename, isAbsolute, join, resolve } from "../os/paths.ts";
import { describeError } from "../../core/errors.ts";
import {
  diffFiles,
  emptyLockfile,
  foreignSkillFolder,
  type LockedSkill,
  type Lockfile,
  withLockedSkill,
} from "../../core/records/lockfile.ts";
import { publishedSkillKey } from "../../core/names.ts";
import {
  foreignComputedHash,
  type ForeignLockedSkill,
  peerHashesFolder,
  peerInstalledFiles,
} from "../../core/records/peer_lockfile.ts";
import { combineDigest } from "../../core/records/digest.ts";
import {
  parseSource,
  type RefRequest,
  type ResolvedSource,
  sourceLocation,
} from "../../core/sources/sources.ts";
import { type Fetched, revisionOf } from "../lifecycle/fetch_source.ts";
import { namedSkills } from "../lifecycle/named_skills.ts";
import { webSource } from "../../core/sources/web_source.ts";
import { resolveParsed } from "../lifecycle/resolve_source.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { foreignKeys, unlockedFolders } from "./drift.ts";
import { describeFiles } from "../lifecycle/lock_entries.ts";
import {
  type Mismatch,
  type RestoreOptions,
  type RestoreReport,
  type RestoreWorkspace,
  skillBase,
  statedPermissions,
  type Verified,
  writeVerified,
} from "./restore.ts";
import { projectSkillDir } from "../lifecycle/lock_entries.ts";

export interface ForeignReport extends RestoreReport {
  /** Whether this run rewrote skills-lock.json in this tool's format. */
  converted: boolean;
  notes: string[];
}

function foreignSource(entry: ForeignLockedSkill, root: string): ResolvedSource {
  if (entry.sourceType === "local") {
    const path = isAbsolute(entry.source) ? entry.source : resolve(root, entry.source);
    return resolveParsed({ type: "local", path, subpath: "", skill: undefined, ref: undefined });
  }
  if (entry.sourceType === "well-known" || entry.sourceType === "download") {
    // The host alone (`source`) names no URL: the one it was added from is `sourceUrl`.
    return resolveParsed(webSource(entry.sourceUrl ?? entry.source));
  }
  if (!["github", "gitlab", "git"].includes(entry.sourceType)) {
    throw new Error(`sourceType '${entry.sourceType}' cannot be restored by this tool`);
  }
  const parsed = parseSource(entry.source);
  if (parsed.type !== "git") throw new Error(`'${entry.source}' is not a git source`);
  return resolveParsed({ ...parsed, subpath: "", skill: undefined, ref: undefined });
}

/**
 * The skill's folder in the fetch: its `skillPath`, else — as vercel-labs' CLI does — the one
 * skill whose SKILL.md declares the entry's `name` anywhere in the source (its folder may be
 * named otherwise), else the one folder named like it.
 */
async function locate(fetched: Fetched, entry: ForeignLockedSkill): Promise<string | null> {
  if (entry.skillPath !== null) {
    const folder = foreignSkillFolder(entry.skillPath);
    return folder === undefined ? null : await skillBase(fetched, folder);
  }
  const found = await namedSkills(fetched);
  if (found.length === 1 && found[0]!.rel === "" && fetched.source.type === "git") {
    return await skillBase(fetched, "");
  }
  const declared = found.filter((skill) => skill.name === entry.name);
  const named = declared.length > 0
    ? declared
    : found.filter((skill) => basename(skill.dir) === entry.name);
  return named.length === 1 ? await skillBase(fetched, named[0]!.rel) : null;
}

/**
 * The peer's `computedHash` of a folder, walked as it walks (core/records/peer_lockfile.ts): every
 * regular file (no symlink) outside `.git` and `node_modules` folders — `__pycache__` and
 * `.pyc` files included, which this tool's own listing leaves out.
 */
async function foreignHash(dir: string): Promise<string> {
  const list: { path: string; bytes: Uint8Array }[] = [];
  const walk = async (at: string, rel: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory && peerHashesFolder(entry.name)) await walk(join(at, entry.name), path);
      else if (entry.isFile) list.push({ path, bytes: await Deno.readFile(join(at, entry.name)) });
    }
  };
  await walk(dir, "");
  return await foreignComputedHash(list);
}

/**
 * Entries whose names this tool installs under one folder (`my-tool` and `my_tool`, both
 * `.agents/skills/my-tool`), each mapped to the others: as `add` does with twins, none of
 * them is installed (which one is meant is not for this tool to guess); the rest are.
 */
function twinEntries(
  entries: readonly ForeignLockedSkill[],
): Map<ForeignLockedSkill, ForeignLockedSkill[]> {
  const byKey = new Map<string, ForeignLockedSkill[]>();
  for (const entry of entries) {
    const key = publishedSkillKey(entry.name);
    if (key !== undefined) byKey.set(key, [...byKey.get(key) ?? [], entry]);
  }
  const out = new Map<ForeignLockedSkill, ForeignLockedSkill[]>();
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    for (const entry of group) out.set(entry, group.filter((other) => other !== entry));
  }
  return out;
}

function twinProblem(entry: ForeignLockedSkill, others: readonly ForeignLockedSkill[]): Mismatch {
  const key = publishedSkillKey(entry.name)!;
  return problem(
    entry.name,
    "unsupported",
    `not installed: ${
      others.map((o) => `'${o.name}'`).join(", ")
    } would be installed under the same name '${key}' (.agents/skills/${key}); rename one in its source, or remove all but one from skills-lock.json`,
  );
}

const problem = (skill: string, kind: Mismatch["kind"], message: string): Mismatch => ({
  skill,
  kind,
  message,
  files: [],
  blocking: true,
});

/** A skill of the foreign lockfile as fetched and checked, ready to compare with the disk. */
interface FoundEntry {
  key: string;
  /** Its entry in this tool's format, pinned to the commit found. */
  locked: LockedSkill;
  /** The skill's folder in the fetch. */
  base: string;
  /** ` at <commit>` for messages, or empty. */
  at: string;
}

/**
 * Restores (and, unless frozen, converts) a vercel-labs lockfile, read as its phases: each
 * entry fetched and checked, then compared with the disk; folders no entry explains; then
 * one write, or the report of why not.
 */
export async function restoreForeign(
  ws: RestoreWorkspace,
  entries: readonly ForeignLockedSkill[],
  options: RestoreOptions,
): Promise<ForeignReport> {
  const report: ForeignReport = {
    present: [],
    restored: [],
    held: [],
    mismatches: [],
    converted: false,
    notes: [
      "skills-lock.json was written by vercel-labs' skills CLI, which records no commits: " +
      "each skill's commit is resolved anew from its source",
    ],
  };
  let converted = emptyLockfile();
  const toWrite: Verified[] = [];
  const fetches = new Map<string, Promise<Fetched>>();
  const twins = twinEntries(entries);
  for (const [entry, others] of twins) {
    report.mismatches.push({ ...twinProblem(entry, others), blocking: options.frozen });
  }
  for (const entry of entries) {
    if (twins.has(entry)) continue;
    const found = await findEntry(ws, entry, options, report, fetches);
    if (found === undefined) continue;
    const verified = await compareWithDisk(ws, found, options, report);
    converted = withLockedSkill(converted, found.key, found.locked);
    if (verified !== undefined) toWrite.push(verified);
  }
  const explained = {
    ...foreignKeys(entries),
    ...Object.fromEntries(entries.map((e) => [e.name, true])),
  };
  for (const name of unlockedFolders(ws.root, ws.home, explained)) {
    report.mismatches.push({
      ...problem(name, "extra", "in .agents/skills but not in skills-lock.json"),
      blocking: options.frozen,
    });
  }
  return await writeOrHold(ws, toWrite, twins.size > 0 ? null : converted, options, report);
}

/**
 * One entry fetched (each source and ref once per run), its skill located and its files
 * checked against `computedHash`; undefined, with the reason in `report`, when it cannot be
 * restored (or, frozen, differs).
 */
async function findEntry(
  ws: RestoreWorkspace,
  entry: ForeignLockedSkill,
  options: RestoreOptions,
  report: ForeignReport,
  fetches: Map<string, Promise<Fetched>>,
): Promise<FoundEntry | undefined> {
  const key = publishedSkillKey(entry.name);
  if (key === undefined) {
    report.mismatches.push(problem(entry.name, "unsupported", "is not a valid skill name"));
    return undefined;
  }
  let fetched: Fetched;
  try {
    fetched = await fetchOnce(ws, entry, fetches);
  } catch (error) {
    report.mismatches.push(problem(key, "fetch_failed", describeError(error)));
    return undefined;
  }
  const base = await locate(fetched, entry);
  if (base === null) {
    report.mismatches.push(
      problem(key, "missing", `not found in ${entry.source} (skillPath ${entry.skillPath})`),
    );
    return undefined;
  }
  const { files, digest } = await describeFiles(base);
  const at = fetched.commit === null ? "" : ` at ${fetched.commit.sha.slice(0, 12)}`;
  if (entry.computedHash !== null && (await foreignHash(base)) !== entry.computedHash) {
    const message =
      `the files of ${entry.source}${at} differ from the computedHash in skills-lock.json (the source changed since it was written)`;
    if (options.frozen) report.mismatches.push(problem(key, "changed", message));
    else report.notes.push(`${key}: ${message}; installing them as found`);
    if (options.frozen) return undefined;
  }
  const folder = (base === fetched.root ? "" : base.slice(fetched.root.length + 1))
    .replaceAll("\\", "/");
  const commit = revisionOf(fetched, folder);
  const locked: LockedSkill = {
    name: entry.name,
    source: fetched.source.type === "git" || fetched.source.type === "web"
      ? { type: fetched.source.type, url: fetched.source.url, subpath: folder }
      : { type: "local", url: entry.source, subpath: "" },
    branch: commit?.branch ?? null,
    tag: commit?.tag ?? null,
    ref: entry.ref,
    commit: commit?.sha ?? null,
    digest,
    files,
    permissions: await lockedPermissions(base),
  };
  return { key, locked, base, at };
}

/** The entry's source at its ref (or default branch), fetched once however many share it. */
async function fetchOnce(
  ws: RestoreWorkspace,
  entry: ForeignLockedSkill,
  fetches: Map<string, Promise<Fetched>>,
): Promise<Fetched> {
  const source = foreignSource(entry, ws.root);
  const request: RefRequest = entry.ref === null
    ? { kind: "default" }
    : { kind: "ref", name: entry.ref };
  const id = `${sourceLocation(source)}\0${entry.ref ?? ""}`;
  let fetching = fetches.get(id);
  if (fetching === undefined) {
    fetching = ws.change.fetch(source, request);
    fetching.catch(() => {});
    fetches.set(id, fetching);
  }
  return await fetching;
}

/**
 * The found skill against its folder on disk: already there, changed there (left unless
 * `--force`), or to write (returned).
 */
async function compareWithDisk(
  ws: RestoreWorkspace,
  found: FoundEntry,
  options: RestoreOptions,
  report: ForeignReport,
): Promise<Verified | undefined> {
  const { key, locked, base, at } = found;
  const target = projectSkillDir(ws.root, key);
  const onDisk = await fileHashes(target);
  const asPeerInstalled = peerInstalledFiles(locked.files);
  if (onDisk.size > 0 && diffFiles(locked.files, onDisk).length === 0) report.present.push(key);
  else if (onDisk.size > 0 && diffFiles(asPeerInstalled, onDisk).length === 0) {
    // Installed by the peer, which leaves metadata.json out: pinned to what is on disk.
    report.present.push(key);
    found.locked = await withFiles(locked, asPeerInstalled);
  } else if (onDisk.size > 0 && !options.force) {
    report.mismatches.push({
      ...problem(key, "changed", `files on disk differ from its source${at}`),
      files: diffFiles(locked.files, onDisk),
    });
  } else return { key, entry: locked, base };
  return undefined;
}

/**
 * Nothing is written while a mismatch blocks. Frozen, the skills are written and the
 * lockfile kept; otherwise the lockfile is replaced by its conversion.
 */
async function writeOrHold(
  ws: RestoreWorkspace,
  toWrite: Verified[],
  converted: Lockfile | null,
  options: RestoreOptions,
  report: ForeignReport,
): Promise<ForeignReport> {
  const blocked = report.mismatches.some((m) => m.blocking);
  if (options.frozen) {
    if (blocked) report.held = toWrite.map((v) => v.key);
    else {
      await writeVerified(ws, toWrite, null);
      report.restored = toWrite.map((v) => v.key);
    }
    return report;
  }
  if (blocked) return report;
  if (converted === null) {
    // Twins are kept in the file as written: converting it would drop them.
    await writeVerified(ws, toWrite, null);
    report.restored = toWrite.map((v) => v.key);
    report.notes.push(
      "skills-lock.json was left as written: entries that share an installed name cannot be converted",
    );
    return report;
  }
  await writeVerified(ws, toWrite, { replace: converted });
  report.restored = toWrite.map((v) => v.key);
  report.converted = true;
  report.notes.push(
    "skills-lock.json was rewritten with the commits and file digests (lockfileVersion 2, still read by vercel-labs' CLI)",
  );
  return report;
}

/** `locked` describing `files` only (and their digest). */
async function withFiles(locked: LockedSkill, files: Record<string, string>): Promise<LockedSkill> {
  const digest = await combineDigest(
    Object.entries(files).map(([path, sha256]) => ({ path, sha256 })),
  );
  return { ...locked, files, digest };
}

/** What a converted entry approves: what the SKILL.md states now (none when unreadable). */
async function lockedPermissions(dir: string): Promise<{ env: string[]; network: string[] }> {
  const stated = await statedPermissions(dir);
  return { env: [...stated?.env ?? []], network: [...stated?.network ?? []] };
}
