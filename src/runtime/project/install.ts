/**
 * `skills add <source> --project` below the CLI: plan each selected skill on its own, as
 * `skills add` does for `$SKILLS_HOME` (lifecycle/install_plan.ts) — installed into
 * `<root>/.agents/skills/<name>/`, already there (the lockfile records it from this source
 * at this commit and the folder matches: a re-run is a no-op), or refused (invalid, a name
 * clash, locked from elsewhere). Each plan carries the lock entry the commit will write and
 * the audit of its files: critical findings refuse the skill unless the user passed
 * `--allow-risky`, as for `$SKILLS_HOME`.
 *
 * `skills install` (`installFromLock`): the project's skills restored from its lockfile (ours
 * or the peer's), trusted on request, copies refreshed.
 *
 * And the way back out, `skills remove`, for both scopes: what the command confirmed leaves
 * with its lock entry (or registry entry), this user's trust of it and the agents' links.
 */

import { networkList } from "../../core/policy/net_grants.ts";
import { join } from "../os/paths.ts";
import type { AuditReport, Finding } from "../../core/audit/engine.ts";
import { SkillError } from "../../core/errors.ts";
import { diffFiles, type LockedSkill, type Lockfile } from "../../core/records/lockfile_model.ts";
import { canonicalSkillName, quoteName } from "../../core/manifest/names.ts";
import { lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import type { Fetched } from "../lifecycle/fetch_source.ts";
import {
  auditCandidate,
  type Candidate,
  candidateLabel,
  installNames,
  invalidCandidate,
  type PlanOptions,
  twinError,
  twinsOf,
} from "../lifecycle/install_plan.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import type { AgentName } from "../../core/agents.ts";
import { withLockedSkill } from "../../core/records/lockfile_model.ts";
import {
  linkAdded,
  type LinkOutcome,
  refreshCopies,
  removeLinksTo,
  trustedProjectFolders,
} from "./links.ts";
import { beginChange, type Change } from "../lifecycle/change.ts";
import { type ForeignReport, restoreForeign } from "./foreign.ts";
import { restoreLocked, type RestoreReport } from "./restore.ts";
import { readProjectTrust } from "../store/project_records_file.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import { withoutLockedSkill } from "../../core/records/lockfile_model.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import {
  describeFiles,
  lockedSource,
  lockfilePath,
  lockForChange,
  readProjectLock,
} from "./lockfile.ts";
import { beginProjectChange, type ProjectChange, projectSkillDir } from "./transaction.ts";
import { setProjectTrust, trustInstalled } from "./approvals.ts";
import { riskyError } from "../lifecycle/install_plan.ts";

export interface ProjectPlan {
  candidate: Candidate;
  name: string;
  canonical: string;
  target: string;
  digest: string;
  entry: LockedSkill;
  /** The audit of the files that would be installed (shown before asking). */
  audit: AuditReport;
  /** Critical findings not accepted with --allow-risky: shown, then the skill is refused. */
  risky: Finding[];
}

interface ProjectRefusal {
  label: string;
  error: SkillError;
}

interface ProjectPlanning {
  plans: ProjectPlan[];
  already: ProjectAlready[];
  refused: ProjectRefusal[];
}

/** Locked from this source at this commit, its folder unchanged: a re-run is a no-op. */
interface ProjectAlready {
  canonical: string;
  entry: LockedSkill;
  target: string;
}

/** Whether the folder at `target` holds exactly the files `entry` lists. */
async function matchesLock(target: string, entry: LockedSkill): Promise<boolean> {
  if (lstatSyncOrNull(target) === null) return false;
  return diffFiles(entry.files, await fileHashes(target)).length === 0;
}

/**
 * Plans each selected candidate for the project at `root` whose lock is `lock`.
 * long because: each candidate's refusals are checked in the order their messages promise.
 */
async function planProjectInstall(
  root: string,
  lock: Lockfile,
  fetched: Fetched,
  selected: readonly Candidate[],
  options: Pick<PlanOptions, "rename" | "renames" | "allowRisky"> = {},
): Promise<ProjectPlanning> {
  // Names follow the rules of `skills add` for $SKILLS_HOME: renames first, then twins
  // (two skills that would share a folder) are both refused, each naming the other.
  const nameOf = installNames(selected, options);
  const twins = twinsOf(selected, nameOf);
  const planning: ProjectPlanning = { plans: [], already: [], refused: [] };
  const refuse = (c: Candidate, error: SkillError) =>
    planning.refused.push({ label: candidateLabel(c), error });
  const source = fetched.source;
  const nameFlag = (c: Candidate) =>
    selected.length === 1 ? "--name NAME" : `--name '${quoteName(candidateLabel(c))}=NAME'`;
  for (const candidate of selected) {
    const invalid = invalidCandidate(candidate, selected.length);
    if (invalid !== undefined || candidate.manifest === undefined) {
      refuse(candidate, invalid!);
      continue;
    }
    // The folder and the lockfile key are the installed name; a renamed skill's lock entry
    // carries the new name, and the catalog names the folder by its key (catalog/loader).
    const renamed = nameOf(candidate);
    const name = renamed ?? candidate.name!;
    const canonical = renamed !== undefined ? canonicalSkillName(renamed) : candidate.canonical!;
    const target = projectSkillDir(root, canonical);
    const twin = twins.get(candidate);
    if (twin !== undefined) {
      refuse(candidate, twinError(candidate, canonical, twin));
      continue;
    }
    const lockedSrc = lockedSource(
      source.type === "local" ? source : { type: source.type, url: source.url },
      candidate.rel,
      root,
    );
    const locked = Object.hasOwn(lock.skills, canonical) ? lock.skills[canonical] : undefined;
    if (locked !== undefined) {
      const sameSource = locked.source.type === lockedSrc.type &&
        locked.source.url === lockedSrc.url && locked.source.subpath === lockedSrc.subpath;
      const sameCommit = fetched.commit === null || locked.commit === fetched.commit.sha;
      if (sameSource && sameCommit && await matchesLock(target, locked)) {
        planning.already.push({ canonical, entry: locked, target });
        continue;
      }
      // As for $SKILLS_HOME: say each way out, --name spelled for just this skill.
      const keepBoth = `add this one under another name with ${nameFlag(candidate)}`;
      const [why, hint] = !sameSource
        ? [
          `from ${locked.source.url}`,
          `To keep both, ${keepBoth}; to replace it, \`skills remove ${canonical}\` first, then add again`,
        ]
        : sameCommit
        ? ["at this commit, but its folder is missing or changed", "Run `skills install`"]
        : ["at another commit", `Run \`skills update ${canonical}\` to move it`];
      refuse(
        candidate,
        new SkillError(
          "conflict",
          `Cannot install skill '${quoteName(canonical)}': skills-lock.json records it ${why}`,
          { hint },
        ),
      );
      continue;
    }
    if (lstatSyncOrNull(target) !== null) {
      refuse(
        candidate,
        new SkillError(
          "conflict",
          `Cannot install skill '${quoteName(canonical)}': ${target} already exists`,
          {
            hint:
              `Remove or rename that folder first, or install this one under another name with ${
                nameFlag(candidate)
              }`,
          },
        ),
      );
      continue;
    }
    await removeIfExists(join(candidate.dir, ".git"));
    const { files, digest } = await describeFiles(candidate.dir);
    const commit = fetched.commit;
    const entry: LockedSkill = {
      name,
      source: lockedSrc,
      branch: commit?.branch ?? null,
      tag: commit?.tag ?? null,
      ref: commit?.ref ?? null,
      commit: commit?.sha ?? null,
      digest,
      files,
      permissions: {
        env: [...candidate.manifest.envPatterns],
        network: networkList(candidate.manifest.network),
      },
      ...(fetched.signed ? { signed: fetched.signed } : {}),
    };
    const { audit, risky } = await auditCandidate(candidate, options.allowRisky);
    planning.plans.push({
      candidate,
      name,
      canonical,
      target,
      digest,
      entry,
      audit,
      risky,
    });
  }
  return planning;
}

/** What `skills add --project` will do once the user agrees, skill by skill. */
interface ProjectAddPlanning extends ProjectPlanning {
  /** Plans with critical findings nobody accepted: shown, then refused without a question. */
  risky: { plan: ProjectPlan; error: SkillError }[];
  /** The plans the user is asked about. */
  safe: ProjectPlan[];
}

/**
 * `skills add <source> --project` below the CLI: the project found from the working
 * directory, its transaction open (recovering what a dead command left), the lock read once.
 * The command plans, shows, asks, then commits each accepted plan and settles (trust and
 * links); it never touches the project's files itself.
 */
export class ProjectInstall implements AsyncDisposable {
  private constructor(
    readonly home: string,
    readonly root: string,
    /** The working directory the catalog is seen from (for the agents' links). */
    private readonly cwd: string,
    private readonly tx: ProjectChange,
  ) {}

  static async open(home: string, cwd: string): Promise<ProjectInstall> {
    const { root } = findProjectRoot(cwd);
    return new ProjectInstall(home, root, cwd, await beginProjectChange(root, home));
  }

  /** Notes about what a command that died had left half done (now recovered). */
  get recovered(): readonly string[] {
    return this.tx.recovered;
  }

  get lockfile(): string {
    return lockfilePath(this.root);
  }

  /** Plans each selected skill; critical findings nobody accepted are set apart. */
  async plan(
    fetched: Fetched,
    selected: readonly Candidate[],
    options: Pick<PlanOptions, "rename" | "renames" | "allowRisky">,
  ): Promise<ProjectAddPlanning> {
    const lock = lockForChange(readProjectLock(this.root));
    const planning = await planProjectInstall(this.root, lock, fetched, selected, options);
    const risky: ProjectAddPlanning["risky"] = [];
    const safe: ProjectPlan[] = [];
    for (const plan of planning.plans) {
      // Nothing keeps an acceptance for a project: the lockfile is shared, trust is per user.
      const error = riskyError([plan], "install", undefined);
      if (error === undefined) safe.push(plan);
      else risky.push({ plan, error });
    }
    return { ...planning, risky, safe };
  }

  /** Moves one accepted skill into `.agents/skills/` and records it in the lockfile. */
  async commit(plan: ProjectPlan): Promise<void> {
    const staged = await this.tx.stageCopy(
      plan.candidate.dir,
      plan.canonical,
      Object.keys(plan.entry.files),
    );
    await this.tx.commit(
      [{ canonical: plan.canonical, staged }],
      (current) => withLockedSkill(current, plan.canonical, plan.entry),
    );
  }

  /**
   * After the commits: the user who confirmed these files trusts them (in their
   * `$SKILLS_HOME`, bound to the digest), and `agents` get links to what is now installed.
   */
  async settle(
    installed: readonly ProjectPlan[],
    already: readonly ProjectAlready[],
    agents: readonly AgentName[],
    env: Readonly<Record<string, string>>,
  ): Promise<LinkOutcome[]> {
    await trustInstalled(this.home, this.root, installed.map((p) => p.canonical));
    const names = new Set([...installed, ...already].map((p) => p.canonical));
    const where = { scope: { kind: "project", root: this.root } as const, cwd: this.cwd };
    return await linkAdded(this.home, env, where, names, agents);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.tx[Symbol.asyncDispose]();
  }
}

/** A locked project skill `skills remove` would remove, with where its folder is. */
interface ProjectRemoval {
  key: string;
  entry: LockedSkill;
  dir: string;
}

/**
 * Which of the `names` given to `skills remove` are the project's (issue 17): those the
 * lockfile of the project seen from `cwd` records; the others are the user's. With
 * `--project`, a name the lockfile does not record is `not_found`.
 */
export function removalTargets(
  cwd: string,
  names: readonly string[],
  projectOnly: boolean,
): { root: string; inProject: ProjectRemoval[]; others: string[] } {
  const { root } = findProjectRoot(cwd);
  const read = readProjectLock(root);
  const locked = read.state === "ok" ? read.lock.skills : {};
  const inProject = names.filter((n) => Object.hasOwn(locked, n));
  const others = names.filter((n) => !inProject.includes(n));
  if (projectOnly && others.length > 0) {
    throw new SkillError(
      "not_found",
      `Cannot remove skill '${others[0]}': skills-lock.json does not record it`,
      { hint: "Run `skills list` to see the project's skills" },
    );
  }
  return {
    root,
    inProject: inProject.map((key) => ({
      key,
      entry: locked[key]!,
      dir: projectSkillDir(root, key),
    })),
    others,
  };
}

/**
 * Removes locked project skills the user confirmed: their folders and lock entries in one
 * project commit; this user's trust of them and the links made for them go too.
 */
export async function removeFromProject(
  home: string,
  root: string,
  keys: readonly string[],
): Promise<{ recovered: string[]; links: string[] }> {
  if (keys.length === 0) return { recovered: [], links: [] };
  const dirs = keys.map((key) => projectSkillDir(root, key));
  let recovered: string[];
  {
    await using tx = await beginProjectChange(root, home);
    recovered = [...tx.recovered];
    await tx.commit(
      keys.map((canonical) => ({ canonical, staged: null })),
      (lock) => keys.reduce(withoutLockedSkill, lock),
    );
  }
  await setProjectTrust(
    home,
    keys.map((key, i) => ({
      root,
      rel: `${PROJECT_SKILLS_DIR.join("/")}/${key}`,
      canonical: key,
      digest: null,
      dir: dirs[i]!,
    })),
  );
  return { recovered, links: await removeLinksTo(home, dirs) };
}

/** Removes installed skills the user confirmed, in one step of `change`, and their links. */
export async function removeInstalled(
  change: Change,
  home: string,
  entries: readonly RegistryEntry[],
): Promise<{ removed: string[]; notes: string[]; links: string[] }> {
  // A link may point at the folder by either path: as recorded, or resolved.
  const dirs = entries.flatMap((e) => [e.installed_path, realOrSame(e.installed_path)]);
  const { removed, notes } = entries.length > 0
    ? await change.remove(entries)
    : { removed: [], notes: [] };
  return { removed, notes, links: await removeLinksTo(home, dirs) };
}

function realOrSame(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

interface InstallFromLockOptions {
  /** `--frozen` (or CI): nothing is written unless every entry agrees. */
  frozen: boolean;
  /** `--force`: folders that differ are replaced. */
  force: boolean;
  /** `--trust`: this user approves what is then in place. */
  trust: boolean;
  env: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  progress?: ((message: string) => void) | undefined;
  /** Notes for the user as they arise (recoveries, conversions, copies left as they were). */
  note: (text: string) => void;
}

/** What `skills install` did: the restore's report and what followed from it. */
interface InstallFromLock {
  root: string;
  lockfile: string;
  format: "skills" | "vercel";
  report: RestoreReport & Partial<ForeignReport>;
  /** Mismatches that fail the command (nothing of theirs was written). */
  blocking: RestoreReport["mismatches"];
  trusted: string[];
  /** Restored skills this user has not approved (restoring is not approving). */
  untrusted: string[];
}

/**
 * `skills install` below the CLI: the project seen from `cwd` restored from its lockfile,
 * after what a dead command left is rolled back (lockfile or not). An absent or unreadable
 * lockfile is an error; mismatches are in the report.
 */
export async function installFromLock(
  home: string,
  cwd: string,
  options: InstallFromLockOptions,
): Promise<InstallFromLock> {
  const { root } = findProjectRoot(cwd);
  await using tx = await beginProjectChange(root, home);
  for (const note of tx.recovered) options.note(note);
  const read = readProjectLock(root);
  if (read.state === "absent") {
    throw new SkillError("not_found", `No skills-lock.json in ${root}`, {
      hint: "Record project skills with `skills add <source> --project`",
    });
  }
  if (read.state === "invalid") {
    throw new SkillError("parse_error", `Cannot read ${read.path}: it ${read.reason}`, {
      hint: "Restore it from git (`git checkout -- skills-lock.json`) or fix it by hand",
    });
  }
  await using change = await beginChange(home, {
    env: options.env,
    signal: options.signal,
    progress: options.progress,
    project: root,
  });
  for (const note of change.recovered) options.note(note);
  const ws = { root, home, change, tx };
  const restoreOptions = { frozen: options.frozen, force: options.force };
  const report: RestoreReport & Partial<ForeignReport> = read.state === "ok"
    ? await restoreLocked(ws, read.lock, restoreOptions)
    : await restoreForeign(ws, read.entries, restoreOptions);
  for (const note of report.notes ?? []) options.note(note);
  const blocking = report.mismatches.filter((m) => m.blocking);
  let trusted: string[] = [];
  if (options.trust && blocking.length === 0) {
    trusted = await trustInstalled(home, root, [...report.present, ...report.restored]);
  }
  // Copies `skills link --copy` made of the folders show what the lockfile restored.
  if (!options.frozen && blocking.length === 0) {
    const folders = trustedProjectFolders(home, root, [...report.present, ...report.restored]);
    for (const note of (await refreshCopies(home, folders)).notes) options.note(note);
  }
  const approved = readProjectTrust(home).doc.projects[root] ?? {};
  const untrusted = report.restored.filter((n) =>
    !trusted.includes(n) && approved[`${PROJECT_SKILLS_DIR.join("/")}/${n}`] === undefined
  );
  return {
    root,
    lockfile: read.path,
    format: read.state === "ok" ? "skills" : "vercel",
    report,
    blocking,
    trusted,
    untrusted,
  };
}
