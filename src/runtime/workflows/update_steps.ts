/**
 * The steps of `skills update` for both scopes (`beginUpdates`, for update.ts): which names
 * are the project's and which the user's, and one step per skill (plan, apply, discard)
 * whatever its scope, so the workflow only shows, asks and applies. Every skill is planned by the one
 * update planner (lifecycle/update_planner.ts, with its scope) through the command's change,
 * which fetches for both; each scope's change commits its plans (the project's folders and
 * lockfile, the user's folders and registry). Around a commit, what only a scope has: a
 * project skill this user trusted stays trusted, an installed skill's audit is recorded,
 * and copies `skills link --copy` made are refreshed.
 */

import type { LockedSkill } from "../../core/records/lockfile.ts";
import type { RefRequest } from "../../core/sources/sources.ts";
import type { Change } from "../lifecycle/change.ts";
import { entriesToUpdate } from "../lifecycle/update_installed.ts";
import {
  type ProjectUpdatePlan,
  trackedEntry,
  trackedLocked,
  type TrackedSkill,
  type UpdatePlan,
} from "../lifecycle/update_planner.ts";
import type { ProjectScope, Scope, UserScope } from "../../core/records/scope.ts";
import { isSkillError, SkillError } from "../../core/errors.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import { sourceLabel } from "../lifecycle/fetch_source.ts";
import { saveAuditRecord } from "../audit/installed_audit.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import { projectSkillDir } from "../lifecycle/lock_entries.ts";
import { readProjectLock } from "../store/lockfile.ts";
import { refreshCopies } from "../project/links.ts";
import { setProjectTrust } from "../project/approvals.ts";
import type { ScopeChoice } from "./request.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { readProjectTrust } from "../store/project_records.ts";

/**
 * Swaps a planned update of a locked skill in (folder and lock entry in one commit). A
 * skill this user trusted stays trusted with the new digest — they reviewed and confirmed
 * the update — as installed skills do; an untrusted one stays untrusted. Copies `skills
 * link --copy` made of the folder are refreshed; returns notes on those left as they were.
 */
async function applyProjectUpdate(
  tx: Change<ProjectScope>,
  home: string,
  plan: ProjectUpdatePlan,
): Promise<string[]> {
  const staged = plan.staged;
  if (plan.kind !== "update" || staged === undefined) return [];
  const rel = `${PROJECT_SKILLS_DIR.join("/")}/${plan.canonical}`;
  const root = tx.scope.root;
  const wasTrusted = readProjectTrust(home).doc.projects[root]?.[rel] !== undefined;
  await tx.applyUpdate(plan);
  const folder = projectSkillDir(root, plan.canonical);
  if (wasTrusted) {
    await setProjectTrust(home, [{
      root,
      rel,
      canonical: plan.canonical,
      digest: staged.entry.digest,
      dir: folder,
    }]);
  }
  // Copies `skills link --copy` made of the folder show the new files too.
  const trusted = wasTrusted ? staged.entry.digest : null;
  return (await refreshCopies(home, [{ dir: folder, trusted }])).notes;
}

/** One skill's update, whatever its scope: plan it, apply the plan, free what it staged. */
export interface UpdateStep {
  name: string;
  scope: Scope["kind"];
  /** The URL of the skill's repository (or its directory), as the change fetches it. */
  remote: string | undefined;
  plan: () => Promise<UpdateView>;
  /** Applies the plan `plan` returned; returns notes for the user. */
  apply: () => Promise<string[]>;
  /** Its swap may wait and be made with the others' (`Updates.applyTogether`). */
  together?: boolean;
  discard: () => void;
}

/** What a step's plan shows: an installed skill's plan or a locked one's, by its name. */
export type UpdateView = UpdatePlan | ProjectUpdatePlan;

/** Which skills `skills update` means, and what it asks of each scope. */
interface StepsRequest {
  /** Canonical names; none means every skill of the scopes asked (`--all`, `--project`). */
  names: readonly string[];
  all: boolean;
  /** `"project"` (`--project`): the project's skills only; `"user"`: the installed ones. */
  scope?: ScopeChoice;
  /** `--dry-run`: the project is not touched, not even to recover a dead command's leftovers. */
  dryRun: boolean;
  ref: RefRequest | undefined;
  allowRisky: boolean;
}

/** The steps of one `skills update`, the project's skills first, then the user's. */
export interface Updates extends AsyncDisposable {
  steps: UpdateStep[];
  /** Notes about what a dead command had left half done in the project (now recovered). */
  recovered: readonly string[];
  /** Records the new commit of every planned skill whose repository moved but files did not. */
  recordMoved: () => Promise<string[]>;
  /**
   * Applies the planned updates of the installed skills `names` (each `together`): all in one
   * step (one lock, one journal, one registry write), and only if that fails, one by one, so
   * that one skill's failure does not take the others with it. Per name: notes, or the error.
   */
  applyTogether: (names: readonly string[]) => Promise<Map<string, string[] | SkillError>>;
}

/**
 * Which names are the project's (issue 17): those its skills-lock.json records (a project
 * skill wins over an installed one of the same name), all of them with --all or --project.
 */
function projectNames(asked: StepsRequest, locked: Readonly<Record<string, LockedSkill>>) {
  if (asked.scope === "user") return [];
  const project = asked.scope === "project";
  if (asked.names.length === 0) {
    return asked.all || project ? Object.keys(locked).sort() : [];
  }
  const mine = asked.names.filter((n) => Object.hasOwn(locked, n));
  const other = asked.names.find((n) => !Object.hasOwn(locked, n));
  if (project && other !== undefined) {
    throw new SkillError(
      "not_found",
      `Cannot update skill '${other}': skills-lock.json does not record it`,
      {
        hint: "Run `skills list` to see the project's skills",
      },
    );
  }
  return mine;
}

/**
 * Opens `skills update` over both scopes seen from `cwd`: the project's locked skills (its
 * transaction opened unless this is a dry run) and the user's installed ones, through the
 * command's `change` (which owns fetches and the user's commits).
 */
export async function beginUpdates(
  home: string,
  cwd: string,
  change: Change,
  asked: StepsRequest,
): Promise<Updates> {
  const project = asked.scope === "project";
  const { root } = findProjectRoot(cwd);
  const read = readProjectLock(root);
  if (project && read.state !== "ok") {
    throw new SkillError("not_found", `No usable skills-lock.json in ${root}`, {
      hint: read.state === "absent"
        ? "Record project skills with `skills add <source> --project`"
        : "Run `skills install` or `skills check` for details",
    });
  }
  const locked = read.state === "ok" ? read.lock.skills : {};
  const inProject = projectNames(asked, locked);
  const userNames = asked.names.filter((n) => !inProject.includes(n));
  const entries = project || (userNames.length === 0 && !asked.all)
    ? []
    : await entriesToUpdate(home, userNames);
  const scope: ProjectScope = { kind: "project", home, root };
  // One change per scope: the project's writes its folders and lockfile; `change` (the
  // user's) fetches for both and writes the registry.
  const tx = asked.dryRun || inProject.length === 0 ? undefined : await change.alongside(scope);
  const locks = projectSteps(scope, inProject, { locked, change, tx, ...asked });
  const user = userSteps({ kind: "user", home }, entries, { change, ...asked });
  return {
    steps: [...locks.steps, ...user.steps],
    recovered: tx?.recovered ?? [],
    recordMoved: async () => [...await locks.recordMoved(), ...await user.recordMoved()],
    applyTogether: user.applyTogether!,
    [Symbol.asyncDispose]: async () => {
      await tx?.[Symbol.asyncDispose]();
    },
  };
}

interface Steps {
  steps: UpdateStep[];
  recordMoved: () => Promise<string[]>;
  applyTogether?: Updates["applyTogether"];
}

/** Where a skill is fetched from; undefined when its record is unusable (planning says why). */
function remoteOf(track: () => TrackedSkill): string | undefined {
  try {
    return sourceLabel(track().source);
  } catch {
    return undefined;
  }
}

/** The locked project skills `keys` (folder and lock entry swapped together). */
function projectSteps(
  scope: ProjectScope,
  keys: readonly string[],
  ws: {
    locked: Readonly<Record<string, LockedSkill>>;
    change: Change;
    tx: Change<ProjectScope> | undefined;
    ref: RefRequest | undefined;
    allowRisky: boolean;
  },
): Steps {
  const planned: ProjectUpdatePlan[] = [];
  const steps = keys.map((key): UpdateStep => {
    let plan: ProjectUpdatePlan | undefined;
    return {
      name: key,
      scope: scope.kind,
      remote: remoteOf(() => trackedLocked(scope.root, key, ws.locked[key]!)),
      plan: async () => {
        plan = await ws.change.planUpdateIn(scope, key, ws.locked[key]!, {
          request: ws.ref,
          allowRisky: ws.allowRisky,
        });
        planned.push(plan);
        return plan;
      },
      apply: () => applyProjectUpdate(ws.tx!, scope.home, plan!),
      discard: () => {
        if (plan) ws.change.discard(plan);
      },
    };
  });
  return {
    steps,
    recordMoved: async () => {
      // The lockfile's recovery notes were the project change's to give, at its start.
      if (ws.tx !== undefined) await ws.tx.recordMoved(planned);
      return [];
    },
  };
}

/** The installed skills `entries` (swapped in `$SKILLS_HOME` under the registry lock). */
function userSteps(
  scope: UserScope,
  entries: readonly RegistryEntry[],
  ws: { change: Change; ref: RefRequest | undefined; allowRisky: boolean },
): Steps {
  const planned: UpdatePlan[] = [];
  const plans = new Map<string, UpdatePlan>();
  /** What follows a swap: the audit record, and copies `skills link --copy` made of it. */
  const after = async (plan: UpdatePlan) => {
    const staged = plan.staged!;
    await saveAuditRecord(scope.home, plan.canonical, staged.digest, staged.audit.report);
    const folder = { dir: plan.entry.installed_path, trusted: staged.entry.trusted_digest };
    return (await refreshCopies(scope.home, [folder])).notes;
  };
  const steps = entries.map((entry): UpdateStep => {
    let plan: UpdatePlan | undefined;
    return {
      name: entry.name_canonical,
      scope: scope.kind,
      together: true,
      remote: remoteOf(() => trackedEntry(entry)),
      plan: async () => {
        plan = await ws.change.planUpdate(entry, {
          request: ws.ref,
          allowRisky: ws.allowRisky,
        });
        planned.push(plan);
        plans.set(entry.name_canonical, plan);
        return plan;
      },
      apply: async () => [...await ws.change.applyUpdate(plan!), ...await after(plan!)],
      discard: () => {
        if (plan) ws.change.discard(plan);
      },
    };
  });
  const applyTogether = async (names: readonly string[]) => {
    const chosen = names.map((name) => plans.get(name)!);
    const results = new Map<string, string[] | SkillError>();
    try {
      const notes = await ws.change.applyUpdates(chosen);
      for (const [i, plan] of chosen.entries()) {
        results.set(plan.canonical, [...i === 0 ? notes : [], ...await after(plan)]);
      }
      return results;
    } catch (error) {
      // All or nothing failed (and rolled back): find the culprit by applying each alone.
      if (!isSkillError(error) || error.code === "cancelled") throw error;
    }
    for (const plan of chosen) {
      try {
        results.set(plan.canonical, [...await ws.change.applyUpdate(plan), ...await after(plan)]);
      } catch (error) {
        if (!isSkillError(error) || error.code === "cancelled") throw error;
        results.set(plan.canonical, error);
      }
    }
    return results;
  };
  return { steps, recordMoved: () => ws.change.recordMoved(planned), applyTogether };
}
