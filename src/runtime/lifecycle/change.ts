/**
 * One change to the skills of one scope — the user's `$SKILLS_HOME` or a project — an
 * install, an update, a restore, a removal, a trust decision, as one object that owns the
 * crash-safety protocol, so that no front end (the CLI, the MCP server, a library) ever
 * touches staging, journals or the registry lock:
 *
 *   await using change = await beginChange({ kind: "user", home }, { env, signal, progress });
 *   for (const note of change.recovered) warn(note);
 *   const fetched = await change.fetch(source, request);
 *   const plans = await change.planInstall(fetched, selectCandidates(...));
 *   await change.commitInstall(plans);
 *
 * The scope decides where records go (the registry, or the project's `skills-lock.json`)
 * and where the skills' folders are; the protocol is one. Beginning a change rolls back
 * what dead commands left behind (store/recovery.ts). Fetches stage in
 * `$SKILLS_HOME/.staging` (clones are no project's files); what is moved into a project
 * stages in its `.agents/.staging`, on the skills' own filesystem, so a rename moves a
 * whole folder. Each commit takes the registry lock, journals its moves (store/journal.ts),
 * writes the scope's record last and undoes its moves on failure (commit.ts). Disposing
 * the change — after success, failure or Ctrl-C — removes its staging and trash, and the
 * folders it created that stayed empty. A preview (`add --list`, `update --dry-run`)
 * recovers nothing and cannot commit.
 */

import type { SourceType } from "../../core/records/registry.ts";
import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { type LockedSkill, withLockedSkill } from "../../core/records/lockfile.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import {
  PROJECT_SKILLS_DIR,
  type ProjectScope,
  type Scope,
  type UserScope,
} from "../../core/records/scope.ts";
import type { RefRequest, ResolvedSource, Transport } from "../../core/sources/sources.ts";
import { type GitOptions, inContext } from "../git/command.ts";
import { remoteRefs } from "../git/fetch.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { formatNetGrant } from "../../core/policy/grant_syntax.ts";
import { createStaging, disposeStaging, removeIfEmpty, type Staging } from "../store/staging.ts";
import { cleanStale, stagingBase } from "../store/recovery.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import {
  applyUpdates,
  asidePath,
  commitFolders,
  type CommitHooks,
  commitInstall,
  type FolderMove,
  type LockChange,
  recordCommits,
  recordRequirers,
  removeSkills,
  stageCopy,
  trustSkill,
  untrustSkill,
} from "./commit.ts";
import {
  type Candidate,
  fetchAnnouncement,
  type Fetched,
  fetchInto,
  sourceLabel,
} from "./fetch_source.ts";
import {
  type InstallPlan,
  type InstallPlanning,
  type PlanFor,
  planInstall,
  type PlanOptions,
  type ProjectPlan,
  refuseRisky,
  riskyError,
} from "./install_plan.ts";
import type {
  PlanUpdateOptions,
  ProjectUpdatePlan,
  RecordFor,
  UpdatePlan,
  UpdatePlanFor,
} from "./update_planner.ts";
import { type Signed, type SignerPolicy, signerPolicy } from "../signing/signer_policy.ts";
import type { OrgPolicy } from "../../core/governance/org_policy.ts";
import {
  admitSigned,
  admitSkillSigned,
  loadOrgPolicy,
  planRefusal,
  refuseSource,
  signerChange,
} from "../governance/install_policy.ts";

export type { LockChange };

interface ChangeOptions {
  /** The user's environment: git gets a filtered copy (and SKILLS_GIT_TIMEOUT from it). */
  env: Readonly<Record<string, string>>;
  /** Ctrl-C: stops git; whatever was staged is rolled back when the change is disposed. */
  signal?: AbortSignal | undefined;
  /** Progress lines (fetching, retrying); nothing is reported without it. */
  progress?: ((message: string) => void) | undefined;
  /** A read-only preview: no recovery at the start, and every commit refuses. */
  preview?: boolean | undefined;
  /**
   * A project whose signer policy applies on top of the user's (runtime/signing/signer_policy.ts)
   * though this change is the user's (`update --project` fetches through it). A project
   * scope's own root always applies.
   */
  project?: string | undefined;
  /** `--allow-unsigned`: an unsigned skill may pass the user's and project's signature rules. */
  allowUnsigned?: boolean | undefined;
  /** `--accept-signer-change`: an update signed by another signer than recorded is taken. */
  acceptSignerChange?: boolean | undefined;
}

/** A source as records keep it (a directory's path as its URL), for the policy. */
function recordedSource(source: ResolvedSource): { type: SourceType; url: string } {
  return { type: source.type, url: sourceLabel(source) };
}

/**
 * The scope a command works in: the project seen from `cwd` when `project` is set, else
 * the user's `$SKILLS_HOME`.
 */
export function scopeOf(home: string, cwd: string, project: boolean): Scope {
  return project
    ? { kind: "project", home, root: findProjectRoot(cwd).root }
    : { kind: "user", home };
}

/**
 * Starts a change in `scope`: recovers what dead commands left (unless a preview) — in the
 * scope, and in `$SKILLS_HOME`, where every change fetches.
 */
export async function beginChange<S extends Scope = UserScope>(
  scope: S,
  options: ChangeOptions,
): Promise<Change<S>> {
  return await Change.begin(scope, options);
}

export class Change<S extends Scope = UserScope> implements AsyncDisposable {
  readonly scope: S;
  readonly home: string;
  /** What recovering after dead commands did at the start, as notes for the user. */
  readonly recovered: readonly string[];
  readonly preview: boolean;
  readonly #options: ChangeOptions;
  /** Folders this change may create and removes again when they stayed empty. */
  readonly #created: string[];
  /** Where fetches stage: always `$SKILLS_HOME/.staging`. */
  #staging: Staging | undefined;
  /** Where folders moved into a project stage (the user scope moves from #staging). */
  #scopeStaging: Staging | undefined;
  #fetches = 0;
  #disposed = false;
  /** One ls-remote per remote for the whole change (`update --all` of one repo's skills). */
  readonly #remotes = new Map<string, Promise<ReadonlyMap<string, string>>>();
  /** One fetch per source and ref for the whole change (update_planner.ts). */
  readonly #shared = new Map<string, { url: string; root: string; fetched: Promise<Fetched> }>();
  /** The organisation's policy (runtime/governance), read once when first asked. */
  #orgPolicy: Promise<OrgPolicy | null> | undefined;

  private constructor(scope: S, options: ChangeOptions, recovered: string[], created: string[]) {
    this.scope = scope;
    this.home = scope.home;
    this.recovered = recovered;
    this.preview = options.preview === true;
    this.#options = options;
    this.#created = created;
  }

  static async begin<S extends Scope>(scope: S, options: ChangeOptions): Promise<Change<S>> {
    // The deepest first: disposing removes them in this order when they stayed empty.
    const created = [
      ...scope.kind === "project"
        ? [join(scope.root, ...PROJECT_SKILLS_DIR), stagingBase(scope)]
        : [],
      scope.home,
    ].filter((path) => lstatSyncOrNull(path) === null);
    const recovered = options.preview ? [] : [
      ...scope.kind === "project" ? await cleanStale(scope) : [],
      ...await cleanStale({ kind: "user", home: scope.home }),
    ];
    return new Change(scope, options, recovered, created);
  }

  /** Whether this change writes a project's skills (its lockfile the record). */
  inProject(): this is Change<ProjectScope> {
    return this.scope.kind === "project";
  }

  /** Whether this change writes `$SKILLS_HOME`'s skills (its registry the record). */
  inUser(): this is Change<UserScope> {
    return this.scope.kind === "user";
  }

  /**
   * A change of another scope for the same command (its environment, Ctrl-C and progress):
   * `update` writes a project's skills and the user's, each scope through its own change.
   */
  async alongside<T extends Scope>(scope: T): Promise<Change<T>> {
    return await Change.begin(scope, { ...this.#options, project: undefined });
  }

  /** Fetches a source to install from (or to preview) into this change's staging. */
  async fetch(source: ResolvedSource, request: RefRequest): Promise<Fetched> {
    const org = await this.orgPolicy();
    const what = `install from ${sourceLabel(source)}`;
    if (org !== null) await refuseSource(org, recordedSource(source), what);
    const root = this.#fetchRoot();
    this.#progress(fetchAnnouncement(source, request));
    const fetched = await fetchInto(source, request, root, this.#git()).catch((error) => {
      throw inContext(`Cannot install from ${sourceLabel(source)}`, error);
    });
    // A preview installs nothing, so it asks for no signature.
    const policy = this.preview ? null : this.signerPolicy();
    if (policy !== null) fetched.signed = await verifySigned(fetched, policy, this.#git());
    if (org !== null && !this.preview) {
      fetched.signed = await admitSigned(
        org,
        fetched,
        this.#options.env,
        what,
        this.#options.allowUnsigned,
      ) as Signed;
    }
    return fetched;
  }

  /** The signer policy this change's fetches must satisfy, read when asked (null: none). */
  signerPolicy(): SignerPolicy | null {
    return signerPolicy(this.home, this.#projectRoot());
  }

  /** The project whose files (signers, policy) apply to this change, if any. */
  #projectRoot(): string | undefined {
    return this.scope.kind === "project" ? this.scope.root : this.#options.project;
  }

  /**
   * The organisation's policy in force for this change (system, user, and the project's
   * when it writes one), null when no policy file exists; read once.
   */
  orgPolicy(): Promise<OrgPolicy | null> {
    return this.#orgPolicy ??= loadOrgPolicy(this.#options.env, this.home, this.#projectRoot());
  }

  /**
   * Plans each chosen candidate of a fetch on its own: the plans, the skills already
   * installed as they are, and the refused ones with their reasons.
   */
  async planEach(
    fetched: Fetched,
    selected: readonly Candidate[],
    options: PlanOptions = {},
  ): Promise<InstallPlanning<PlanFor<S>>> {
    const planning = await planInstall(this.scope, fetched, selected, options);
    const org = await this.orgPolicy();
    if (org === null) return planning;
    const admitted: PlanFor<S>[] = [];
    for (const plan of planning.plans) {
      const manifest = plan.candidate.manifest;
      if (fetched.signed === undefined && !this.preview) {
        // Nobody signed the fetch as a whole: the skill's own skill.oms.sig, if any.
        try {
          const signed = await admitSkillSigned(
            org,
            plan.candidate.dir,
            this.#options.env,
            `install skill '${plan.canonical}'`,
            this.#options.allowUnsigned,
          );
          if (signed !== undefined) (plan.entry as { signed?: unknown }).signed = signed;
        } catch (error) {
          planning.refused.push({ label: plan.canonical, error: error as SkillError });
          continue;
        }
      }
      const error = await planRefusal(
        org,
        {
          canonical: plan.canonical,
          findings: plan.audit.findings,
          network: [
            ...manifest?.network?.any ? ["*"] : [],
            ...(manifest?.network?.grants ?? []).map(formatNetGrant),
          ],
          env: manifest?.envPatterns ?? [],
        },
        options.allowRisky === true,
        "install",
      );
      if (error === undefined) admitted.push(plan);
      else planning.refused.push({ label: plan.canonical, error });
    }
    return { ...planning, plans: admitted };
  }

  /** All or nothing: the plans of every chosen candidate, or the first refusal thrown. */
  async planInstall(
    fetched: Fetched,
    selected: readonly Candidate[],
    options: PlanOptions = {},
  ): Promise<PlanFor<S>[]> {
    const planning = await this.planEach(fetched, selected, options);
    const invalid = planning.refused.filter((r) => r.error.code === "invalid_manifest");
    if (invalid.length > 1) {
      const reasons = invalid.map((r) => r.error.message.replace(/^Invalid skill: /, ""));
      throw new SkillError("invalid_manifest", `Invalid skill: ${reasons.join("; ")}`, {
        hint: "Nothing was installed",
      });
    }
    const first = planning.refused[0];
    if (first !== undefined) throw first.error;
    return planning.plans;
  }

  /**
   * Sets apart the plans whose critical findings nobody accepted (--allow-risky), each with
   * the error that refuses it: shown in the summary, then refused instead of asked about.
   */
  setRiskyApart(plans: readonly PlanFor<S>[]): {
    safe: PlanFor<S>[];
    risky: { plan: PlanFor<S>; error: SkillError }[];
  } {
    const safe: PlanFor<S>[] = [];
    const risky: { plan: PlanFor<S>; error: SkillError }[] = [];
    for (const plan of plans) {
      const error = riskyError([plan], "install", this.#acceptanceKeptIn());
      if (error === undefined) safe.push(plan);
      else risky.push({ plan, error });
    }
    return { safe, risky };
  }

  /**
   * Where an acceptance of critical findings is kept: the registry; nowhere for a project
   * (its lockfile is shared, and trust is per user).
   */
  #acceptanceKeptIn(): string | undefined {
    return this.scope.kind === "user" ? "the registry" : undefined;
  }

  /**
   * Installs every plan or none, under the registry lock, into the scope: the folders in
   * place, then the registry entries or the lock entries. Returns recovery notes. A plan
   * with critical audit findings nobody accepted (--allow-risky) is refused.
   */
  async commitInstall(plans: readonly PlanFor<S>[]): Promise<string[]> {
    refuseRisky(plans, "install", this.#acceptanceKeptIn());
    const staging = this.#commitStaging();
    this.#options.signal?.throwIfAborted();
    if (this.scope.kind === "user") {
      const registered = plans as readonly InstallPlan[];
      return await commitInstall(this.home, staging, registered, this.#options.signal);
    }
    const locked = plans as readonly ProjectPlan[];
    return await this.#commitLocked(
      locked.map((p) => ({ canonical: p.canonical, dir: p.candidate.dir, entry: p.entry })),
    );
  }

  /**
   * A project's commit of new folders: each copied into the project's staging (its files as
   * its lock entry lists them), then all moved in and their lock entries written, or none.
   */
  async #commitLocked(
    items: readonly { canonical: string; dir: string; entry: LockedSkill }[],
  ): Promise<string[]> {
    const moves: FolderMove[] = [];
    for (const { canonical, dir, entry } of items) {
      const files = Object.keys(entry.files);
      moves.push({ canonical, staged: await this.stageCopy(dir, canonical, files) });
    }
    return await this.commitFolders(
      moves,
      (lock) => items.reduce((next, i) => withLockedSkill(next, i.canonical, i.entry), lock),
    );
  }

  /**
   * Copies `files` (relative paths, already verified by the caller) from `from` into this
   * project change's staging as the new folder of `canonical`, with their modes.
   */
  async stageCopy(from: string, canonical: string, files: readonly string[]): Promise<string> {
    return await stageCopy(this.#scopeStage(), from, canonical, files);
  }

  /**
   * Moves every staged folder into the project's `.agents/skills/<canonical>` (the previous
   * one aside), removes the folders of `staged: null` moves, then writes `next(current
   * lock)` (or `next.replace`; with `next` null the lockfile is left as it is). All or
   * nothing; a failure puts every folder back. Returns recovery notes.
   */
  async commitFolders(
    moves: readonly FolderMove[],
    next: LockChange,
    hooks: CommitHooks = {},
  ): Promise<string[]> {
    this.#assertCanCommit();
    const staging = this.#scopeStage();
    const notes = await commitFolders(this.#projectScope(), staging, moves, next, hooks);
    // A service runs the files it started with: a project skill replaced or removed ends its.
    await this.#endServices(moves.map((move) => move.canonical));
    return notes;
  }

  /**
   * A source's files at `request` for the planners of updates and `outdated` (all skills of
   * one repository read the same fetch): a repository is fetched once per URL and ref for
   * the whole change and kept in its staging until the change ends; planners copy a skill's
   * folder out. A directory is copied anew each time.
   */
  fetchShared(source: ResolvedSource, request: RefRequest): Promise<Fetched> {
    // A directory holds one skill and is read anew each time (it may change meanwhile); an
    // artifact is pulled for the skill that names it.
    const key = source.type === "git" ? JSON.stringify([source.url, request]) : undefined;
    const shared = key === undefined ? undefined : this.#shared.get(key);
    if (shared !== undefined) return shared.fetched;
    const repository: ResolvedSource = source.type === "git" ? { ...source, subpath: "" } : source;
    const root = this.#fetchRoot();
    this.#progress(
      source.type === "git" ? `Fetching ${source.url} ...` : fetchAnnouncement(repository, request),
    );
    // The signer policy is applied to the fetch itself, before any skill's folder is read
    // out of it (a root skill's folder loses the clone's .git, which verify-commit reads).
    const policy = this.preview ? null : this.signerPolicy();
    const what = `install from ${sourceLabel(source)}`;
    const fetched = this.orgPolicy().then(async (org) => {
      if (org !== null) await refuseSource(org, recordedSource(source), what);
      const f = await fetchInto(repository, request, root, this.#git());
      if (policy !== null) f.signed = await verifySigned(f, policy, this.#git());
      if (org !== null && !this.preview) {
        f.signed = await admitSigned(
          org,
          f,
          this.#options.env,
          what,
          this.#options.allowUnsigned,
        ) as Signed;
      }
      return f;
    });
    // A failed fetch is not kept: the next skill asks again and reports its own error.
    fetched.catch(() => {
      if (key !== undefined) this.#shared.delete(key);
      removeQuietly(root);
    });
    if (key !== undefined) this.#shared.set(key, { url: sourceLabel(source), root, fetched });
    return fetched;
  }

  /**
   * Frees the shared fetches of every remote not in `needed` (the remotes of the skills a
   * command has still to plan), so that `update --all` keeps at most the fetches it will use.
   */
  releaseShared(needed: ReadonlySet<string>): void {
    for (const [key, shared] of this.#shared) {
      if (needed.has(shared.url)) continue;
      this.#shared.delete(key);
      removeQuietly(shared.root);
    }
  }

  /** Decides and (if the skill's files changed) stages the update of one installed skill. */
  async planUpdate(entry: RegistryEntry, options: PlanUpdateOptions = {}): Promise<UpdatePlan> {
    const user: UserScope = { kind: "user", home: this.home };
    return await this.planUpdateIn(user, entry.name_canonical, entry, options);
  }

  /**
   * Decides and (if the skill's files changed) stages the update of the skill `name` of
   * `scope` — this change's, or the project's whose skills this change fetches for (`update`
   * plans both scopes' skills with one command's caches, each scope's change commits them).
   */
  async planUpdateIn<T extends Scope>(
    scope: T,
    name: string,
    entry: RecordFor<T>,
    options: PlanUpdateOptions = {},
  ): Promise<UpdatePlanFor<T>> {
    let root: string | undefined;
    const workspace = {
      remoteRefs: (url: string, transport: Transport) => this.#remoteRefs(url, transport),
      fetchShared: async (source: ResolvedSource, request: RefRequest) => {
        const fetched = await this.fetchShared(source, request);
        // A directory's copy or an artifact's pull is this plan's own (not shared): freed
        // with the plan.
        if (source.type !== "git") root = fetched.root;
        return fetched;
      },
      fetchRoot: () => (root = this.#fetchRoot()),
    };
    try {
      const { planUpdate } = await import("./update_planner.ts");
      const plan = await planUpdate(scope, name, entry, options, workspace);
      if (plan.staged === undefined && root !== undefined) removeQuietly(root);
      await this.#refuseUpdate(plan, options.allowRisky === true);
      return plan;
    } catch (error) {
      if (root !== undefined) removeQuietly(root);
      throw error;
    }
  }

  /**
   * Throws the refusal of a staged update's new version, if any: a signer other than the one
   * recorded (trust on first use, unless --accept-signer-change, then recorded), and the
   * organisation policy's.
   */
  async #refuseUpdate(plan: UpdatePlanFor<Scope>, allowRisky: boolean): Promise<void> {
    if (plan.staged === undefined) return;
    const staged = plan.staged.entry as { signed?: Signed };
    const change = signerChange((plan.entry as { signed?: unknown }).signed, staged.signed);
    if (change !== undefined) {
      if (this.#options.acceptSignerChange !== true) {
        throw new SkillError(
          "signer_not_allowed",
          `Cannot update skill '${plan.canonical}': it was signed by ${change.from} when installed, and its new version by ${change.to}`,
          {
            hint:
              "A new signer may be a takeover: check it, then pass --accept-signer-change (recorded); nothing was updated",
          },
        );
      }
      staged.signed = {
        ...staged.signed!,
        accepted: "--accept-signer-change",
        previous: change.from,
        at: new Date().toISOString(),
      };
    }
    const org = await this.orgPolicy();
    if (org === null) return;
    const next = plan.staged.entry as Partial<LockedSkill> & { approved_network?: string[] };
    const error = await planRefusal(
      org,
      {
        canonical: plan.canonical,
        findings: plan.staged.audit.report.findings,
        network: next.approved_network ?? next.permissions?.network ?? [],
        env: next.permissions?.env ?? [],
      },
      allowRisky,
      "update",
    );
    if (error !== undefined) throw error;
  }

  /** Swaps a planned update in, under the registry lock. Returns recovery notes. */
  async applyUpdate(plan: UpdatePlanFor<S>): Promise<string[]> {
    return await this.applyUpdates([plan]);
  }

  /**
   * Swaps planned updates in, all or none, in one write of the scope's record (the
   * registry, or the lockfile). A plan with new critical findings nobody accepted
   * (--allow-risky) is refused. Returns recovery notes.
   */
  async applyUpdates(plans: readonly UpdatePlanFor<S>[]): Promise<string[]> {
    this.#assertCanCommit();
    // Up to date or pinned: nothing to swap.
    const staged = plans.filter((plan) => plan.staged !== undefined);
    if (staged.length === 0) return [];
    refuseRisky(
      staged.map((p) => ({ canonical: p.canonical, risky: p.staged!.risky })),
      "update",
      this.#acceptanceKeptIn(),
    );
    if (this.scope.kind === "user") {
      const staging = this.#stage();
      this.#options.signal?.throwIfAborted();
      const applied = await applyUpdates(this.home, staging, staged as readonly UpdatePlan[]);
      // A service runs the version it started with: an updated skill's services end.
      await this.#endServices(staged.map((plan) => plan.canonical));
      return applied;
    }
    const locked = staged as readonly ProjectUpdatePlan[];
    return await this.#commitLocked(
      locked.map((p) => ({ canonical: p.canonical, dir: p.staged!.dir, entry: p.staged!.entry })),
    );
  }

  /**
   * Records, in one write of the scope's record, the new commits of skills whose repository
   * moved while their own files did not (plans of kind "moved"); their files are left as
   * they are. An entry another command changed meanwhile is a conflict in `$SKILLS_HOME`,
   * and left as it is in a lockfile.
   */
  async recordMoved(plans: readonly UpdatePlanFor<S>[]): Promise<string[]> {
    this.#assertCanCommit();
    const moved = plans.filter((p) => p.kind === "moved" && p.newSha !== null);
    if (this.scope.kind === "user") {
      const moves = (moved as readonly UpdatePlan[]).flatMap((p) =>
        p.newSha === null ? [] : [{ entry: p.entry, sha: p.newSha }]
      );
      return await recordCommits(this.home, moves);
    }
    if (moved.length === 0) return [];
    return await this.commitFolders([], (lock) => {
      let next = lock;
      for (const plan of moved as readonly ProjectUpdatePlan[]) {
        const current = next.skills[plan.canonical];
        if (current?.commit !== plan.entry.commit || current.digest !== plan.entry.digest) continue;
        next = withLockedSkill(next, plan.canonical, { ...current, commit: plan.newSha });
      }
      return next;
    });
  }

  /**
   * Records that installed dependencies are required by more skills (an install whose closure
   * met them again): one write of the scope's record, no file moves. Only entries some skill
   * already required are extended; a skill the user asked for is never made a dependency.
   */
  async recordRequirers(
    additions: readonly { canonical: string; requiredBy: readonly string[] }[],
  ): Promise<string[]> {
    this.#assertCanCommit();
    if (this.scope.kind === "user") return await recordRequirers(this.home, additions);
    if (additions.length === 0) return [];
    return await this.commitFolders([], (lock) => {
      let next = lock;
      for (const { canonical, requiredBy } of additions) {
        const current = next.skills[canonical];
        const by = current?.requiredBy;
        if (current === undefined || !Array.isArray(by) || by.length === 0) continue;
        const merged = [...new Set([...by, ...requiredBy])].sort();
        if (merged.length !== by.length) {
          next = withLockedSkill(next, canonical, { ...current, requiredBy: merged });
        }
      }
      return next;
    });
  }

  /**
   * Frees what a plan staged (the new version when not applied, the old one when applied)
   * without waiting for the end of the change: `update --all` stages one skill at a time.
   */
  discard(plan: UpdatePlan | ProjectUpdatePlan): void {
    if (plan.staged === undefined || this.#staging === undefined) return;
    removeQuietly(plan.staged.root);
    // An installed skill's previous folder waits in this change's trash; a project's, in
    // the project change's (removed with it).
    if (plan.scope === "user" && this.scope.kind === "user") {
      removeQuietly(asidePath(this.#staging, plan.canonical));
    }
  }

  /**
   * Removes installed skills (entries from `entriesToRemove`) in one step; an entry another
   * command changed meanwhile is a conflict. The files are deleted before this returns.
   */
  async remove(
    entries: readonly RegistryEntry[],
  ): Promise<{ removed: string[]; notes: string[] }> {
    this.#assertCanCommit("user");
    // A skill that is removed keeps nothing running: its services end (their diffs applied) first.
    await this.#endServices(entries.map((entry) => entry.name_canonical));
    const staging = this.#commitStaging();
    const result = await removeSkills(this.home, staging, entries);
    removeQuietly(staging.trash);
    return result;
  }

  /** Records approval of `digest` (computed and shown by the caller). */
  async trust(entry: RegistryEntry, digest: string): Promise<RegistryEntry> {
    this.#assertCanCommit("user");
    return await trustSkill(this.home, entry, digest);
  }

  /** Withdraws approval; the skill stays installed but will not run. */
  async untrust(entry: RegistryEntry): Promise<RegistryEntry> {
    this.#assertCanCommit("user");
    const untrusted = await untrustSkill(this.home, entry);
    // No service outlives the trust it started under.
    await this.#endServices([entry.name_canonical]);
    return untrusted;
  }

  /** Ends the running services of these skills (runtime/services), waiting for each to end. */
  async #endServices(canonicals: readonly string[]): Promise<void> {
    if (canonicals.length === 0) return; // a first install: no service to end, nothing loaded
    const { stopSkillServices } = await import("../services/control.ts");
    for (const canonical of canonicals) {
      await stopSkillServices(this.home, canonical, this.#options.env);
    }
  }

  /**
   * A remote's branches and tags, asked once per remote for the whole change (project
   * restores and updates ask through here too).
   */
  remoteRefs(url: string, transport: Transport): Promise<ReadonlyMap<string, string>> {
    return this.#remoteRefs(url, transport);
  }

  /** Removes the staging areas, and the folders this change created that stayed empty. */
  [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    this.#disposed = true;
    if (this.#scopeStaging !== undefined) disposeStaging(this.#scopeStaging);
    if (this.#staging !== undefined) disposeStaging(this.#staging);
    for (const path of this.#created) removeIfEmpty(path);
    return Promise.resolve();
  }

  #progress(message: string): void {
    this.#options.progress?.(message);
  }

  #remoteRefs(url: string, transport: Transport): Promise<ReadonlyMap<string, string>> {
    let refs = this.#remotes.get(url);
    if (refs === undefined) {
      this.#progress(`Checking ${url} ...`);
      refs = remoteRefs(url, transport, this.#git());
      // A failed query is not kept: the next skill asks again and reports its own error.
      refs.catch(() => this.#remotes.delete(url));
      this.#remotes.set(url, refs);
    }
    return refs;
  }

  #git(): GitOptions {
    return {
      env: this.#options.env,
      signal: this.#options.signal,
      onRetry: (attempt, delay, reason) =>
        this.#progress(`${reason}; retrying in ${delay / 1000}s (attempt ${attempt})`),
    };
  }

  /** This change's staging directory in `$SKILLS_HOME`, created on first use. */
  #stage(): Staging {
    if (this.#disposed) throw new Error("This change is over: it was disposed");
    this.#staging ??= createStaging(this.home);
    return this.#staging;
  }

  /** The project's staging directory, on the skills' filesystem, created on first use. */
  #scopeStage(): Staging {
    if (this.#disposed) throw new Error("This change is over: it was disposed");
    this.#scopeStaging ??= createStaging(stagingBase(this.#projectScope()));
    return this.#scopeStaging;
  }

  #projectScope(): ProjectScope {
    if (this.scope.kind !== "project") {
      throw new Error("A change of $SKILLS_HOME does not write a project's lockfile");
    }
    return this.scope;
  }

  /** A fresh directory path in staging for one fetch (the first is `src`). */
  #fetchRoot(): string {
    const n = ++this.#fetches;
    return join(this.#stage().path, n === 1 ? "src" : `src-${n}`);
  }

  /** `kind`: the scope a commit writes the record of (a registry write, a lockfile write). */
  #assertCanCommit(kind?: Scope["kind"]): void {
    if (this.preview) throw new Error("A preview cannot change the installed skills");
    if (this.#disposed) throw new Error("This change is over: it was disposed");
    if (kind !== undefined && this.scope.kind !== kind) {
      throw new Error(`This commit is for the ${kind} scope, not the ${this.scope.kind} scope`);
    }
  }

  #commitStaging(): Staging {
    this.#assertCanCommit();
    return this.#stage();
  }
}

/** Best effort, like disposeStaging: whatever stays is removed with the staging area. */
function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch { /* gone already */ }
}

/**
 * Who signed a fetch (signatures.ts), imported only where a signer policy exists: an add
 * without one loads none of the signature readers.
 */
async function verifySigned(
  fetched: Fetched,
  policy: SignerPolicy,
  git: GitOptions,
): Promise<Signed> {
  const { verifySigner } = await import("./signatures.ts");
  return await verifySigner(fetched, policy, git);
}
