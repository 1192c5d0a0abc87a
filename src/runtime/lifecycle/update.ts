/**
 * `skills update` below the CLI: find out whether the tracked ref moved (ls-remote, no
 * clone when nothing changed), stage the new version, validate it and summarise the
 * changes. A Change (change.ts) gives the plan its staging directory and swaps the new
 * version in atomically under the registry lock (commit.ts: old directory aside, new in,
 * entry written; any failure puts the old one back).
 */

import { networkList } from "../../core/net_grants.ts";
import { join } from "../os/paths.ts";
import * as PLATFORM_PATHS from "../os/paths.ts";
import {
  auditAdded,
  type AuditDelta,
  type AuditReport,
  auditSkill,
  type Finding,
} from "../../core/audit.ts";
import { SkillError } from "../../core/errors.ts";
import type { Diagnostic, Manifest } from "../../core/manifest.ts";
import { findEntry, type RegistryEntry } from "../../core/registry_model.ts";
import {
  type GitSource,
  isFullSha,
  ociSource,
  parseSource,
  type RefRequest,
  type Source,
  type Transport,
  validateSubpath,
} from "../../core/sources.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import { type ChangeSummary, summarizeChanges } from "../../core/changes.ts";
import { computeDigest, fileHashes } from "../trust/file_hashes.ts";
import { type Fetched, fetchInto } from "./fetch_source.ts";
import { exists, lstatOrNull, removeIfExists } from "../os/fs.ts";
import { type GitOptions, inContext } from "../git/command.ts";
import { trackedCommit } from "../git/fetch.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import { readRegistry } from "../store/registry.ts";
import { isManagedEntry } from "../store/staging.ts";
import { auditDir } from "../audit/scan.ts";
import { acceptance } from "./install.ts";

type UpdateKind = "up_to_date" | "pinned" | "update";

export interface UpdatePlan {
  entry: RegistryEntry;
  canonical: string;
  kind: UpdateKind;
  oldSha: string | null;
  newSha: string | null;
  /** What the entry follows after the update, e.g. "branch main". */
  tracking: string;
  /** Installed files differ from what was installed (would be discarded). */
  localChanges: boolean;
  /** Only for kind "update". */
  staged?: {
    /** The directory the new version was fetched into (inside the change's staging). */
    root: string;
    dir: string;
    digest: string;
    changes: ChangeSummary;
    entry: RegistryEntry;
    warnings: Diagnostic[];
    /** The new version's audit, and what it adds to the installed version's. */
    audit: { report: AuditReport; added: AuditDelta };
    /** New critical findings not accepted with --allow-risky: the update is refused. */
    risky: Finding[];
  };
}

export function describeTracking(
  entry: Pick<RegistryEntry, "source" | "branch" | "tag" | "ref">,
): string {
  if (entry.source.type === "local") return `directory ${entry.source.url}`;
  if (entry.tag !== null) return `tag ${entry.tag}`;
  if (entry.branch !== null) return `branch ${entry.branch}`;
  if (entry.ref !== null) return `pinned to ${entry.ref}`;
  return "default branch";
}

/** Rebuilds a source from a registry entry (which is untrusted input: validated again). */
function entrySource(entry: RegistryEntry): Source {
  const subpath = validateSubpath(entry.source.url, entry.source.subpath);
  if (entry.source.type === "local") {
    const path = subpath === "" ? entry.source.url : join(entry.source.url, ...subpath.split("/"));
    return parseSource(path, { localDirectory: path, paths: PLATFORM_PATHS });
  }
  if (entry.source.type === "oci") return { ...ociSource(entry.source.url), subpath };
  const parsed = parseSource(entry.source.url) as GitSource;
  return { ...parsed, subpath, skill: undefined, ref: undefined };
}

export function assertManaged(home: string, entry: RegistryEntry): void {
  if (!isManagedEntry(home, entry)) {
    throw new SkillError(
      "permission_denied",
      `Skill '${entry.name_canonical}' is recorded at ${entry.installed_path}, not at ${
        join(home, entry.name_canonical)
      }; refusing to change it`,
      { hint: "Remove it with `skills remove` and install it again" },
    );
  }
}

function installedBaseline(entry: RegistryEntry): string | null {
  const recorded = (entry as { installed_digest?: unknown }).installed_digest;
  return typeof recorded === "string" ? recorded : entry.trusted_digest;
}

export interface PlanUpdateOptions {
  /** `--ref/--branch/--tag`: move the skill to this ref (also unpins). */
  request?: RefRequest | undefined;
  /** `--allow-risky`: accept new critical audit findings (recorded in the entry). */
  allowRisky?: boolean | undefined;
  now?: Date;
}

/** What the change lends a plan: git settings, progress lines, a place to fetch into. */
interface UpdateWorkspace {
  git: GitOptions;
  progress: (message: string) => void;
  /** A remote's branches and tags, asked once per remote for the whole change. */
  remoteRefs: (url: string, transport: Transport) => Promise<ReadonlyMap<string, string>>;
  /** A fresh directory path inside staging (not created yet), only asked for when fetching. */
  fetchRoot: () => string;
  /** Applies the signer policy to what was fetched (records the signer in it, or throws). */
  verify: (fetched: Fetched) => Promise<void>;
}

/**
 * Decides and stages the update of one installed skill. Whatever it fetched belongs to
 * the change that asked (removed with the change, or when it discards the plan).
 */
export async function planUpdate(
  home: string,
  entry: RegistryEntry,
  options: PlanUpdateOptions,
  workspace: UpdateWorkspace,
): Promise<UpdatePlan> {
  const canonical = entry.name_canonical;
  assertManaged(home, entry);
  const source = entrySource(entry);
  const baseline = installedBaseline(entry);
  const localChanges = baseline !== null && await exists(entry.installed_path) &&
    (await computeDigest(entry.installed_path)) !== baseline;
  const base = {
    entry,
    canonical,
    oldSha: entry.commit_sha,
    tracking: describeTracking(entry),
    localChanges,
  };

  let request: RefRequest;
  if (options.request !== undefined) request = options.request;
  else if (source.type === "local") request = { kind: "default" };
  else if (entry.tag !== null) request = { kind: "tag", name: entry.tag };
  else if (entry.branch !== null) request = { kind: "branch", name: entry.branch };
  else if (entry.ref !== null) return { ...base, kind: "pinned", newSha: entry.commit_sha };
  else request = { kind: "default" };

  if (
    source.type === "git" && options.request === undefined &&
    (request.kind === "branch" || request.kind === "tag")
  ) {
    const refs = await workspace.remoteRefs(source.url, source.transport).catch((error) => {
      throw inContext(`Cannot update skill '${canonical}'`, error);
    });
    const remote = trackedCommit(refs, request);
    if (remote === null) {
      throw new SkillError(
        "not_found",
        `Cannot update skill '${canonical}': ${request.kind} '${request.name}' no longer exists in ${source.url}`,
        { hint: `Move it with \`skills update ${canonical} --ref <ref>\`` },
      );
    }
    if (remote === entry.commit_sha) return { ...base, kind: "up_to_date", newSha: remote };
  }

  const root = workspace.fetchRoot();
  workspace.progress(
    source.type === "local" ? `Copying ${source.path} ...` : `Fetching ${source.url} ...`,
  );
  const fetched = await fetchInto(source, request, root, workspace.git)
    .catch((error) => {
      throw inContext(`Cannot update skill '${canonical}'`, error);
    });
  await workspace.verify(fetched).catch((error) => {
    throw inContext(`Cannot update skill '${canonical}'`, error);
  });
  const staged = await stageNewVersion(entry, fetched, options.now ?? new Date(), options);
  if (source.type === "git" && request.kind === "ref" && isFullSha(request.name)) {
    // Pinned to the same commit again: nothing to do.
    if (fetched.commit?.sha === entry.commit_sha && staged.digest === baseline) {
      return { ...base, kind: "up_to_date", newSha: entry.commit_sha };
    }
  }
  const sameCommit = fetched.commit === null || fetched.commit.sha === entry.commit_sha;
  if (sameCommit && staged.digest === baseline && sameTracking(entry, staged.entry)) {
    return { ...base, kind: "up_to_date", newSha: entry.commit_sha };
  }
  return {
    ...base,
    kind: "update",
    newSha: fetched.commit?.sha ?? null,
    tracking: describeTracking(staged.entry),
    staged: { root, ...staged },
  };
}

function sameTracking(a: RegistryEntry, b: RegistryEntry): boolean {
  return a.branch === b.branch && a.tag === b.tag && a.ref === b.ref;
}

async function stageNewVersion(
  entry: RegistryEntry,
  fetched: Fetched,
  now: Date,
  options: PlanUpdateOptions,
) {
  const canonical = entry.name_canonical;
  const dir = fetched.base;
  const info = await lstatOrNull(join(dir, "SKILL.md"));
  if (info === null) {
    throw new SkillError(
      "not_found",
      `Cannot update skill '${canonical}': no SKILL.md at '${
        entry.source.subpath || "."
      }' in the new version`,
      { hint: "The skill may have moved in its repository; remove and add it again" },
    );
  }
  const inspected = await inspectSkillDir(dir);
  const errors = inspected.diagnostics.filter((d) => d.level === "error");
  if (errors.length > 0 || inspected.manifest === undefined) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot update skill '${canonical}': the new version is invalid: ${
        errors.map((e) => `${e.message}${e.line ? ` (line ${e.line})` : ""}`).join("; ")
      }`,
      { hint: "The installed version was left unchanged" },
    );
  }
  if (entry.source.subpath === "") await removeIfExists(join(dir, ".git"));
  const digest = await computeDigest(dir);
  const oldManifest = await inspectSkillDir(entry.installed_path)
    .then((r) => r.manifest as Manifest | undefined).catch(() => undefined);
  const changes = summarizeChanges(
    await fileHashes(entry.installed_path),
    await fileHashes(dir),
    oldManifest,
    inspected.manifest,
  );
  const commit = fetched.commit;
  const next: RegistryEntry = {
    ...entry,
    commit_sha: commit?.sha ?? null,
    branch: commit === null ? entry.branch : commit.branch,
    tag: commit === null ? entry.tag : commit.tag,
    ref: commit === null ? entry.ref : commit.ref,
    trusted: entry.trusted,
    trusted_digest: entry.trusted ? digest : null,
    installed_digest: digest,
    approved_network: networkList(inspected.manifest.network),
    updated_at: now.toISOString(),
  };
  if (fetched.signed !== undefined) next.signed = fetched.signed;
  else delete next.signed;
  const warnings = inspected.diagnostics.filter((d) =>
    d.level === "warning" && !d.message.includes("differs from the directory")
  );
  // Only what the new commit adds is news: findings the installed version already had
  // were reviewed (or accepted) when it was installed.
  const report = await auditDir(dir, inspected.manifest);
  const before = await auditDir(entry.installed_path).catch(() => auditSkill({ files: [] }));
  const added = auditAdded(before, report);
  const newCritical = added.findings.filter((f) => f.severity === "critical");
  const critical = report.findings.filter((f) => f.severity === "critical");
  if (critical.length === 0) delete next.allowed_risky;
  else if (newCritical.length > 0 && options.allowRisky) {
    next.allowed_risky = acceptance(critical, now.toISOString());
  }
  const risky = options.allowRisky ? [] : newCritical;
  return { dir, digest, changes, entry: next, warnings, audit: { report, added }, risky };
}

/** Registry entries to update: named ones (bundled names refused) or all of them. */
export async function entriesToUpdate(
  home: string,
  names: readonly string[],
): Promise<RegistryEntry[]> {
  const registry = await readRegistry(home);
  if (names.length === 0) return registry.skills;
  const out: RegistryEntry[] = [];
  for (const canonical of names) {
    const entry = findEntry(registry, canonical);
    if (entry === undefined) {
      throw bundledSkillNames().includes(canonical)
        ? new SkillError(
          "permission_denied",
          `Cannot update skill '${canonical}': it is bundled and updated with skills itself`,
        )
        : new SkillError("not_found", `Cannot update skill '${canonical}': it is not installed`, {
          hint: "Run `skills list` to see the installed skills",
        });
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
