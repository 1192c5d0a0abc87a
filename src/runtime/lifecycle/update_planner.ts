/**
 * `skills update` of one skill below the CLI, whatever its scope — a skill installed in
 * `$SKILLS_HOME` (registry entry) or a project's locked skill (skills-lock.json entry) —
 * as one planner, `planUpdate(scope, …)`, in the shape of the install planner
 * (install_plan.ts). The deciding part: which ref the skill follows, whether that ref moved
 * (one ls-remote per remote for the whole command), and when it moved, whether the skill's
 * own folder changed at the new commit. A repository holds many skills and most commits
 * touch few of them, so a moved ref alone says nothing about a skill: the folder's digest at
 * the new commit is compared with the digest recorded for it. The fetch that answers is made
 * once per remote and ref for the whole command, however many skills come from it (and
 * under a signer policy, verified once: change.ts). When the folder changed, the same steps
 * for every skill: its folder copied out of that fetch, validated, its changes summarised,
 * audited (new critical findings refuse it unless accepted with --allow-risky), and the
 * record the commit writes built. An `UpdateLedger` per scope answers only where the folder
 * is, how its files compare with the record, and which record — a registry entry or a lock
 * entry — the commit writes. `skills outdated` asks the deciding part only; a Change
 * (change.ts) lends the caches and staging and commits either scope's plans.
 */

import { dirname, join } from "../os/paths.ts";
import * as PLATFORM_PATHS from "../os/paths.ts";
import { networkList } from "../../core/policy/net_grants.ts";
import {
  auditAdded,
  type AuditDelta,
  type AuditReport,
  auditSkill,
  type Finding,
} from "../../core/audit/engine.ts";
import { type ChangeSummary, summarizeChanges } from "../../core/records/changes.ts";
import { SkillError } from "../../core/errors.ts";
import type { Diagnostic, Manifest } from "../../core/manifest/manifest.ts";
import {
  declaredServices,
  type LockedSkill,
  withoutServices,
} from "../../core/records/lockfile.ts";
import { approvedServices, type RegistryEntry } from "../../core/records/registry.ts";
import type { ProjectScope, Scope, UserScope } from "../../core/records/scope.ts";
import {
  isFullSha,
  ociSource,
  type ParsedGitSource,
  parseSource,
  type RefRequest,
  type ResolvedSource,
  type Transport,
  validateSubpath,
} from "../../core/sources/sources.ts";
import { inContext } from "../git/command.ts";
import { trackedCommit } from "../git/fetch.ts";
import { exists, fileTurns, lstatOrNull, removeIfExists } from "../os/fs.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import { computeDigest, fileHashes } from "../trust/file_hashes.ts";
import { ociTagDigest, ociTags } from "../oci/pull.ts";
import { indexedDigest } from "../web/fetch_web.ts";
import { bestTag } from "../../core/sources/requirements.ts";
import { webSource } from "../../core/sources/web_source.ts";
import { npmRecordSource } from "../../core/sources/npm_source.ts";
import { auditDir } from "../audit/scan.ts";
import type { Fetched } from "./fetch_source.ts";
import { acceptance } from "./install_plan.ts";
import { describeFiles, diskDrift, projectSkillDir, sourceOfLocked } from "./lock_entries.ts";
import { resolveParsed } from "./resolve_source.ts";
import { assertManaged, describeTracking } from "./update_installed.ts";

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
  /**
   * The semver ranges the skills that require it ask of its git tags (a dependency's record:
   * `version_ranges` / `versionRanges`): an update moves it to the highest tag that satisfies
   * them all, never past them.
   */
  ranges?: readonly string[];
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
  /** The folder, or null when the new version has the skill nowhere. */
  dir: string | null;
  /** Its digest as the scope computes it (null when `dir` is). */
  digest: string | null;
  /**
   * Its path in the source: the recorded one, or where the skill moved to in its repository
   * (named_skills.ts), which the update records.
   */
  subpath: string;
}

interface AssessOptions {
  /** `--ref/--branch/--tag`: move the skill to this ref (its files are fetched there). */
  request?: RefRequest | undefined;
  /** The scope's digest of a folder (registry and lockfile count files the same way). */
  digestOf: (dir: string) => Promise<string>;
  /**
   * The folder of the version in use: the name its SKILL.md declares finds the skill in a
   * repository that moved it (else the skill's own name is looked for).
   */
  installedAt?: string | undefined;
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
  const request = await withinRanges(skill, workspace, options) ??
    followedRef(skill, options.request);
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
  if (source.kind === "well-known" && options.request === undefined) {
    // The index gives each skill's digest: asked for without downloading the skill.
    const latest = await indexedDigest(source.url, source.subpath).catch((error) => {
      throw inContext(`Cannot update skill '${skill.name}'`, error);
    });
    if (latest !== null && latest === skill.commit) return { status: "up_to_date", latest };
  }
  const fetched = await workspace.fetchShared(source, request).catch((error) => {
    throw inContext(`Cannot update skill '${skill.name}'`, error);
  });
  const { dir, subpath } = await locate(skill, fetched, options.installedAt);
  const digest = dir === null ? null : await options.digestOf(dir);
  const found: FoundSkill = { fetched, dir, digest, subpath };
  const latest = fetched.commit?.sha ?? null;
  const sameFiles = digest !== null && digest === skill.digest && subpath === skill.subpath;
  if (!sameFiles || options.request !== undefined) return { status: "changed", latest, found };
  if (latest === skill.commit) return { status: "up_to_date", latest, found };
  return { status: "moved", latest, found };
}

/**
 * A dependency with ranges follows the highest tag of its repository that satisfies them all
 * (undefined: no ranges, or the user moved it with --ref/--branch/--tag).
 */
async function withinRanges(
  skill: TrackedSkill,
  workspace: PlannerWorkspace,
  options: AssessOptions,
): Promise<RefRequest | undefined> {
  const source = skill.source;
  const tagged = source.type === "git" || source.type === "oci";
  if (!skill.ranges?.length || options.request !== undefined || !tagged) return undefined;
  const tags = await rangeTags(source, workspace).catch((error) => {
    throw inContext(`Cannot update skill '${skill.name}'`, error);
  });
  const best = bestTag(skill.ranges, tags);
  if (best === undefined) {
    throw new SkillError(
      "not_found",
      `Cannot update skill '${skill.name}': no tag of ${source.url} satisfies ${
        skill.ranges.join(" and ")
      } any more`,
    );
  }
  return { kind: "tag", name: best };
}

/** The tags a dependency's ranges choose among: its git remote's, or its OCI repository's. */
export async function rangeTags(
  source: ResolvedSource,
  workspace: Pick<PlannerWorkspace, "remoteRefs">,
): Promise<string[]> {
  if (source.type === "oci") return await ociTags(source.url);
  if (source.type !== "git") return [];
  const refs = await workspace.remoteRefs(source.url, source.transport);
  return [...refs.keys()]
    .filter((name) => name.startsWith("refs/tags/") && !name.endsWith("^{}"))
    .map((name) => name.slice("refs/tags/".length));
}

/** The ranges a dependency's record keeps (`version_ranges` / `versionRanges`). */
function rangesOf(entry: object): string[] | undefined {
  const raw = (entry as Record<string, unknown>).version_ranges ??
    (entry as Record<string, unknown>).versionRanges;
  if (!Array.isArray(raw)) return undefined;
  const ranges = raw.filter((r): r is string => typeof r === "string");
  return ranges.length > 0 ? ranges : undefined;
}

/**
 * The skill's folder in a repository's new version: at its recorded path, else where the
 * repository moved it (named_skills.ts); null when it is nowhere.
 */
async function locate(
  skill: TrackedSkill,
  fetched: Fetched,
  installedAt: string | undefined,
): Promise<{ dir: string | null; subpath: string }> {
  const dir = await skillFolder(fetched, skill.subpath);
  if (dir !== null || skill.source.type !== "git") return { dir, subpath: skill.subpath };
  const { declaredName, movedFolder } = await import("./named_skills.ts");
  const name = (installedAt === undefined ? undefined : await declaredName(installedAt)) ??
    skill.name;
  const moved = await movedFolder(fetched, name, {
    skill: skill.name,
    was: skill.subpath || ".",
  });
  if (moved === undefined) return { dir: null, subpath: skill.subpath };
  return { dir: await skillFolder(fetched, moved), subpath: moved };
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

/** The new version has the skill nowhere: not where it was, not moved (named_skills.ts). */
function missingSkillError(
  name: string,
  subpath: string,
  tracked: Pick<TrackedSkill, "source" | "commit">,
  kept: "installed" | "locked",
): SkillError {
  const git = tracked.source.type === "git";
  const elsewhere = git ? ", and no skill of its name is elsewhere in it" : "";
  const remove = kept === "locked" ? `skills remove ${name} --project` : `skills remove ${name}`;
  // Pinned where it is, it is left alone by the next updates instead of failing each.
  const pin = git && tracked.commit !== null
    ? `, \`skills update ${name} --ref ${tracked.commit.slice(0, 12)}\` pins it there`
    : "";
  return new SkillError(
    "not_found",
    `Cannot update skill '${name}': the new version has no SKILL.md at '${
      subpath || "."
    }'${elsewhere}: it was removed upstream`,
    { hint: `The ${kept} version is kept as it is: \`${remove}\` drops it${pin}` },
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
async function readNewVersion(
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
async function copyFolder(from: string, to: string): Promise<void> {
  Deno.mkdirSync(dirname(to), { recursive: true });
  // Sync calls, with a turn of the event loop now and then: see copyTree (fetch_source.ts).
  const turn = fileTurns();
  const walk = async (src: string, dest: string) => {
    Deno.mkdirSync(dest);
    for (const entry of Deno.readDirSync(src)) {
      await turn();
      const s = join(src, entry.name);
      const d = join(dest, entry.name);
      if (entry.isSymlink) Deno.symlinkSync(Deno.readLinkSync(s), d);
      else if (entry.isDirectory) await walk(s, d);
      else if (entry.isFile) {
        Deno.copyFileSync(s, d);
        const mode = Deno.lstatSync(s).mode;
        if (mode !== null) Deno.chmodSync(d, mode & 0o777);
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
function followedVersion(
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

/** `moved`: the repository moved, the skill's files did not; it is left as it is. */
type UpdateKind = "up_to_date" | "pinned" | "moved" | "update";

/** What updating one skill will do, whatever its scope: `entry` is the scope's record. */
interface UpdatePlanOf<E> {
  /** The scope whose record `entry` is. */
  scope: Scope["kind"];
  /** The registry's canonical name, or the lockfile's key. */
  canonical: string;
  entry: E;
  kind: UpdateKind;
  oldSha: string | null;
  newSha: string | null;
  /** What the entry follows after the update, e.g. "branch main". */
  tracking: string;
  /** The folder's files differ from what its record says (they would be discarded). */
  localChanges: boolean;
  /** Only for kind "update". */
  staged?: {
    /** What the plan staged in the change's staging (freed with it, or by `discard`). */
    root: string;
    /** The new version's folder. */
    dir: string;
    digest: string;
    changes: ChangeSummary;
    /** The record the commit writes. */
    entry: E;
    warnings: Diagnostic[];
    /** The new version's audit, and what it adds to the folder's in use now. */
    audit: { report: AuditReport; added: AuditDelta };
    /** New critical findings not accepted with --allow-risky: the update is refused. */
    risky: Finding[];
    /** The skill's folder moved in its repository (named_skills.ts): the record follows it. */
    moved?: { from: string; to: string };
  };
}

/** The update of a skill installed in `$SKILLS_HOME`: its registry entry. */
export type UpdatePlan = UpdatePlanOf<RegistryEntry>;
/** The update of a project's locked skill: its `skills-lock.json` entry. */
export type ProjectUpdatePlan = UpdatePlanOf<LockedSkill>;
/** The plan a scope's update makes. */
export type UpdatePlanFor<S extends Scope> = S extends UserScope ? UpdatePlan : ProjectUpdatePlan;
/** The record a scope keeps of a skill. */
export type RecordFor<S extends Scope> = S extends UserScope ? RegistryEntry : LockedSkill;

export interface PlanUpdateOptions {
  /** `--ref/--branch/--tag`: move the skill to this ref (also unpins). */
  request?: RefRequest | undefined;
  /** `--allow-risky`: accept new critical audit findings (the registry records it). */
  allowRisky?: boolean | undefined;
  now?: Date;
}

/** What the change lends a plan: its remote and fetch caches, a place to stage into. */
interface UpdateWorkspace extends PlannerWorkspace {
  /** A fresh directory path inside staging (not created yet), only asked for when staging. */
  fetchRoot: () => string;
}

/** The new version as the ledger records it. */
interface NewRecord {
  dir: string;
  /** Its new path in the source, when its repository moved it (else the record's stays). */
  movedTo?: string | undefined;
  manifest: Manifest;
  followed: ReturnType<typeof followedVersion>;
  commit: string | null;
  /** The new version's critical findings, and those it adds (the registry keeps acceptances). */
  critical: readonly Finding[];
  added: readonly Finding[];
}

/**
 * What a scope decides in an update, and only that: the skill as the deciding part sees it,
 * where its folder is, how that folder compares with the record, and the record the commit
 * writes — a registry entry for `$SKILLS_HOME`, a lock entry for a project.
 */
interface UpdateLedger<E> {
  tracked: TrackedSkill;
  /** Its folder in the scope. */
  target: string;
  /** What stays when the new version is refused: the "installed" or the "locked" one. */
  kept: "installed" | "locked";
  /** Its path in the source, for the error when the new version has none there. */
  subpath: string;
  /** The scope's digest of a folder (registry and lockfile count files the same way). */
  digestOf(dir: string): Promise<string>;
  /**
   * The folder against the record: `edited`, an update would discard those edits;
   * `restores`, an update puts the recorded files back even when upstream did not change.
   */
  onDisk(): Promise<{ edited: boolean; restores: boolean }>;
  record(next: NewRecord): Promise<{ entry: E; digest: string }>;
  /** Whether `next` follows what the record follows (else the update records the move). */
  follows(next: E): boolean;
}

/**
 * Decides and stages the update of one skill of `scope`, named `name` there (canonical name
 * or lockfile key), whose record is `entry`. Whatever it staged belongs to the change that
 * asked (removed with the change, or when it discards the plan).
 */
export async function planUpdate<S extends Scope>(
  scope: S,
  name: string,
  entry: RecordFor<S>,
  options: PlanUpdateOptions,
  workspace: UpdateWorkspace,
): Promise<UpdatePlanFor<S>> {
  const ledger =
    (scope.kind === "user"
      ? userLedger(scope, entry as RegistryEntry, options)
      : projectLedger(scope as ProjectScope, name, entry as LockedSkill)) as UpdateLedger<
        RecordFor<S>
      >;
  const tracked = ledger.tracked;
  const { edited, restores } = await ledger.onDisk();
  const base = {
    scope: scope.kind,
    canonical: name,
    entry,
    oldSha: tracked.commit,
    tracking: describeTracking(entry),
    localChanges: edited,
  };
  type Decided = Pick<UpdatePlanOf<RecordFor<S>>, "kind" | "newSha" | "staged"> & {
    tracking?: string;
  };
  const plan = (decided: Decided) => ({ ...base, ...decided }) as UpdatePlanFor<S>;
  const assessed = await assessSkill(tracked, workspace, {
    request: options.request,
    digestOf: (dir) => ledger.digestOf(dir),
    installedAt: ledger.target,
  });
  if (assessed.status === "pinned") return plan({ kind: "pinned", newSha: tracked.commit });
  // Up to date upstream: a folder that differs from its record on disk is still restored
  // where the scope says so (a project's), from the fetch that said it.
  if (assessed.status === "up_to_date" && (assessed.found === undefined || !restores)) {
    return plan({ kind: "up_to_date", newSha: assessed.latest });
  }
  if (assessed.status === "moved") return plan({ kind: "moved", newSha: assessed.latest });
  const { fetched, dir, subpath } = assessed.found!;
  if (dir === null) {
    throw missingSkillError(name, ledger.subpath, tracked, ledger.kept);
  }
  const staged = await stageNewVersion(name, ledger, { fetched, dir, subpath }, workspace, {
    ...options,
    auditHome: scope.home,
  });
  const sameCommit = fetched.commit === null || fetched.commit.sha === tracked.commit;
  const request = options.request;
  // Pinned to the same commit again: nothing to do, whatever it followed before.
  const pinnedAgain = request?.kind === "ref" && isFullSha(request.name) &&
    tracked.source.type === "git" && fetched.commit !== null;
  if (
    sameCommit && staged.digest === tracked.digest && !restores && staged.moved === undefined &&
    (pinnedAgain || ledger.follows(staged.entry))
  ) {
    return plan({ kind: "up_to_date", newSha: tracked.commit });
  }
  return plan({
    kind: "update",
    newSha: fetched.commit?.sha ?? null,
    tracking: describeTracking(staged.entry),
    staged,
  });
}

/**
 * The steps of staging a new version, the same in both scopes: the folder copied out of a
 * repository's shared fetch (a directory's copy or an artifact's pull is the plan's own),
 * validated, its changes summarised, audited against the folder in use, recorded.
 */
async function stageNewVersion<E>(
  name: string,
  ledger: UpdateLedger<E>,
  { fetched, dir: found, subpath }: { fetched: Fetched; dir: string; subpath: string },
  workspace: UpdateWorkspace,
  options: PlanUpdateOptions & { auditHome: string },
): Promise<NonNullable<UpdatePlanOf<E>["staged"]>> {
  // A repository's fetch is shared by all its skills: this one's folder is copied out, so
  // that moving it into place never takes another skill's files along.
  let root = fetched.root;
  let dir = found;
  if (ledger.tracked.source.type === "git") {
    root = workspace.fetchRoot();
    await copyFolder(found, root);
    dir = root;
  }
  const { manifest, warnings, changes } = await readNewVersion(
    name,
    dir,
    ledger.target,
    ledger.kept,
  );
  // Only what the new version adds is news: findings the one in use already had were
  // reviewed (or accepted) when it was installed.
  // The user's audit cache (runtime/audit/audit_cache.ts): the version in use was audited at
  // its install, and the new one shares most of its files.
  const cached = { home: options.auditHome };
  const report = await auditDir(dir, manifest, cached);
  const before = await auditDir(ledger.target, undefined, cached).catch(() =>
    auditSkill({ files: [] })
  );
  const added = auditAdded(before, report);
  const newCritical = added.findings.filter((f) => f.severity === "critical");
  const movedTo = subpath === ledger.tracked.subpath ? undefined : subpath;
  const { entry, digest } = await ledger.record({
    dir,
    movedTo,
    manifest,
    followed: followedVersion(fetched, ledger.tracked),
    commit: fetched.commit?.sha ?? null,
    critical: report.findings.filter((f) => f.severity === "critical"),
    added: newCritical,
  });
  const risky = options.allowRisky ? [] : newCritical;
  const moved = movedTo === undefined ? {} : { moved: { from: ledger.subpath, to: movedTo } };
  return {
    root,
    dir,
    digest,
    changes,
    entry,
    warnings,
    audit: { report, added },
    risky,
    ...moved,
  };
}

/** The signer of the new version (under a signer policy), never a signer of the old one. */
function withSigner<E extends { [extra: string]: unknown }>(next: E, signed: Fetched["signed"]): E {
  const record: { [extra: string]: unknown } = next;
  if (signed !== undefined) record.signed = signed;
  else delete record.signed;
  return next;
}

/** `$SKILLS_HOME`'s side of an update: the registry entry, the folder it names. */
function userLedger(
  scope: UserScope,
  entry: RegistryEntry,
  options: PlanUpdateOptions,
): UpdateLedger<RegistryEntry> {
  assertManaged(scope.home, entry);
  const tracked = trackedEntry(entry);
  const target = entry.installed_path;
  return {
    tracked,
    target,
    kept: "installed",
    subpath: entry.source.subpath,
    digestOf: computeDigest,
    onDisk: async () => ({
      edited: tracked.digest !== null && await exists(target) &&
        (await computeDigest(target)) !== tracked.digest,
      restores: false,
    }),
    record: async ({ dir, movedTo, manifest, followed, commit, critical, added }) => {
      const digest = await computeDigest(dir);
      const now = (options.now ?? new Date()).toISOString();
      const { approved_services: _before, ...kept } = entry;
      const next: RegistryEntry = {
        ...kept,
        source: movedTo === undefined ? entry.source : { ...entry.source, subpath: movedTo },
        commit_sha: commit,
        branch: followed.branch,
        tag: followed.tag,
        ref: followed.ref,
        trusted: entry.trusted,
        trusted_digest: entry.trusted ? digest : null,
        installed_digest: digest,
        approved_network: networkList(manifest.network),
        ...approvedServices(manifest.services),
        updated_at: now,
      };
      withSigner(next, followed.signed);
      // The registry keeps an acceptance of critical findings (a lockfile is shared).
      if (critical.length === 0) delete next.allowed_risky;
      else if (added.length > 0 && options.allowRisky) {
        next.allowed_risky = acceptance(critical, now);
      }
      return { entry: next, digest };
    },
    follows: (next) =>
      entry.branch === next.branch && entry.tag === next.tag && entry.ref === next.ref,
  };
}

/** A project's side of an update: the lock entry, the folder in `.agents/skills`. */
function projectLedger(
  scope: ProjectScope,
  key: string,
  entry: LockedSkill,
): UpdateLedger<LockedSkill> {
  return {
    tracked: trackedLocked(scope.root, key, entry),
    target: projectSkillDir(scope.root, key),
    kept: "locked",
    subpath: entry.source.subpath,
    digestOf: lockedDigestOf,
    onDisk: async () => {
      const drift = await diskDrift(scope.root, key, entry);
      return { edited: drift !== null && drift.length > 0, restores: drift?.length !== 0 };
    },
    record: async ({ dir, movedTo, manifest, followed, commit }) => {
      const { files, digest } = await describeFiles(dir);
      const next: LockedSkill = {
        ...entry,
        source: movedTo === undefined ? entry.source : { ...entry.source, subpath: movedTo },
        branch: followed.branch,
        tag: followed.tag,
        ref: followed.ref,
        commit,
        digest,
        files,
        permissions: {
          ...withoutServices(entry.permissions),
          env: [...manifest.envPatterns],
          network: networkList(manifest.network),
          ...declaredServices(manifest.services),
        },
      };
      return { entry: withSigner(next, followed.signed), digest };
    },
    // A lock entry's tracking moves with its files, not on its own.
    follows: () => true,
  };
}

/** Rebuilds a source from a registry entry (which is untrusted input: validated again). */
function entrySource(entry: RegistryEntry): ResolvedSource {
  const subpath = validateSubpath(entry.source.url, entry.source.subpath);
  if (entry.source.type === "local") {
    const path = subpath === "" ? entry.source.url : join(entry.source.url, ...subpath.split("/"));
    return resolveParsed(parseSource(path, { localDirectory: path, paths: PLATFORM_PATHS }));
  }
  if (entry.source.type === "oci") {
    return resolveParsed({ ...ociSource(entry.source.url), subpath });
  }
  if (entry.source.type === "web") return resolveParsed(webSource(entry.source.url, subpath));
  if (entry.source.type === "npm") {
    return resolveParsed({ ...npmRecordSource(entry.source.url), subpath });
  }
  const parsed = parseSource(entry.source.url) as ParsedGitSource;
  return resolveParsed({ ...parsed, subpath, skill: undefined, ref: undefined });
}

/** The digest the installed files were recorded with (older entries kept only the trusted one). */
function installedBaseline(entry: RegistryEntry): string | null {
  const recorded = (entry as { installed_digest?: unknown }).installed_digest;
  return typeof recorded === "string" ? recorded : entry.trusted_digest;
}

/** An installed skill as the deciding part sees it. */
export function trackedEntry(entry: RegistryEntry): TrackedSkill {
  const source = entrySource(entry);
  return {
    name: entry.name_canonical,
    scope: "user",
    source,
    subpath: source.subpath,
    branch: entry.branch,
    tag: entry.tag,
    ref: entry.ref,
    commit: entry.commit_sha,
    digest: installedBaseline(entry),
    ...(rangesOf(entry) ? { ranges: rangesOf(entry)! } : {}),
  };
}

/** A locked skill as the deciding part sees it. */
export function trackedLocked(root: string, key: string, entry: LockedSkill): TrackedSkill {
  return {
    name: key,
    scope: "project",
    source: sourceOfLocked(entry.source, root),
    subpath: entry.source.type === "local" ? "" : entry.source.subpath,
    branch: entry.branch,
    tag: entry.tag,
    ref: entry.ref,
    commit: entry.commit,
    digest: entry.digest,
    ...(rangesOf(entry) ? { ranges: rangesOf(entry)! } : {}),
  };
}

/** The digest a lock entry would record for a folder. */
export async function lockedDigestOf(dir: string): Promise<string> {
  return (await describeFiles(dir)).digest;
}
