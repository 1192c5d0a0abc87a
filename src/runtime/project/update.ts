/**
 * `skills update <name>` of a locked project skill below the CLI: ask the remote whether the
 * branch or tag moved (one ls-remote per remote, no fetch when nothing changed), fetch the
 * new commit, validate it, summarise what changes, and build the lock entry the commit
 * writes. The project transaction (transaction.ts) swaps the folder and the entry at once.
 */

import { networkList } from "../../core/net_grants.ts";
import { isAbsolute, resolve } from "../os/paths.ts";
import { type ChangeSummary, summarizeChanges } from "../../core/changes.ts";
import { SkillError } from "../../core/errors.ts";
import type { Diagnostic, Manifest } from "../../core/manifest.ts";
import { type LockedSkill, withLockedSkill } from "../../core/lockfile_model.ts";
import { ociSource, parseSource, type RefRequest, type Source } from "../../core/sources.ts";
import { inContext } from "../git/command.ts";
import { trackedCommit } from "../git/fetch.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import type { Change } from "../lifecycle/change.ts";
import { describeTracking } from "../lifecycle/update.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { diskDrift } from "./drift.ts";
import { describeFiles } from "./lockfile.ts";
import { skillBase } from "./restore.ts";
import { type ProjectChange, projectSkillDir } from "./transaction.ts";
import { setProjectTrust } from "./trust.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { readProjectTrust } from "../store/project_records.ts";

interface ProjectUpdatePlan {
  key: string;
  entry: LockedSkill;
  kind: "up_to_date" | "pinned" | "update";
  oldSha: string | null;
  newSha: string | null;
  tracking: string;
  /** The folder's files differ from the lockfile (they would be discarded). */
  localChanges: boolean;
  staged?: {
    base: string;
    entry: LockedSkill;
    changes: ChangeSummary;
    warnings: Diagnostic[];
  };
}

function sourceOf(entry: LockedSkill, root: string): Source {
  if (entry.source.type === "local") {
    const path = isAbsolute(entry.source.url) ? entry.source.url : resolve(root, entry.source.url);
    return { type: "local", path, subpath: "", skill: undefined, ref: undefined };
  }
  if (entry.source.type === "oci") return ociSource(entry.source.url);
  const parsed = parseSource(entry.source.url);
  if (parsed.type !== "git") throw new Error("unreachable: a URL parses as a git source");
  return { ...parsed, subpath: "", skill: undefined, ref: undefined };
}

/** Decides and fetches the update of the locked skill `key` (the change owns the fetch). */
export async function planProjectUpdate(
  root: string,
  key: string,
  entry: LockedSkill,
  change: Change,
  options: { request?: RefRequest | undefined; now?: Date } = {},
): Promise<ProjectUpdatePlan> {
  const source = sourceOf(entry, root);
  const drift = await diskDrift(root, key, entry);
  const base = {
    key,
    entry,
    oldSha: entry.commit,
    tracking: describeTracking(entry),
    localChanges: drift !== null && drift.length > 0,
  };
  let request: RefRequest;
  if (options.request !== undefined) request = options.request;
  else if (source.type === "local") request = { kind: "default" };
  else if (entry.tag !== null) request = { kind: "tag", name: entry.tag };
  else if (entry.branch !== null) request = { kind: "branch", name: entry.branch };
  else if (entry.ref !== null) return { ...base, kind: "pinned", newSha: entry.commit };
  else request = { kind: "default" };

  if (source.type === "git" && options.request === undefined && request.kind !== "default") {
    const refs = await change.remoteRefs(source.url, source.transport).catch((error) => {
      throw inContext(`Cannot update skill '${key}'`, error);
    });
    const remote = trackedCommit(refs, request as { kind: "branch" | "tag"; name: string });
    if (remote === null) {
      throw new SkillError(
        "not_found",
        `Cannot update skill '${key}': ${request.kind} '${request.name}' no longer exists in ${source.url}`,
        { hint: `Move it with \`skills update ${key} --ref <ref>\`` },
      );
    }
    if (remote === entry.commit) {
      return { ...base, kind: "up_to_date", newSha: remote };
    }
  }
  const fetched = await change.fetch(source, request);
  const dir = await skillBase(fetched, entry.source.subpath);
  if (dir === null) {
    throw new SkillError(
      "not_found",
      `Cannot update skill '${key}': no SKILL.md at '${
        entry.source.subpath || "."
      }' in the new version`,
      { hint: "The skill may have moved in its repository; remove it and add it again" },
    );
  }
  const inspected = await inspectSkillDir(dir);
  const errors = inspected.diagnostics.filter((d) => d.level === "error");
  if (errors.length > 0 || inspected.manifest === undefined) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot update skill '${key}': the new version is invalid: ${
        errors.map((e) => e.message).join("; ")
      }`,
      { hint: "The locked version was left unchanged" },
    );
  }
  const { files, digest } = await describeFiles(dir);
  const commit = fetched.commit;
  const next: LockedSkill = {
    ...entry,
    branch: commit === null ? entry.branch : commit.branch,
    tag: commit === null ? entry.tag : commit.tag,
    ref: commit === null ? entry.ref : commit.ref,
    commit: commit?.sha ?? null,
    digest,
    files,
    permissions: {
      ...entry.permissions,
      env: [...inspected.manifest.envPatterns],
      network: networkList(inspected.manifest.network),
    },
  };
  const sameFiles = digest === entry.digest && drift !== null && drift.length === 0;
  if ((commit === null || commit.sha === entry.commit) && sameFiles) {
    return { ...base, kind: "up_to_date", newSha: entry.commit };
  }
  const current = projectSkillDir(root, key);
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
  return {
    ...base,
    kind: "update",
    newSha: commit?.sha ?? null,
    tracking: describeTracking(next),
    staged: { base: dir, entry: next, changes, warnings },
  };
}

/**
 * Swaps a planned update in (folder and lock entry in one commit). A skill this user trusted
 * stays trusted with the new digest — they reviewed and confirmed the update — as installed
 * skills do; an untrusted one stays untrusted.
 */
export async function applyProjectUpdate(
  tx: ProjectChange,
  home: string,
  plan: ProjectUpdatePlan,
): Promise<void> {
  const staged = plan.staged;
  if (plan.kind !== "update" || staged === undefined) return;
  const rel = `${PROJECT_SKILLS_DIR.join("/")}/${plan.key}`;
  const wasTrusted = readProjectTrust(home).doc.projects[tx.root]?.[rel] !== undefined;
  const dir = await tx.stageCopy(staged.base, plan.key, Object.keys(staged.entry.files));
  await tx.commit(
    [{ canonical: plan.key, staged: dir }],
    (lock) => withLockedSkill(lock, plan.key, staged.entry),
  );
  if (wasTrusted) {
    await setProjectTrust(home, [{
      root: tx.root,
      rel,
      canonical: plan.key,
      digest: staged.entry.digest,
      dir: projectSkillDir(tx.root, plan.key),
    }]);
  }
}
