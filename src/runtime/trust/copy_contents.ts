/**
 * What a verified copy's own files say (its manifest, scripts, resources), kept in the copy's
 * stamp (verified_copy.ts; a bundled skill's in `bundled-<name>.record.json`) so that a run
 * does not load the manifest parser and the YAML library (~5 ms, most of it cold code) to
 * read the same verified bytes again.
 *
 * The contents are used only for the copy it was read from, at the digest the copy was just
 * verified to have (the stamp's run digest, or a bundled skill's build-time digest), by the
 * version of skills that wrote it: a copy made again, a changed file, another folder or an
 * upgrade means the manifest is read again. It lives where the copy's stamp and its
 * stat-keyed hashes live (`$SKILLS_HOME/.cache/run`), which the verification itself already
 * relies on: whoever could write poisoned contents there could write a poisoned hashes
 * cache, or the registry, just as well. Still, they are used only while what runs stays
 * in the copy (its manifest in the copy's folder, each script in its `scripts/` folder, as
 * reading the copy gives them), and inside the OS sandbox scripts do not see `$SKILLS_HOME`.
 */

import type { LoadedSkill } from "../catalog/loader.ts";
import { VERSION } from "../../core/version.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import { dirname, join } from "../os/paths.ts";

/** 2: resource folders and other files listed 16 folders deep (catalog/contents.ts). */
const CONTENTS_VERSION = 2;

/** The part of a loaded skill that comes from the copy's files (the rest comes from the listing). */
type CopyContents = Pick<
  LoadedSkill,
  "dir" | "skillMdPath" | "manifest" | "scripts" | "references" | "assets" | "files" | "warnings"
>;

interface Stored {
  version: number;
  cli: string;
  /** The digest the copy's files were verified to have when the contents were read. */
  digest: string;
  contents: CopyContents;
}

export function copyContents(skill: LoadedSkill): CopyContents {
  const { dir, skillMdPath, manifest, scripts, references, assets, files, warnings } = skill;
  return { dir, skillMdPath, manifest, scripts, references, assets, files, warnings };
}

/** The stored contents of the copy in `dir` at `digest`, or undefined (absent, stale, malformed). */
export function checkedContents(
  stored: unknown,
  dir: string,
  digest: string,
): CopyContents | undefined {
  const record = stored as Partial<Stored> | null | undefined;
  if (
    record === null || typeof record !== "object" || record.version !== CONTENTS_VERSION ||
    record.cli !== VERSION || record.digest !== digest
  ) return undefined;
  const contents = record.contents;
  if (
    contents === null || typeof contents !== "object" || contents.dir !== dir ||
    typeof contents.skillMdPath !== "string" || dirname(contents.skillMdPath) !== dir ||
    contents.manifest === null || typeof contents.manifest !== "object" ||
    ![contents.scripts, contents.references, contents.assets, contents.files, contents.warnings]
      .every(Array.isArray) ||
    !contents.scripts.every((script) => inScripts(script, dir))
  ) return undefined;
  return contents;
}

/** The record kept in the file at `path` (a bundled skill's), unchecked; undefined if none. */
export function readStoredContents(path: string): unknown {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined; // none kept yet, or unreadable: the manifest is read
  }
}

/** A script of the copy's own `scripts/` folder, where reading the copy would have found it. */
function inScripts(script: CopyContents["scripts"][number], dir: string): boolean {
  if (script === null || typeof script !== "object") return false;
  const { file, path } = script;
  return typeof file === "string" && typeof path === "string" &&
    !file.split("/").some((part) => part === "" || part === "." || part === "..") &&
    path === join(dir, "scripts", ...file.split("/"));
}

/**
 * The record that keeps the contents for the next run, when JSON holds them exactly (a
 * manifest value JSON cannot spell, such as YAML's `.inf`, means the manifest is read again
 * each time): undefined otherwise.
 */
export function storedContents(digest: string, contents: CopyContents): unknown {
  const stored: Stored = { version: CONTENTS_VERSION, cli: VERSION, digest, contents };
  return sameJson(JSON.parse(JSON.stringify(stored)).contents, contents) ? stored : undefined;
}

/**
 * Keeps a record from {@link storedContents} in the file at `path`. Best effort: a failed
 * write only costs the next run the parse.
 */
export function writeStoredContents(path: string, stored: unknown): void {
  try {
    writeFileAtomicSync(path, JSON.stringify(stored), { durable: false });
  } catch {
    // read-only home, full disk: the contents are read from the copy again next time
  }
}

/** Whether `a` (parsed from JSON) is `b` as JSON spells it: undefined members aside. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof b === "number") return a === b;
  if (b === null || typeof b !== "object") return a === b;
  if (a === null || typeof a !== "object" || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(b)) {
    const list = a as unknown[];
    return list.length === b.length && b.every((item, i) => sameJson(list[i], item));
  }
  const prototype = Object.getPrototypeOf(b);
  if (prototype !== Object.prototype && prototype !== null) return false; // a Date: not JSON
  const object = a as Record<string, unknown>;
  const defined = Object.entries(b).filter(([, value]) => value !== undefined);
  return Object.keys(object).length === defined.length &&
    defined.every(([key, value]) => Object.hasOwn(object, key) && sameJson(object[key], value));
}
