/**
 * The project lockfile (`skills-lock.json` at the repository root, committed with the code):
 * for each project skill, where it comes from (source, the ref/branch/tag asked for, the
 * commit it resolved to, the path inside the repository), what it is (the sha256 of every
 * file and the digest of the whole skill, as trust computes it) and the `permissions.env`
 * the user approved. A versioned schema (`lockfileVersion`), keys sorted, no timestamps, so
 * two branches that add different skills merge cleanly.
 *
 * The file comes from the repository, so it is untrusted input: every field is checked
 * with the validation kit, and every path and name in it again where it is used.
 *
 * The file is shared with vercel-labs' `skills` CLI (see peer_lockfile.ts): this tool writes
 * that CLI's `version: 1` and per-entry fields (`source`, `sourceType`, `sourceUrl`, `ref`,
 * `skillPath`, `computedHash`, a sha256 over the sorted paths and bytes) beside its own,
 * under `lockfileVersion: 2`. A file only that CLI wrote — or one where it rewrote some
 * entries, dropping this tool's fields — says where to fetch from but pins no commit: this
 * tool resolves commits anew (see {@link parseLockfileText}). `lockfileVersion: 1` files
 * (this tool's fields only, `source` an object) are still read.
 */

import {
  foreignEntries,
  type ForeignLockedSkill,
  fromSharedEntry,
  isPinnedEntry,
  PEER_DOCUMENT,
  PEER_VERSION,
  toSharedEntry,
} from "./peer_lockfile.ts";
import { canonicalSkillName, isValidSkillName, publishedSkillKey } from "../names.ts";
import { isNpmRevision } from "../sources/npm_source.ts";
import {
  array,
  custom,
  formatIssue,
  integer,
  isPlainObject,
  nullable,
  object,
  oneOf,
  optional,
  record,
  string,
  type Validator,
} from "../manifest/validation.ts";

// Its name at a root, LOCKFILE_NAME, is declared with the scopes (scope.ts).
/** 2: the file vercel-labs' CLI reads too; 1: this tool's fields only (still read). */
const LOCKFILE_VERSION = 2;
/** A lockfile larger than this is refused outright (bounded memory). */
export const MAX_LOCKFILE_BYTES = 16 * 1024 * 1024;
const MAX_FILES_PER_SKILL = 20_000;
const SHA256 = /^[0-9a-f]{64}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const COMMIT = /^[0-9a-f]{40}$/;
/** A git commit, the manifest digest an OCI source is pinned to, or an npm revision. */
const COMMIT_OR_DIGEST =
  /^(?:[0-9a-f]{40}|sha256:[0-9a-f]{64}|\d+\.\d+\.\d+[0-9A-Za-z.+-]*(?:@sha(?:512|384|256|1)-[A-Za-z0-9+/]+={0,2})?)$/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface LockedSource {
  /**
   * `git`: a clone URL (or GitHub shorthand); `local`: a directory (relative to the root);
   * `oci`: `oci://registry/repository` (the tag is in `tag`, the digest in `commit`);
   * `web`: a site with a well-known index (`subpath` the skill's name there) or a file's URL
   * (the digest of the index entry or of the file in `commit`); `npm`: `npm:<package>` (the
   * range followed in `tag`, `<version>@<integrity>` in `commit`, the folder in `subpath`).
   */
  type: "git" | "local" | "oci" | "web" | "npm";
  url: string;
  /** The skill's folder inside the repository ("" for the root). */
  subpath: string;
  [extra: string]: unknown;
}

export interface LockedSkill {
  /** The name as the skill's SKILL.md spells it; the entry's key is its canonical form. */
  name: string;
  source: LockedSource;
  /** What was asked for: a branch or tag to follow, or a ref / commit that pins. */
  branch: string | null;
  tag: string | null;
  ref: string | null;
  /**
   * The commit the request resolved to (git sources), the manifest digest (`sha256:…`) an OCI
   * tag resolved to, null for a local directory.
   */
  commit: string | null;
  /** Digest of the whole skill (`sha256:…`, as `skills trust` computes it). */
  digest: string;
  /** Relative path (with `/`) → hex sha256 of the file's bytes, for every file. */
  files: Record<string, string>;
  /**
   * What the user approved when the skill was locked: `env` patterns, and `network` (`*`
   * for any public host, then each grant; absent in lockfiles written before it was kept),
   * and `services`: the scripts it may keep running (absent when it declares none).
   */
  permissions: { env: string[]; network?: string[]; services?: string[]; [extra: string]: unknown };
  /**
   * vercel-labs' digest of the files (see {@link foreignComputedHash}), written for that CLI;
   * set when the lockfile is written from the folder whose files the entry lists.
   */
  computedHash?: string;
  /** Fields written by newer versions are kept, never dropped. */
  [extra: string]: unknown;
}

export interface Lockfile {
  lockfileVersion: number;
  skills: Record<string, LockedSkill>;
  [extra: string]: unknown;
}

type ParsedLockfile =
  | { ok: true; format: "skills"; lock: Lockfile }
  | { ok: true; format: "vercel"; entries: ForeignLockedSkill[] }
  | { ok: false; reason: string };

export function emptyLockfile(): Lockfile {
  return { lockfileVersion: LOCKFILE_VERSION, skills: {} };
}

/** A relative path inside a skill: no traversal, no absolute or Windows forms. */
export function safeRelativePath(path: string): boolean {
  if (path === "" || path.length > 1024 || CONTROL.test(path)) return false;
  if (path.startsWith("/") || path.includes("\\") || /^[A-Za-z]:/.test(path)) return false;
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

const text = string();
const nullableText = nullable(text);

const FILES = custom<Record<string, string>>("object of sha256 by path", (value) => {
  const problem = record(string({ pattern: SHA256 }), { maxKeys: MAX_FILES_PER_SKILL })(value);
  if (problem !== undefined) return problem;
  const paths = Object.keys(value as Record<string, string>);
  const bad = paths.find((p) => !safeRelativePath(p));
  if (bad !== undefined) {
    return { path: [bad], message: "is not a relative path inside the skill" };
  }
  if (!paths.includes("SKILL.md")) return { path: [], message: "does not list SKILL.md" };
  return undefined;
});

const ENTRY: Validator<LockedSkill> = object({
  name: text,
  source: object({
    type: oneOf("git", "local", "oci", "web", "npm"),
    url: string({ min: 1 }),
    subpath: text,
  }),
  branch: nullableText,
  tag: nullableText,
  ref: nullableText,
  commit: nullable(string({ pattern: COMMIT_OR_DIGEST })),
  digest: string({ pattern: DIGEST }),
  files: FILES,
  permissions: object({
    env: array(text),
    network: optional(array(text)),
    services: optional(array(text)),
  }),
  computedHash: optional(string({ pattern: SHA256 })),
});

const LOCKFILE: Validator<Lockfile> = object({
  lockfileVersion: integer({ min: 1 }),
  skills: record(ENTRY),
});

/** Checks the parts the kit cannot: keys, the key ↔ name match, source kinds, commits. */
function entryProblem(key: string, entry: LockedSkill): string | undefined {
  if (!isValidSkillName(key) || canonicalSkillName(key) !== key) {
    return `skills.${key}: the key is not a canonical skill name`;
  }
  if (publishedSkillKey(entry.name) !== key) {
    return `skills.${key}.name: '${entry.name}' is not the skill named by the key`;
  }
  if (entry.source.type === "git" && (entry.commit === null || !COMMIT.test(entry.commit))) {
    return `skills.${key}.commit: a git source needs the commit it resolved to`;
  }
  if (entry.source.type === "oci" && (entry.commit === null || !DIGEST.test(entry.commit))) {
    return `skills.${key}.commit: an OCI source needs the manifest digest it resolved to`;
  }
  if (entry.source.type === "web" && (entry.commit === null || !DIGEST.test(entry.commit))) {
    return `skills.${key}.commit: a website source needs the digest it was installed at`;
  }
  if (
    entry.source.type === "npm" &&
    (entry.commit === null || !isNpmRevision(entry.commit) || !/^npm:/.test(entry.source.url))
  ) {
    return `skills.${key}.commit: an npm source needs the version (and integrity) it resolved to`;
  }
  if (entry.source.type === "local" && (entry.commit !== null || entry.source.subpath !== "")) {
    return `skills.${key}: a local source has no commit and no subpath`;
  }
  for (
    const value of [entry.source.url, entry.source.subpath, entry.branch, entry.tag, entry.ref]
  ) {
    if (value !== null && CONTROL.test(value)) return `skills.${key}: control characters`;
  }
  return undefined;
}

/**
 * Reads lockfile text: this tool's format, or a vercel-labs `skills` lockfile (whose entries
 * name a source and a path but no commit). Never guesses: anything unexpected is a reason.
 */
export function parseLockfileText(textInput: string): ParsedLockfile {
  let data: unknown;
  try {
    data = JSON.parse(textInput);
  } catch (error) {
    return { ok: false, reason: `is not valid JSON (${(error as Error).message})` };
  }
  const version = isPlainObject(data) ? data.lockfileVersion : undefined;
  if (typeof version === "number" && version > LOCKFILE_VERSION) {
    return {
      ok: false,
      reason:
        `was written by a newer skills (lockfileVersion ${version}, this one reads ${LOCKFILE_VERSION})`,
    };
  }
  if (isPlainObject(data) && version === 1 && !("version" in data)) return parseVersion1(data);
  const problem = PEER_DOCUMENT(data);
  if (problem !== undefined) {
    return {
      ok: false,
      reason: formatIssue(problem, "is neither this tool's lockfile nor") +
        " a skills-lock.json of vercel-labs' skills CLI",
    };
  }
  const shared = data as { skills: Record<string, Record<string, unknown>> };
  const entries = Object.values(shared.skills);
  if (!entries.every(isPinnedEntry)) {
    // Some entries are the peer's own: read them all as the peer does, commits resolved anew.
    return { ok: true, format: "vercel", entries: foreignEntries(shared) };
  }
  const { version: _peer, lockfileVersion: _ours, skills: rawSkills, ...extras } = data as Record<
    string,
    unknown
  >;
  const skills: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(rawSkills as Record<string, Record<string, unknown>>)) {
    skills[key] = fromSharedEntry(raw);
  }
  return checkLock({ ...extras, lockfileVersion: LOCKFILE_VERSION, skills });
}

/** `lockfileVersion: 1`: this tool's fields only, `source` an object. */
function parseVersion1(data: Record<string, unknown>): ParsedLockfile {
  return checkLock(data);
}

function checkLock(data: unknown): ParsedLockfile {
  const problem = LOCKFILE(data);
  if (problem !== undefined) {
    return { ok: false, reason: formatIssue(problem, "does not match the lockfile schema") };
  }
  const lock = data as Lockfile;
  for (const [key, entry] of Object.entries(lock.skills)) {
    const reason = entryProblem(key, entry);
    if (reason !== undefined) return { ok: false, reason: `is invalid at ${reason}` };
  }
  return { ok: true, format: "skills", lock };
}

function sortedRecord<T>(input: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(input).sort()) out[key] = input[key]!;
  return out;
}

/**
 * The file's text, shared with vercel-labs' CLI (see peer_lockfile.ts): skills and files
 * sorted by key, two-space indent, a final newline.
 */
export function serializeLockfile(lock: Lockfile): string {
  const skills: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(sortedRecord(lock.skills))) {
    skills[key] = toSharedEntry({ ...entry, files: sortedRecord(entry.files) });
  }
  const { lockfileVersion: _old, skills: _skills, ...extras } = lock;
  return JSON.stringify(
    { version: PEER_VERSION, lockfileVersion: LOCKFILE_VERSION, ...extras, skills },
    null,
    2,
  ) + "\n";
}

/** A new lockfile with `entry` added or replaced under its canonical name. */
export function withLockedSkill(lock: Lockfile, key: string, entry: LockedSkill): Lockfile {
  return { ...lock, skills: { ...lock.skills, [key]: entry } };
}

export function withoutLockedSkill(lock: Lockfile, key: string): Lockfile {
  const skills = { ...lock.skills };
  delete skills[key];
  return { ...lock, skills };
}

export interface FileDrift {
  path: string;
  /** `changed`: other bytes; `added`: not in the lockfile; `removed`: listed but absent. */
  change: "changed" | "added" | "removed";
}

/** How a skill's files (path → sha256) differ from what the lockfile lists. */
export function diffFiles(
  locked: Readonly<Record<string, string>>,
  actual: ReadonlyMap<string, string>,
): FileDrift[] {
  const out: FileDrift[] = [];
  for (const [path, sha] of Object.entries(locked)) {
    const found = actual.get(path);
    if (found === undefined) out.push({ path, change: "removed" });
    else if (found !== sha) out.push({ path, change: "changed" });
  }
  for (const path of actual.keys()) {
    if (!Object.hasOwn(locked, path)) out.push({ path, change: "added" });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What a SKILL.md asks for, in the lockfile's terms. */
export interface StatedPermissions {
  env: readonly string[];
  network: readonly string[];
}

/**
 * Why what SKILL.md asks differs from what the lockfile approved, or undefined: env
 * patterns, and the network grants when the lockfile recorded them. `where` names the copy.
 */
export function permissionsProblem(
  approved: LockedSkill["permissions"],
  stated: StatedPermissions | undefined,
  where = "SKILL.md",
): string | undefined {
  if (stated === undefined) {
    return `the permissions of ${where} cannot be read (skills-lock.json approves env [${
      approved.env.join(", ")
    }])`;
  }
  if (!samePatterns(stated.env, approved.env)) {
    return `permissions.env differ: skills-lock.json approves [${
      approved.env.join(", ")
    }], ${where} asks [${stated.env.join(", ")}]`;
  }
  if (approved.network !== undefined && !samePatterns(stated.network, approved.network)) {
    return `permissions.network differ: skills-lock.json approves [${
      approved.network.join(", ")
    }], ${where} asks [${stated.network.join(", ")}]`;
  }
  return undefined;
}

/** Whether two `permissions.env` lists allow the same patterns (order does not matter). */
export function samePatterns(a: readonly string[], b: readonly string[]): boolean {
  const left = [...new Set(a)].sort();
  const right = [...new Set(b)].sort();
  return left.length === right.length && left.every((v, i) => v === right[i]);
}

/**
 * The folder a vercel-labs entry's `skillPath` names: `skills/pdf/SKILL.md` and
 * `skills/pdf` both mean `skills/pdf`; undefined when it is not a safe relative path.
 */
export function foreignSkillFolder(skillPath: string | null): string | undefined {
  if (skillPath === null) return "";
  const trimmed = skillPath.replace(/^\.\//, "").replace(/\/+$/, "");
  const folder = /(^|\/)SKILL\.md$/i.test(trimmed)
    ? trimmed.split("/").slice(0, -1).join("/")
    : trimmed;
  if (folder === "") return "";
  return safeRelativePath(folder) && !folder.split("/").includes(".git") ? folder : undefined;
}

/**
 * The `services` a lock entry keeps of a manifest's `permissions.services`: the scripts, or
 * nothing at all when it declares none (entries written before it was kept read the same).
 */
export function declaredServices(
  services: readonly string[] | undefined,
): { services?: string[] } {
  return services === undefined || services.length === 0 ? {} : { services: [...services] };
}

/** A lock entry's permissions without `services` (an update states them anew). */
export function withoutServices(
  permissions: LockedSkill["permissions"],
): LockedSkill["permissions"] {
  const { services: _before, ...kept } = permissions;
  return kept as LockedSkill["permissions"];
}
