/**
 * `skills add` below the CLI, in either scope: plan the install of the skills chosen from
 * a fetched source (fetch_source.ts finds and chooses them) (names, collisions, digests, the audit, the record).
 * The scope decides only where the folder goes and what records it — a registry entry
 * (`$SKILLS_HOME`) or a lock entry (a project) — through its ledger. A Change (change.ts)
 * fetches and commits.
 */

import { networkList } from "../../core/policy/net_grants.ts";
import { join } from "../os/paths.ts";
import type { AuditReport, Finding } from "../../core/audit/engine.ts";
import { AUDIT_RULES_VERSION } from "../../core/audit/audit_rules.ts";
import { criticalFindings, findingLabel } from "../../core/audit/file_findings.ts";
import { SkillError } from "../../core/errors.ts";
import type { Manifest } from "../../core/manifest/manifest.ts";
import { canonicalSkillName, publishedSkillKey, quoteName } from "../../core/names.ts";
import { isPathSelector, selectedPath, sourceLocation } from "../../core/sources/sources.ts";
import {
  approvedServices,
  findEntry,
  type Registry,
  type RegistryEntry,
} from "../../core/records/registry.ts";
// @ts-types="../../generated/bundled_index.d.ts"
import { BUNDLED_NAMES } from "../../generated/bundled_index.ts";
import { auditDir } from "../audit/scan.ts";
import {
  type Candidate,
  candidateLabel,
  type Fetched,
  invalidCandidate,
  pathArgument,
  revisionOf,
  sameNameGroups,
} from "./fetch_source.ts";
import { exists, lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import { readRegistry } from "../store/registry.ts";
import {
  declaredServices,
  diffFiles,
  type LockedSkill,
  type LockedSource,
} from "../../core/records/lockfile.ts";
import {
  PROJECT_SKILLS_DIR,
  type ProjectScope,
  type Scope,
  type UserScope,
} from "../../core/records/scope.ts";
import { computeDigest, fileHashes } from "../trust/file_hashes.ts";
import { describeFiles, lockedSource } from "./lock_entries.ts";
import { lockForChange, readProjectLock } from "../store/lockfile.ts";

/** What installing one skill will do, whatever its scope: `entry` is the scope's record. */
interface PlanOf<E> {
  candidate: Candidate;
  /** Display name recorded (registry entry or lock entry). */
  name: string;
  canonical: string;
  /** Its folder: `$SKILLS_HOME/<canonical>` or `<root>/.agents/skills/<canonical>`. */
  target: string;
  digest: string;
  entry: E;
  /** The audit of the files that would be installed (shown before asking). */
  audit: AuditReport;
  /** Critical findings not accepted with --allow-risky: the install is refused. */
  risky: Finding[];
}

/** An install into `$SKILLS_HOME`: its registry entry. */
export type InstallPlan = PlanOf<RegistryEntry>;
/** An install into a project: its `skills-lock.json` entry. */
export type ProjectPlan = PlanOf<LockedSkill>;
/** The plan a scope's install makes. */
export type PlanFor<S extends Scope> = S extends UserScope ? InstallPlan : ProjectPlan;

const INSTALLED_CLASH = "a skill with that name is installed";

/** Why `canonical` cannot be installed now, or undefined. */
export async function collisionProblem(
  home: string,
  registry: Registry,
  canonical: string,
): Promise<string | undefined> {
  if (findEntry(registry, canonical) !== undefined) return INSTALLED_CLASH;
  if (BUNDLED_NAMES.includes(canonical)) return "a bundled skill has that name";
  if (await exists(join(home, canonical))) {
    return `${join(home, canonical)} already exists`;
  }
  return undefined;
}

export interface PlanOptions {
  /** `--name NEW`: install a single skill under another name. */
  rename?: string | undefined;
  /** `--name OLD=NEW` (repeatable): the skill published as OLD is installed as NEW. */
  renames?: ReadonlyMap<string, string> | undefined;
  /** `--allow-risky`: accept critical audit findings (recorded in the entry). */
  allowRisky?: boolean | undefined;
  now?: Date;
}

/** A selected skill that will not be installed, and why. */
interface Refusal {
  /** The skill's name, or its path in the source when it has none. */
  label: string;
  /** What to throw when this was the only skill asked for. */
  error: SkillError;
}

/** Recorded already from this source, as this commit (or these files): nothing to do. */
export interface AlreadyInstalled<E = RegistryEntry> {
  canonical: string;
  entry: E;
  /** Its folder in the scope. */
  target: string;
}

/** What an install of a selection will do, skill by skill. */
export interface InstallPlanning<P extends PlanOf<unknown> = InstallPlan> {
  plans: P[];
  already: AlreadyInstalled<P["entry"]>[];
  refused: Refusal[];
}

/**
 * What a scope decides in an install, and only that: where the skill's folder goes,
 * whether its name is free there (or the very skill is recorded already), and the record
 * the commit writes — a registry entry for `$SKILLS_HOME`, a lock entry for a project.
 */
interface InstallLedger<E> {
  target(canonical: string): string;
  /** `already`: a re-run, nothing to do; `refused`: the name is taken; undefined: free. */
  check(
    candidate: Candidate,
    canonical: string,
    renamed: string | undefined,
    bulkName: string | undefined,
  ): Promise<{ already: E } | { refused: SkillError } | undefined>;
  /** The record for a candidate whose VCS data is gone, with its digest. */
  record(
    candidate: Candidate & { manifest: Manifest },
    name: string,
    canonical: string,
    critical: readonly Finding[],
  ): Promise<{ entry: E; digest: string }>;
}

/**
 * Plans each selected skill on its own, in either scope: an invalid skill or a name clash
 * refuses that skill only (the others still install); a skill recorded from the same source
 * at the same commit is already there (a re-run is a no-op). For each plan: VCS data
 * removed, digest computed, files audited (critical findings need --allow-risky), the
 * scope's record built. Collisions are checked again under the lock at commit.
 */
export async function planInstall<S extends Scope>(
  scope: S,
  fetched: Fetched,
  selected: readonly Candidate[],
  options: PlanOptions = {},
): Promise<InstallPlanning<PlanFor<S>>> {
  const nameOf = installNames(selected, options);
  const ledger =
    (scope.kind === "user"
      ? userLedger(scope, await readRegistry(scope.home), fetched, options)
      : projectLedger(scope, fetched, selected)) as InstallLedger<PlanFor<S>["entry"]>;
  const planning: InstallPlanning<PlanFor<S>> = { plans: [], already: [], refused: [] };
  const refuse = (candidate: Candidate, error: SkillError) =>
    planning.refused.push({ label: candidateLabel(candidate), error });
  const twins = twinsOf(selected, nameOf);
  for (const candidate of selected) {
    const invalid = invalidCandidate(candidate, selected.length);
    if (invalid !== undefined || candidate.manifest === undefined) {
      refuse(candidate, invalid!);
      continue;
    }
    // The folder and the record's key are the installed name.
    const renamed = nameOf(candidate);
    const name = renamed ?? candidate.name!;
    const canonical = renamed !== undefined ? canonicalSkillName(renamed) : candidate.canonical!;
    const target = ledger.target(canonical);
    const twin = twins.get(candidate);
    if (twin !== undefined) {
      refuse(candidate, twinError(candidate, canonical, twin));
      continue;
    }
    const bulkName = selected.length > 1 ? name : undefined;
    const taken = await ledger.check(candidate, canonical, renamed, bulkName);
    if (taken !== undefined && "already" in taken) {
      planning.already.push({ canonical, entry: taken.already, target });
      continue;
    }
    if (taken !== undefined) {
      refuse(candidate, taken.refused);
      continue;
    }
    await removeIfExists(join(candidate.dir, ".git"));
    const { audit, critical, risky } = await auditCandidate(
      candidate,
      options.allowRisky,
      scope.home,
    );
    const manifested = candidate as Candidate & { manifest: Manifest };
    const { entry, digest } = await ledger.record(manifested, name, canonical, critical);
    const plan = { candidate, name, canonical, target, digest, entry, audit, risky };
    planning.plans.push(plan as PlanFor<S>);
  }
  return planning;
}

/** `$SKILLS_HOME`'s side of an install: the registry, and the names taken in the home. */
function userLedger(
  scope: UserScope,
  registry: Registry,
  fetched: Fetched,
  options: PlanOptions,
): InstallLedger<RegistryEntry> {
  const now = (options.now ?? new Date()).toISOString();
  const home = scope.home;
  return {
    target: (canonical) => join(home, canonical),
    check: async (candidate, canonical, renamed, bulkName) => {
      const installed = findEntry(registry, canonical);
      if (installed !== undefined && renamed === undefined) {
        const same = await sameInstall(installed, fetched, candidate);
        if (same === "same") return { already: installed };
        if (same === "moved") {
          const at = fetched.source.type === "git" ? "commit" : "version";
          return {
            refused: new SkillError(
              "conflict",
              `Cannot install skill '${
                quoteName(canonical)
              }': it is installed from this source at another ${at}`,
              { hint: `Run \`skills update ${canonical}\` to move it` },
            ),
          };
        }
      }
      const problem = await collisionProblem(home, registry, canonical);
      if (problem === undefined) return undefined;
      return { refused: collisionError(canonical, problem, renamed, bulkName) };
    },
    record: async (candidate, name, canonical, critical) => {
      const digest = await computeDigest(candidate.dir);
      const source = fetched.source;
      const commit = revisionOf(fetched, candidate.rel);
      const entry: RegistryEntry = {
        name,
        name_canonical: canonical,
        source: { type: source.type, url: sourceLocation(source), subpath: candidate.rel },
        commit_sha: commit?.sha ?? null,
        branch: commit?.branch ?? null,
        tag: commit?.tag ?? null,
        ref: commit?.ref ?? null,
        installed_path: join(home, canonical),
        trusted: true,
        trusted_digest: digest,
        installed_digest: digest,
        // What the user approved with it, shown by info and compared by update's review.
        approved_network: networkList(candidate.manifest.network),
        ...approvedServices(candidate.manifest.services),
        installed_at: now,
        updated_at: now,
        // Who signed it, when a signer policy applied (runtime/signing/signer_policy.ts).
        ...(fetched.signed ? { signed: fetched.signed } : {}),
      };
      // The registry keeps an acceptance of critical findings; a project's lockfile is
      // shared, and trust is per user, so nothing keeps one there.
      if (critical.length > 0 && options.allowRisky) {
        entry.allowed_risky = acceptance(critical, now);
      }
      return { entry, digest };
    },
  };
}

/** A project's side of an install: its lockfile, and the folders in `.agents/skills`. */
function projectLedger(
  scope: ProjectScope,
  fetched: Fetched,
  selected: readonly Candidate[],
): InstallLedger<LockedSkill> {
  const lock = lockForChange(readProjectLock(scope.root));
  const target = (canonical: string) => join(scope.root, ...PROJECT_SKILLS_DIR, canonical);
  const source = fetched.source;
  const lockedSrc = (c: Candidate) =>
    lockedSource(
      source.type === "local" ? source : { type: source.type, url: source.url },
      c.rel,
      scope.root,
    );
  const nameFlag = (c: Candidate) =>
    selected.length === 1 ? "--name NAME" : `--name '${quoteName(candidateLabel(c))}=NAME'`;
  return {
    target,
    check: async (candidate, canonical) => {
      const locked = Object.hasOwn(lock.skills, canonical) ? lock.skills[canonical] : undefined;
      if (locked !== undefined) {
        return await lockedAlready(locked, lockedSrc(candidate), fetched, target(canonical), {
          canonical,
          nameFlag: nameFlag(candidate),
        });
      }
      if (lstatSyncOrNull(target(canonical)) === null) return undefined;
      return {
        refused: new SkillError(
          "conflict",
          `Cannot install skill '${quoteName(canonical)}': ${target(canonical)} already exists`,
          {
            hint:
              `Remove or rename that folder first, or install this one under another name with ${
                nameFlag(candidate)
              }`,
          },
        ),
      };
    },
    record: async (candidate, name) => {
      const { files, digest } = await describeFiles(candidate.dir);
      const commit = revisionOf(fetched, candidate.rel);
      const entry: LockedSkill = {
        name,
        source: lockedSrc(candidate),
        branch: commit?.branch ?? null,
        tag: commit?.tag ?? null,
        ref: commit?.ref ?? null,
        commit: commit?.sha ?? null,
        digest,
        files,
        permissions: {
          env: [...candidate.manifest.envPatterns],
          network: networkList(candidate.manifest.network),
          ...declaredServices(candidate.manifest.services),
        },
        ...(fetched.signed ? { signed: fetched.signed } : {}),
      };
      return { entry, digest };
    },
  };
}

/**
 * A name the lockfile records already: the very skill (same source, same commit, its folder
 * matching the lock — a re-run), or a refusal saying each way out, as for `$SKILLS_HOME`.
 */
async function lockedAlready(
  locked: LockedSkill,
  wanted: LockedSource,
  fetched: Fetched,
  target: string,
  naming: { canonical: string; nameFlag: string },
): Promise<{ already: LockedSkill } | { refused: SkillError }> {
  const { canonical } = naming;
  const sameSource = locked.source.type === wanted.type && locked.source.url === wanted.url &&
    locked.source.subpath === wanted.subpath;
  const commit = revisionOf(fetched, wanted.subpath);
  const sameCommit = commit === null || locked.commit === commit.sha;
  if (sameSource && sameCommit && await matchesLock(target, locked)) return { already: locked };
  const keepBoth = `add this one under another name with ${naming.nameFlag}`;
  const [why, hint] = !sameSource
    ? [
      `from ${locked.source.url}`,
      `To keep both, ${keepBoth}; to replace it, \`skills remove ${canonical}\` first, then add again`,
    ]
    : sameCommit
    ? ["at this commit, but its folder is missing or changed", "Run `skills install`"]
    : ["at another commit", `Run \`skills update ${canonical}\` to move it`];
  return {
    refused: new SkillError(
      "conflict",
      `Cannot install skill '${quoteName(canonical)}': skills-lock.json records it ${why}`,
      { hint },
    ),
  };
}

/** Whether the folder at `target` holds exactly the files `entry` lists. */
async function matchesLock(target: string, entry: LockedSkill): Promise<boolean> {
  if (lstatSyncOrNull(target) === null) return false;
  return diffFiles(entry.files, await fileHashes(target)).length === 0;
}

/**
 * The name each selected skill is installed under when the user renamed it (`--name NEW` for
 * the one selected skill, `--name OLD=NEW` for any of several), else undefined: the one rule
 * for `$SKILLS_HOME` and for a project. A rename that names no selected skill, or several,
 * is a usage error before anything is planned.
 */
function installNames(
  selected: readonly Candidate[],
  options: Pick<PlanOptions, "rename" | "renames">,
): (c: Candidate) => string | undefined {
  if (options.rename !== undefined && selected.length !== 1) {
    throw new SkillError("usage", "--name renames a single skill; select exactly one");
  }
  const newNames = resolveRenames(selected, options.renames);
  return (c) => options.rename ?? newNames.get(c);
}

/**
 * `--name OLD=NEW`: which selected skill each OLD names — its name as published, exactly,
 * else the one skill whose canonical name OLD gives. A name that selects none, or several,
 * is a usage error before anything is planned.
 */
function resolveRenames(
  selected: readonly Candidate[],
  renames: ReadonlyMap<string, string> | undefined,
): Map<Candidate, string> {
  const out = new Map<Candidate, string>();
  for (const [old, next] of renames ?? []) {
    const exact = isPathSelector(old)
      ? selected.filter((c) => c.rel === selectedPath(old))
      : selected.filter((c) => c.name === old);
    const key = publishedSkillKey(old);
    const hits = exact.length > 0 || isPathSelector(old)
      ? exact
      : selected.filter((c) => c.canonical === key);
    if (hits.length !== 1) {
      throw new SkillError(
        "usage",
        hits.length === 0
          ? `--name ${quoteName(old)}=${quoteName(next)}: no selected skill is named '${
            quoteName(old)
          }'`
          : `--name ${quoteName(old)}=${quoteName(next)}: '${quoteName(old)}' names ${
            hits.map((h) => `'${quoteName(candidateLabel(h))}' (${h.rel || "(root)"})`).join(
              " and ",
            )
          }; give the name exactly as published, or the skill's path (--name ${
            quoteName(pathArgument(hits[0]!))
          }=${quoteName(next)})`,
      );
    }
    out.set(hits[0]!, next);
  }
  return out;
}

/**
 * Skills of one selection that would be installed under the same name (`my_skill` and
 * `My Skill` are both `my-skill`): each maps to the others' labels. None of them is
 * installed — which one is "the" skill is not for this tool to guess.
 */
function twinsOf(
  selected: readonly Candidate[],
  nameOf: (c: Candidate) => string | undefined,
): Map<Candidate, Candidate[]> {
  const out = new Map<Candidate, Candidate[]>();
  const keyOf = (c: Candidate) => {
    const renamed = nameOf(c);
    return renamed !== undefined ? canonicalSkillName(renamed) : c.canonical;
  };
  for (const group of sameNameGroups(selected, keyOf)) {
    for (const c of group) out.set(c, group.filter((other) => other !== c));
  }
  return out;
}

function twinError(candidate: Candidate, canonical: string, others: readonly Candidate[]) {
  const label = (c: Candidate) => `'${quoteName(candidateLabel(c))}' (${c.rel || "(root)"})`;
  return new SkillError(
    "conflict",
    `Cannot install skill ${label(candidate)} as '${canonical}': ${
      others.map(label).join(", ")
    } would be installed under the same name`,
    {
      // By path: the name is the very thing they share.
      hint: `Rename one with --name '${
        quoteName(pathArgument(candidate))
      }=NEW' (repeatable), or pick one with --skill ${quoteName(pathArgument(candidate))}`,
    },
  );
}

/**
 * Whether an installed entry is this very skill: the same source and path in it, and the
 * same commit (git) or the same files (a local directory) — "same"; the same source at
 * another commit — "moved"; anything else is a different skill with that name.
 */
async function sameInstall(
  installed: RegistryEntry,
  fetched: Fetched,
  candidate: Candidate,
): Promise<"same" | "moved" | "other"> {
  const source = fetched.source;
  const url = sourceLocation(source);
  if (
    installed.source.type !== source.type || installed.source.url !== url ||
    installed.source.subpath !== candidate.rel
  ) return "other";
  const commit = revisionOf(fetched, candidate.rel);
  if (commit !== null) return installed.commit_sha === commit.sha ? "same" : "moved";
  const digest = await computeDigest(candidate.dir);
  return installed.installed_digest === digest || installed.trusted_digest === digest
    ? "same"
    : "moved";
}

/**
 * The audit of a planned skill's files, in either scope: its critical findings, and those
 * that refuse it (`risky`: all of them unless the user accepted them with --allow-risky).
 */
async function auditCandidate(
  candidate: Candidate,
  allowRisky: boolean | undefined,
  home: string,
): Promise<{ audit: AuditReport; critical: Finding[]; risky: Finding[] }> {
  // Through the user's audit cache (runtime/audit/audit_cache.ts), in either scope.
  const audit = await auditDir(candidate.dir, candidate.manifest, { home });
  const critical = criticalFindings(audit);
  return { audit, critical, risky: allowRisky === true ? [] : critical };
}

/** The registry record of critical findings accepted with --allow-risky. */
export function acceptance(critical: readonly Finding[], at: string) {
  return {
    accepted_at: at,
    rules_version: AUDIT_RULES_VERSION,
    findings: critical.map(findingLabel),
  };
}

/**
 * Refuses plans with critical findings nobody accepted: shown in the summary first, then
 * this error (`risky_skill`) instead of the question. Nothing has been written.
 */
export function refuseRisky(
  plans: readonly { canonical: string; risky: readonly Finding[] }[],
  action = "install",
  recordedIn: string | undefined = "the registry",
): void {
  const error = riskyError(plans, action, recordedIn);
  if (error !== undefined) throw error;
}

/** The `risky_skill` error for plans with unaccepted critical findings, if any have them. */
export function riskyError(
  plans: readonly { canonical: string; risky: readonly Finding[] }[],
  action = "install",
  /** Where an acceptance is kept, if anywhere (the registry for installed skills). */
  recordedIn: string | undefined = "the registry",
): SkillError | undefined {
  const risky = plans.filter((p) => p.risky.length > 0);
  if (risky.length === 0) return undefined;
  const count = risky.reduce((n, p) => n + p.risky.length, 0);
  const found = `the audit found ${count} critical finding${count === 1 ? "" : "s"}`;
  const labels = (p: (typeof risky)[number]) => p.risky.map((f) => findingLabel(f)).join(", ");
  const message = risky.length === 1
    ? `Cannot ${action} skill '${risky[0]!.canonical}': ${found} (${labels(risky[0]!)})`
    : `Cannot ${action} skills ${
      risky.map((p) => `'${p.canonical}' (${labels(p)})`).join(", ")
    }: ${found}`;
  return new SkillError("risky_skill", message, {
    hint:
      `Review the findings above; to ${action} anyway, pass --allow-risky (recorded in ${recordedIn})`,
  });
}

/**
 * `bulkName`: the skill's name as published when it is one of several being installed, so
 * the hint spells the `--name OLD=NEW` that renames just it.
 */
export function collisionError(
  canonical: string,
  problem: string,
  renamed: string | undefined,
  bulkName?: string,
) {
  const nameFlag = bulkName === undefined ? "--name NAME" : `--name '${quoteName(bulkName)}=NAME'`;
  return new SkillError("conflict", `Cannot install skill '${quoteName(canonical)}': ${problem}`, {
    // Say what each way out does: `update` would move the *installed* skill along its own
    // source, which is not what someone adding another repository's skill asked for.
    hint: renamed !== undefined
      ? "Choose another --name"
      : problem === INSTALLED_CLASH
      ? `To keep both, add this one under another name with ${nameFlag}; to replace the installed one, \`skills remove ${canonical}\` first, then add again (\`skills update ${canonical}\` only updates the installed skill from its own source)`
      : `Install it under another name with ${nameFlag}`,
  });
}
