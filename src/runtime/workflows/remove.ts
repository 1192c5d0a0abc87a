/**
 * `skills remove <name>...` below any front end, for both scopes: which names are the
 * project's (those its skills-lock.json records, unless the user's scope is asked) and which
 * the user's, the dependencies nothing needs once they go, each removal confirmed by the
 * asker, then the project's removals committed (folders and lock entries in one project
 * commit, this user's approvals and links with them) and the user's (registry entries and
 * folders in one step of the user's change, and their links).
 */

import { declined, SkillError } from "../../core/errors.ts";
import { type LockedSkill, withoutLockedSkill } from "../../core/records/lockfile.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import { findProjectRoot, PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { beginChange, type Change } from "../lifecycle/change.ts";
import { projectSkillDir } from "../lifecycle/lock_entries.ts";
import { readProjectLock } from "../store/lockfile.ts";
import { entriesToRemove } from "../lifecycle/targets.ts";
import { setProjectTrust } from "../project/approvals.ts";
import { unneededInstalled, unneededLocked } from "./dependencies.ts";
import { removeLinksTo } from "../project/links.ts";
import {
  beginUserChange,
  type Reports,
  type ScopeChoice,
  type WorkflowRequest,
} from "./request.ts";

/** Which skills to remove, and from which scope. */
interface RemoveRequest extends WorkflowRequest {
  /** Canonical names. */
  names: readonly string[];
  /**
   * `"project"`: only names the lockfile records (another is `not_found`); `"user"`: only
   * installed skills; undefined: the names the lockfile records are the project's.
   */
  scope?: ScopeChoice;
}

/** A skill about to be removed, as the asker is shown it before its answer. */
export type Removal =
  | { scope: "project"; key: string; entry: LockedSkill; dir: string }
  | {
    scope: "user";
    entry: RegistryEntry;
    /** A dependency nothing else installed needs once the others go. */
    unneeded: boolean;
  };

/** What one scope's removals did: the skills removed and the agents' links that went too. */
interface Removed {
  removed: string[];
  links: string[];
}

/** What `removeWorkflow` asks, and tells as each scope's removals are done. */
export interface RemoveAsker extends Reports {
  /** Whether to remove this skill. */
  confirm(removal: Removal): Promise<boolean>;
  /** A scope's removals are done (the project's first), before the next scope is asked. */
  removed?(scope: "project" | "user", done: Removed): void;
}

/** What `skills remove` did, in each scope, of how many skills asked about. */
export interface RemoveOutcome {
  project: Removed;
  user: Removed;
  /** How many skills were asked about (dependencies included): fewer removed fails. */
  asked: number;
}

/**
 * Removes what the asker confirms of the skills `request.names` mean, and the dependencies
 * nothing else needs once they go; nothing confirmed at all is `declined`.
 */
export async function removeWorkflow(
  request: RemoveRequest,
  asker: RemoveAsker,
): Promise<RemoveOutcome> {
  const { home, cwd } = request;
  await using change = await beginUserChange(request, asker);
  // Names the project's skills-lock.json records are the project's (issue 17).
  // Dependencies nothing else needs go too, each shown and confirmed like the rest.
  const { root, inProject, others } = removalTargets(cwd, request.names, request.scope);
  const lockedExtra = unneededLocked(root, inProject.map((r) => r.key));
  if (lockedExtra.length > 0) {
    inProject.push(...removalTargets(cwd, lockedExtra, "project").inProject);
  }
  const project = await removeConfirmedFromProject(home, root, inProject, asker);
  if (others.length === 0) {
    if (project.removed.length === 0) throw declined("Nothing was removed");
    return { project, user: { removed: [], links: [] }, asked: inProject.length };
  }
  const entries = await entriesToRemove(home, others);
  const unneeded = await unneededInstalled(home, entries.map((e) => e.name_canonical));
  entries.push(...unneeded);
  const accepted: RegistryEntry[] = [];
  for (const entry of entries) {
    const removal = { scope: "user", entry, unneeded: unneeded.includes(entry) } as const;
    if (await asker.confirm(removal)) accepted.push(entry);
  }
  if (accepted.length === 0 && project.removed.length === 0) {
    throw declined("Nothing was removed");
  }
  const user = await removeInstalled(change, home, accepted);
  for (const note of user.notes) asker.note?.(note);
  const done = { removed: user.removed, links: user.links };
  asker.removed?.("user", done);
  return { project, user: done, asked: entries.length + inProject.length };
}

/** A locked project skill `skills remove` would remove, with where its folder is. */
interface ProjectRemoval {
  key: string;
  entry: LockedSkill;
  dir: string;
}

/**
 * Which of the `names` are the project's: those the lockfile of the project seen from `cwd`
 * records (none when the user's scope is asked); the others are the user's. Asked of the
 * project alone, a name the lockfile does not record is `not_found`.
 */
function removalTargets(
  cwd: string,
  names: readonly string[],
  scope: ScopeChoice,
): { root: string; inProject: ProjectRemoval[]; others: string[] } {
  const { root } = findProjectRoot(cwd);
  const read = scope === "user" ? undefined : readProjectLock(root);
  const locked = read?.state === "ok" ? read.lock.skills : {};
  const inProject = names.filter((n) => Object.hasOwn(locked, n));
  const others = names.filter((n) => !inProject.includes(n));
  if (scope === "project" && others.length > 0) {
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

/** Asks about each locked project skill, then removes those confirmed. */
async function removeConfirmedFromProject(
  home: string,
  root: string,
  removals: readonly ProjectRemoval[],
  asker: RemoveAsker,
): Promise<Removed> {
  if (removals.length === 0) return { removed: [], links: [] };
  const accepted: string[] = [];
  for (const { key, entry, dir } of removals) {
    if (await asker.confirm({ scope: "project", key, entry, dir })) accepted.push(key);
  }
  const { recovered, links } = await removeFromProject(home, root, accepted);
  for (const note of recovered) asker.note?.(note);
  const done = { removed: accepted, links };
  asker.removed?.("project", done);
  return done;
}

/**
 * Removes locked project skills the user confirmed: their folders and lock entries in one
 * project commit; this user's trust of them and the links made for them go too.
 */
async function removeFromProject(
  home: string,
  root: string,
  keys: readonly string[],
): Promise<{ recovered: string[]; links: string[] }> {
  if (keys.length === 0) return { recovered: [], links: [] };
  const dirs = keys.map((key) => projectSkillDir(root, key));
  let recovered: string[];
  {
    // Nothing is fetched: the change needs no environment.
    await using change = await beginChange({ kind: "project", home, root }, { env: {} });
    recovered = [...change.recovered];
    await change.commitFolders(
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
async function removeInstalled(
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
