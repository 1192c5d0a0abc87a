/**
 * What updating one skill means, whatever its scope — a skill installed in `$SKILLS_HOME`
 * (registry entry) or a project's locked skill (skills-lock.json entry): which ref it follows,
 * whether that ref moved (one ls-remote per remote for the whole command), and when it moved,
 * whether the skill's own folder changed at the new commit. A repository holds many skills
 * and most commits touch few of them, so a moved ref alone says nothing about a skill: the
 * folder's digest at the new commit is compared with the digest recorded for it. The fetch
 * that answers is made once per remote and ref for the whole command, however many skills
 * come from it. `skills outdated` and `skills update` of both scopes ask here; each scope
 * then stages and commits its own way (update.ts, project/update.ts).
 */

import { dirname, join } from "../os/paths.ts";
import { type ChangeSummary, summarizeChanges } from "../../core/records/changes.ts";
import { SkillError } from "../../core/errors.ts";
import type { Diagnostic, Manifest } from "../../core/manifest/manifest.ts";
import {
  type RefRequest,
  type ResolvedSource,
  type Transport,
  validateSubpath,
} from "../../core/sources/sources.ts";
import { inContext } from "../git/command.ts";
import { trackedCommit } from "../git/fetch.ts";
import { lstatOrNull, removeIfExists } from "../os/fs.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { ociTagDigest } from "../oci/pull.ts";
import type { Fetched } from "./fetch_source.ts";
import type { Scope } from "../../core/records/scope.ts";
/** A skill that follows something upstream, as either scope records it. */
export interface TrackedSkill {
  /** The name commands and messages use (registry canonical name, or lockfile key). */
  name: string;
  scope: Scope["kind"];
  /** The whole repository (subpath ""), or the local directory the skill is copied from. */
  source: ResolvedSource;
  /** The skill's folder inside the repository ("" for its root; "" for a directory). */
  subpath: string;
  branch: string | null;
  tag: string | null;
  ref: string | null;
  /** The commit its files were taken from (null for a directory). */
  commit: string | null;
  /** The digest recorded for its files (null when none was kept: any move is a change). */
  digest: string | null;
}

/** What a planner borrows from the command's change: its remote and fetch caches. */
export interface PlannerWorkspace {
  /** A remote's branches and tags, asked once per remote for the whole command. */
  remoteRefs(url: string, transport: Transport): Promise<ReadonlyMap<string, string>>;
  /** A source's files at `request`, fetched once per source and ref for the whole command. */
  fetchShared(source: ResolvedSource, request: RefRequest): Promise<Fetched>;
}

/**
 * - `pinned`: follows a fixed ref; left alone unless moved with --ref.
 * - `up_to_date`: the followed ref did not move (or, for a directory, its files are the same).
 * - `moved`: the repository moved, but this skill's folder is the same as recorded.
 * - `changed`: the skill's folder differs at `latest` (or the ref is moved on request).
 */
type Assessment =
  | { status: "pinned"; latest: string | null }
  | { status: "up_to_date"; latest: string | null; found?: FoundSkill }
  | { status: "moved"; latest: string | null; found: FoundSkill }
  | { status: "changed"; latest: string | null; found: FoundSkill };

/** The skill's folder as the new version has it (inside the command's shared fetch). */
interface FoundSkill {
  fetched: Fetched;
  /** The folder, or null when the new version has no SKILL.md at the recorded path. */
  dir: string | null;
  /** Its digest as the scope computes it (null when `dir` is). */
  digest: string | null;
}

interface AssessOptions {
  /** `--ref/--branch/--tag`: move the skill to this ref (its files are fetched there). */
  request?: RefRequest | undefined;
  /** The scope's digest of a folder (registry and lockfile count files the same way). */
  digestOf: (dir: string) => Promise<string>;
}

/** The ref an update follows: the one asked for, else what the skill records; null if pinned. */
function followedRef(
  skill: Pick<TrackedSkill, "source" | "branch" | "tag" | "ref">,
  request?: RefRequest,
): RefRequest | null {
  if (request !== undefined) return request;
  if (skill.source.type === "local") return { kind: "default" };
  if (skill.tag !== null) return { kind: "tag", name: skill.tag };
  if (skill.branch !== null) return { kind: "branch", name: skill.branch };
  if (skill.ref !== null) return null;
  return { kind: "default" };
}

/**
 * Where the skill stands upstream. Nothing is fetched when its branch or tag still points at
 * the recorded commit; otherwise its folder is read from the command's shared fetch.
 */
export async function assessSkill(
  skill: TrackedSkill,
  workspace: PlannerWorkspace,
  options: AssessOptions,
): Promise<Assessment> {
  const request = followedRef(skill, options.request);
  if (request === null) return { status: "pinned", latest: skill.commit };
  const source = skill.source;
  if (
    source.type === "git" && options.request === undefined &&
    (request.kind === "branch" || request.kind === "tag")
  ) {
    const refs = await workspace.remoteRefs(source.url, source.transport).catch((error) => {
      throw inContext(`Cannot update skill '${skill.name}'`, error);
    });
    const latest = trackedCommit(refs, request);
    if (latest === null) {
      throw new SkillError(
        "not_found",
        `Cannot update skill '${skill.name}': ${request.kind} '${request.name}' no longer exists in ${source.url}`,
        { hint: `Move it with \`skills update ${skill.name} --ref <ref>\`` },
      );
    }
    if (latest === skill.commit) return { status: "up_to_date", latest };
  }
  if (source.type === "oci" && options.request === undefined && request.kind === "tag") {
    // A tag is the registry's moving pointer: the manifest digest it names now is the
    // "commit", asked for without pulling anything.
    const latest = await ociTagDigest(source.url, request.name).catch((error) => {
      throw inContext(`Cannot update skill '${skill.name}'`, error);
    });
    if (latest === skill.commit) return { status: "up_to_date", latest };
  }
  const fetched = await workspace.fetchShared(source, request).catch((error) => {
    throw inContext(`Cannot update skill '${skill.name}'`, error);
  });
  const dir = await skillFolder(fetched, skill.subpath);
  const digest = dir === null ? null : await options.digestOf(dir);
  const found: FoundSkill = { fetched, dir, digest };
  const latest = fetched.commit?.sha ?? null;
  const sameFiles = digest !== null && digest === skill.digest;
  if (!sameFiles || options.request !== undefined) return { status: "changed", latest, found };
  if (latest === skill.commit) return { status: "up_to_date", latest, found };
  return { status: "moved", latest, found };
}

/** The skill's folder in a fetch (root + subpath), or null when it has no SKILL.md there. */
async function skillFolder(fetched: Fetched, subpathInput: string): Promise<string | null> {
  const subpath = validateSubpath(subpathInput, subpathInput);
  const dir = subpath === "" ? fetched.root : join(fetched.root, ...subpath.split("/"));
  const info = await lstatOrNull(join(dir, "SKILL.md"));
  if (info === null || !info.isFile) return null;
  // A skill at the repository's root: the clone's own git data is not one of its files.
  if (subpath === "") await removeIfExists(join(dir, ".git"));
  return dir;
}

/** The new version has no SKILL.md where the skill was. */
export function missingSkillError(name: string, subpath: string): SkillError {
  return new SkillError(
    "not_found",
    `Cannot update skill '${name}': no SKILL.md at '${subpath || "."}' in the new version`,
    { hint: "The skill may have moved in its repository; remove it and add it again" },
  );
}

/** The new version of a skill, validated, with what it changes in the folder in use now. */
interface NewVersion {
  manifest: Manifest;
  /** Its warnings (the folder-name one aside: the skill keeps the name it is kept under). */
  warnings: Diagnostic[];
  changes: ChangeSummary;
}

/**
 * Reads the new version at `dir` and compares it with the folder in use (`current`): an
 * invalid new version is refused, and `kept` ("installed", "locked") says what stays.
 */
export async function readNewVersion(
  name: string,
  dir: string,
  current: string,
  kept: "installed" | "locked",
): Promise<NewVersion> {
  const inspected = await inspectSkillDir(dir);
  const errors = inspected.diagnostics.filter((d) => d.level === "error");
  if (errors.length > 0 || inspected.manifest === undefined) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot update skill '${name}': the new version is invalid: ${
        errors.map((e) => `${e.message}${e.line ? ` (line ${e.line})` : ""}`).join("; ")
      }`,
      { hint: `The ${kept} version was left unchanged` },
    );
  }
  const oldManifest = await inspectSkillDir(current)
    .then((r) => r.manifest as Manifest | undefined).catch(() => undefined);
  const changes = summarizeChanges(
    await fileHashes(current),
    await fileHashes(dir),
    oldManifest,
    inspected.manifest,
  );
  const warnings = inspected.diagnostics.filter((d) =>
    d.level === "warning" && !d.message.includes("differs from the directory")
  );
  return { manifest: inspected.manifest, warnings, changes };
}

/**
 * Copies a skill's folder out of a shared fetch exactly (every file with its mode, symlinks
 * as symlinks), so that moving one skill into place never takes another skill's files along.
 * `to` must not exist.
 */
export async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(dirname(to), { recursive: true });
  const walk = async (src: string, dest: string) => {
    await Deno.mkdir(dest);
    for await (const entry of Deno.readDir(src)) {
      const s = join(src, entry.name);
      const d = join(dest, entry.name);
      if (entry.isSymlink) await Deno.symlink(await Deno.readLink(s), d);
      else if (entry.isDirectory) await walk(s, d);
      else if (entry.isFile) {
        await Deno.copyFile(s, d);
        const mode = (await Deno.lstat(s)).mode;
        if (mode !== null) await Deno.chmod(d, mode & 0o777);
      }
    }
  };
  await walk(from, to);
}

/**
 * What a new version's fetch says about an entry's tracking, in either scope: the branch,
 * tag and ref of its commit (a directory has none: the entry keeps its own), and who signed
 * it under a signer policy — never a signer of the old version.
 */
export function followedVersion(
  fetched: Pick<Fetched, "commit" | "signed">,
  old: { branch: string | null; tag: string | null; ref: string | null },
): {
  branch: string | null;
  tag: string | null;
  ref: string | null;
  signed: Fetched["signed"];
} {
  const commit = fetched.commit;
  return {
    branch: commit === null ? old.branch : commit.branch,
    tag: commit === null ? old.tag : commit.tag,
    ref: commit === null ? old.ref : commit.ref,
    signed: fetched.signed,
  };
}
