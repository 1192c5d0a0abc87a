/**
 * How a project's skills drifted from its lockfile: the lockfile itself (unreadable, a
 * digest that no longer adds up to its files list), each locked skill on disk (missing,
 * files changed, permissions that differ from the approved ones), folders in
 * `.agents/skills` the lockfile does not record, and this user's trust. Each drift comes
 * with its fix. `skills check` reports them; `skills install` acts on the same findings.
 */

import { join } from "../os/paths.ts";
import {
  type FileDrift,
  type LockedSkill,
  permissionsProblem,
} from "../../core/records/lockfile.ts";
import { networkList } from "../../core/policy/net_grants.ts";
import type { LockRead } from "../store/lockfile.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import type { SkillRecord } from "../catalog/loader.ts";
import { readLinks } from "../store/project_records.ts";
import { digestOfLocked, diskDrift } from "../lifecycle/lock_entries.ts";
import { publishedSkillKey } from "../../core/names.ts";

interface Drift {
  /** The skill, or `skills-lock.json` for the file itself. */
  name: string;
  kind:
    | "lockfile"
    | "lock_digest"
    | "missing"
    | "changed"
    | "permissions"
    | "extra"
    | "untrusted";
  problem: string;
  fix: string;
  /** Untrusted project skills are expected after a clone: a note, not a failure. */
  severity: "error" | "note";
  files?: FileDrift[];
}

/** One line per changed file: `~ scripts/run.py`, `+ new.md`, `- gone.md`. */
export function describeFileDrift(files: readonly FileDrift[]): string {
  const mark = { changed: "~", added: "+", removed: "-" } as const;
  return files.map((f) => `${mark[f.change]} ${f.path}`).join(", ");
}

/** Folders in `<root>/.agents/skills` the lock does not list (links and copies excluded). */
export function unlockedFolders(
  root: string,
  home: string,
  locked: Readonly<Record<string, unknown>>,
): string[] {
  const folder = join(root, ...PROJECT_SKILLS_DIR);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(folder)];
  } catch {
    return [];
  }
  const recorded = new Set(readLinks(home).doc.links.map((l) => l.path));
  return entries
    .filter((e) => e.isDirectory && !e.name.startsWith(".") && !Object.hasOwn(locked, e.name))
    .filter((e) => !recorded.has(join(folder, e.name)))
    .map((e) => e.name)
    .sort();
}

/**
 * Lockfile vs disk vs trust for the project at `root`. `skills` are the catalog's project
 * skills (for permissions as SKILL.md states them and for trust). Read as the drift kinds in
 * report order: the file itself, each locked skill, folders it does not explain, trust.
 */
export async function projectDrift(
  root: string,
  home: string,
  lock: LockRead,
  skills: readonly SkillRecord[],
): Promise<Drift[]> {
  const out: Drift[] = lockfileDrift(lock);
  const locked = lock.state === "ok" ? lock.lock.skills : {};
  for (const [key, entry] of Object.entries(locked)) {
    out.push(...await lockedSkillDrift(root, key, entry, skills));
  }
  out.push(...extraDrift(root, home, lock, locked));
  out.push(...trustDrift(skills));
  return out;
}

/** `skills-lock.json` itself: unreadable (an error), or vercel-labs' (a note). */
function lockfileDrift(lock: LockRead): Drift[] {
  if (lock.state === "invalid") {
    return [{
      name: "skills-lock.json",
      kind: "lockfile",
      problem: `it ${lock.reason}`,
      fix: "restore it from git (`git checkout -- skills-lock.json`) or fix it by hand",
      severity: "error",
    }];
  }
  if (lock.state === "foreign") {
    return [{
      name: "skills-lock.json",
      kind: "lockfile",
      problem: "written by vercel-labs' skills CLI: no commits and no per-file digests",
      fix: "run `skills install` to resolve the commits and record the digests",
      severity: "note",
    }];
  }
  return [];
}

/**
 * One locked skill: an entry whose digest does not add up, its folder missing or its files
 * changed, and permissions SKILL.md states beyond the approved ones.
 */
async function lockedSkillDrift(
  root: string,
  key: string,
  entry: LockedSkill,
  skills: readonly SkillRecord[],
): Promise<Drift[]> {
  const out: Drift[] = [];
  if ((await digestOfLocked(entry)) !== entry.digest) {
    out.push({
      name: key,
      kind: "lock_digest",
      problem: "its digest in skills-lock.json does not add up to its files list (hand edit?)",
      fix: "restore skills-lock.json from git (`git checkout -- skills-lock.json`)",
      severity: "error",
    });
  }
  const files = await diskDrift(root, key, entry);
  if (files === null) {
    out.push({
      name: key,
      kind: "missing",
      problem: `locked but missing from ${PROJECT_SKILLS_DIR.join("/")}`,
      fix: "run `skills install`",
      severity: "error",
    });
    return out;
  }
  if (files.length > 0) {
    out.push({
      name: key,
      kind: "changed",
      problem: `files differ from skills-lock.json: ${describeFileDrift(files)}`,
      fix: "run `skills install --force` to restore the locked files",
      severity: "error",
      files,
    });
  }
  const rel = `${PROJECT_SKILLS_DIR.join("/")}/${key}`;
  const skill = skills.find((s) => s.project?.root === root && s.project.rel === rel);
  const problem = skill === undefined ? undefined : permissionsProblem(entry.permissions, {
    env: skill.manifest.envPatterns,
    network: networkList(skill.manifest.network),
  });
  if (problem !== undefined) {
    out.push({
      name: key,
      kind: "permissions",
      problem,
      fix: `review it, then \`skills trust ${key}\` records the approval`,
      severity: "error",
    });
  }
  return out;
}

/** Folders in `.agents/skills` no entry explains, whichever tool wrote the file. */
function extraDrift(
  root: string,
  home: string,
  lock: LockRead,
  locked: Readonly<Record<string, LockedSkill>>,
): Drift[] {
  if (lock.state !== "ok" && lock.state !== "foreign") return [];
  const explained = lock.state === "ok" ? locked : foreignKeys(lock.entries);
  return unlockedFolders(root, home, explained).map((name) => ({
    name,
    kind: "extra",
    problem: `in ${PROJECT_SKILLS_DIR.join("/")} but not in skills-lock.json`,
    fix: "record it with `skills add <source> --project`, or remove the folder",
    severity: "error",
  }));
}

/** Project skills this user has not trusted: expected after a clone, so a note. */
function trustDrift(skills: readonly SkillRecord[]): Drift[] {
  return skills.filter((skill) => skill.scope === "project" && !skill.trusted).map((skill) => ({
    name: skill.canonical,
    kind: "untrusted",
    problem: "project skill not trusted by you (its instructions can be read; no code runs)",
    fix: `review it (\`skills info ${skill.canonical}\`), then \`skills trust ${skill.canonical}\``,
    severity: "note",
  }));
}

/** The folder names a vercel-labs lockfile's entries explain (their canonical names). */
export function foreignKeys(entries: readonly { name: string }[]): Record<string, true> {
  const keys: Record<string, true> = {};
  for (const entry of entries) {
    const key = publishedSkillKey(entry.name);
    if (key !== undefined) keys[key] = true;
  }
  return keys;
}
