/**
 * One change to the installed skills — an install, an update, a removal, a trust
 * decision — as one object that owns the crash-safety protocol, so that no front end (the
 * CLI, the MCP server, a library) ever touches staging, intents or the registry lock:
 *
 *   await using change = await beginChange(home, { env, signal, progress });
 *   for (const note of change.recovered) warn(note);
 *   const fetched = await change.fetch(source, request);
 *   const plans = await change.planInstall(fetched, selectCandidates(...));
 *   await change.commitInstall(plans);
 *
 * Beginning a change rolls back what dead commands left behind (store/staging.ts). The
 * change stages in one directory of `$SKILLS_HOME/.staging`, created only when something
 * is fetched or moved; each commit takes the registry lock, journals its moves and undoes
 * them on failure (commit.ts). Disposing the change — after success, failure or Ctrl-C —
 * removes its staging and trash, and a `$SKILLS_HOME` it created that stayed empty. A
 * preview (`add --list`, `update --dry-run`) recovers nothing and cannot commit.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import type { RefRequest, Source, Transport } from "../../core/sources/sources.ts";
import { type GitOptions, inContext } from "../git/command.ts";
import { remoteRefs } from "../git/fetch.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import {
  cleanStale,
  createStaging,
  disposeStaging,
  removeIfEmpty,
  type Staging,
} from "../store/staging.ts";
import {
  applyUpdates,
  asidePath,
  commitInstall,
  recordCommits,
  removeSkills,
  trustSkill,
  untrustSkill,
} from "./commit.ts";
import { fetchAnnouncement, type Fetched, fetchInto, sourceLabel } from "./fetch_source.ts";
import {
  type Candidate,
  type InstallPlan,
  type InstallPlanning,
  planInstall,
  type PlanOptions,
  refuseRisky,
} from "./install_plan.ts";
import { planUpdate, type PlanUpdateOptions, type UpdatePlan } from "./update_installed.ts";
import { verifySigner } from "./signatures.ts";
import { type SignerPolicy, signerPolicy } from "../signing/policy.ts";

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
   * The project this change installs into (its root): its signer policy applies on top of
   * the user's (runtime/signing/policy.ts).
   */
  project?: string | undefined;
}

/** Starts a change: recovers what dead commands left (unless a preview). */
export async function beginChange(home: string, options: ChangeOptions): Promise<Change> {
  return await Change.begin(home, options);
}

export class Change implements AsyncDisposable {
  readonly home: string;
  /** What recovering after dead commands did at the start, as notes for the user. */
  readonly recovered: readonly string[];
  readonly preview: boolean;
  readonly #options: ChangeOptions;
  readonly #homeExisted: boolean;
  #staging: Staging | undefined;
  #fetches = 0;
  #disposed = false;
  /** One ls-remote per remote for the whole change (`update --all` of one repo's skills). */
  readonly #remotes = new Map<string, Promise<ReadonlyMap<string, string>>>();
  /** One fetch per source and ref for the whole change (update_planner.ts). */
  readonly #shared = new Map<string, { url: string; root: string; fetched: Promise<Fetched> }>();

  private constructor(home: string, options: ChangeOptions, recovered: string[]) {
    this.home = home;
    this.recovered = recovered;
    this.preview = options.preview === true;
    this.#options = options;
    this.#homeExisted = lstatSyncOrNull(home) !== null;
  }

  static async begin(home: string, options: ChangeOptions): Promise<Change> {
    const recovered = options.preview ? [] : await cleanStale(home);
    return new Change(home, options, recovered);
  }

  /** Fetches a source to install from (or to preview) into this change's staging. */
  async fetch(source: Source, request: RefRequest): Promise<Fetched> {
    const root = this.#fetchRoot();
    this.#progress(fetchAnnouncement(source, request));
    const fetched = await fetchInto(source, request, root, this.#git()).catch((error) => {
      throw inContext(`Cannot install from ${sourceLabel(source)}`, error);
    });
    // A preview installs nothing, so it asks for no signature.
    const policy = this.preview ? null : this.signerPolicy();
    if (policy !== null) fetched.signed = await verifySigner(fetched, policy, this.#git());
    return fetched;
  }

  /** The signer policy this change's fetches must satisfy, read when asked (null: none). */
  signerPolicy(): SignerPolicy | null {
    return signerPolicy(this.home, this.#options.project);
  }

  /**
   * Plans each chosen candidate of a fetch on its own: the plans, the skills already
   * installed as they are, and the refused ones with their reasons.
   */
  async planEach(
    fetched: Fetched,
    selected: readonly Candidate[],
    options: PlanOptions = {},
  ): Promise<InstallPlanning> {
    return await planInstall(this.home, fetched, selected, options);
  }

  /** All or nothing: the plans of every chosen candidate, or the first refusal thrown. */
  async planInstall(
    fetched: Fetched,
    selected: readonly Candidate[],
    options: PlanOptions = {},
  ): Promise<InstallPlan[]> {
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
   * Installs every plan or none, under the registry lock. Returns recovery notes. A plan
   * with critical audit findings nobody accepted (--allow-risky) is refused.
   */
  async commitInstall(plans: readonly InstallPlan[]): Promise<string[]> {
    refuseRisky(plans);
    const staging = this.#commitStaging();
    this.#options.signal?.throwIfAborted();
    return await commitInstall(this.home, staging, plans, this.#options.signal);
  }

  /**
   * A source's files at `request` for the planners of updates and `outdated` (all skills of
   * one repository read the same fetch): a repository is fetched once per URL and ref for
   * the whole change and kept in its staging until the change ends; planners copy a skill's
   * folder out. A directory is copied anew each time.
   */
  fetchShared(source: Source, request: RefRequest): Promise<Fetched> {
    // A directory holds one skill and is read anew each time (it may change meanwhile); an
    // artifact is pulled for the skill that names it.
    const key = source.type === "git" ? JSON.stringify([source.url, request]) : undefined;
    const shared = key === undefined ? undefined : this.#shared.get(key);
    if (shared !== undefined) return shared.fetched;
    const repository: Source = source.type === "git" ? { ...source, subpath: "" } : source;
    const root = this.#fetchRoot();
    this.#progress(
      source.type === "git" ? `Fetching ${source.url} ...` : fetchAnnouncement(repository, request),
    );
    // The signer policy is applied to the fetch itself, before any skill's folder is read
    // out of it (a root skill's folder loses the clone's .git, which verify-commit reads).
    const policy = this.preview ? null : this.signerPolicy();
    const fetched = fetchInto(repository, request, root, this.#git()).then(async (f) => {
      if (policy !== null) f.signed = await verifySigner(f, policy, this.#git());
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
    let root: string | undefined;
    const workspace = {
      remoteRefs: (url: string, transport: Transport) => this.#remoteRefs(url, transport),
      fetchShared: async (source: Source, request: RefRequest) => {
        const fetched = await this.fetchShared(source, request);
        // A directory's copy or an artifact's pull is this plan's own (not shared): freed
        // with the plan.
        if (source.type !== "git") root = fetched.root;
        return fetched;
      },
      fetchRoot: () => (root = this.#fetchRoot()),
    };
    try {
      const plan = await planUpdate(this.home, entry, options, workspace);
      if (plan.staged === undefined && root !== undefined) removeQuietly(root);
      return plan;
    } catch (error) {
      if (root !== undefined) removeQuietly(root);
      throw error;
    }
  }

  /** Swaps a planned update in, under the registry lock. Returns recovery notes. */
  async applyUpdate(plan: UpdatePlan): Promise<string[]> {
    return await this.applyUpdates([plan]);
  }

  /** Swaps planned updates in, all or none, in one registry write. Returns recovery notes. */
  async applyUpdates(plans: readonly UpdatePlan[]): Promise<string[]> {
    this.#assertCanCommit();
    // Up to date or pinned: nothing to swap.
    const staged = plans.filter((plan) => plan.staged !== undefined);
    if (staged.length === 0) return [];
    refuseRisky(staged.map((p) => ({ canonical: p.canonical, risky: p.staged!.risky })), "update");
    const staging = this.#stage();
    this.#options.signal?.throwIfAborted();
    return await applyUpdates(this.home, staging, staged);
  }

  /**
   * Records, in one registry write, the new commits of skills whose repository moved while
   * their own files did not (plans of kind "moved"); their files are left as they are.
   */
  async recordMoved(plans: readonly UpdatePlan[]): Promise<string[]> {
    this.#assertCanCommit();
    const moves = plans.flatMap((p) =>
      p.kind === "moved" && p.newSha !== null ? [{ entry: p.entry, sha: p.newSha }] : []
    );
    return await recordCommits(this.home, moves);
  }

  /**
   * Frees what a plan staged (the new version when not applied, the old one when applied)
   * without waiting for the end of the change: `update --all` stages one skill at a time.
   */
  discard(plan: UpdatePlan): void {
    if (plan.staged === undefined || this.#staging === undefined) return;
    removeQuietly(plan.staged.root);
    removeQuietly(asidePath(this.#staging, plan.canonical));
  }

  /**
   * Removes installed skills (entries from `entriesToRemove`) in one step; an entry another
   * command changed meanwhile is a conflict. The files are deleted before this returns.
   */
  async remove(
    entries: readonly RegistryEntry[],
  ): Promise<{ removed: string[]; notes: string[] }> {
    const staging = this.#commitStaging();
    const result = await removeSkills(this.home, staging, entries);
    removeQuietly(staging.trash);
    return result;
  }

  /** Records approval of `digest` (computed and shown by the caller). */
  async trust(entry: RegistryEntry, digest: string): Promise<RegistryEntry> {
    this.#assertCanCommit();
    return await trustSkill(this.home, entry, digest);
  }

  /** Withdraws approval; the skill stays installed but will not run. */
  async untrust(entry: RegistryEntry): Promise<RegistryEntry> {
    this.#assertCanCommit();
    return await untrustSkill(this.home, entry);
  }

  /**
   * A remote's branches and tags, asked once per remote for the whole change (project
   * restores and updates ask through here too).
   */
  remoteRefs(url: string, transport: Transport): Promise<ReadonlyMap<string, string>> {
    return this.#remoteRefs(url, transport);
  }

  /** Removes the staging area and a `$SKILLS_HOME` this change created that stayed empty. */
  [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    this.#disposed = true;
    if (this.#staging !== undefined) disposeStaging(this.#staging);
    if (!this.#homeExisted) removeIfEmpty(this.home);
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

  /** This change's staging directory, created on first use. */
  #stage(): Staging {
    if (this.#disposed) throw new Error("This change is over: it was disposed");
    this.#staging ??= createStaging(this.home);
    return this.#staging;
  }

  /** A fresh directory path in staging for one fetch (the first is `src`). */
  #fetchRoot(): string {
    const n = ++this.#fetches;
    return join(this.#stage().path, n === 1 ? "src" : `src-${n}`);
  }

  #assertCanCommit(): void {
    if (this.preview) throw new Error("A preview cannot change the installed skills");
    if (this.#disposed) throw new Error("This change is over: it was disposed");
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
