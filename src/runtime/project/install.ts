/**
 * `skills install` (`installFromLock`): the project's skills restored from its lockfile (ours
 * or the peer's), trusted on request, copies refreshed.
 *
 * And the way back out, `skills remove`, for both scopes: what the command confirmed leaves
 * with its lock entry (or registry entry), this user's trust of it and the agents' links.
 * (`skills add` of either scope is add.ts.)
 */

import { SkillError } from "../../core/errors.ts";
import type { LockedSkill } from "../../core/records/lockfile_model.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import { refreshCopies, removeLinksTo, trustedProjectFolders } from "./links.ts";
import { beginChange, type Change } from "../lifecycle/change.ts";
import { type ForeignReport, restoreForeign } from "./foreign.ts";
import { restoreLocked, type RestoreReport } from "./restore.ts";
import { refuseLocked } from "../governance/install_policy.ts";
import { readProjectTrust } from "../store/project_records_file.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import { withoutLockedSkill } from "../../core/records/lockfile_model.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { projectSkillDir, readProjectLock } from "../lifecycle/lockfile.ts";
import { setProjectTrust, trustInstalled } from "./approvals.ts";

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
  // One change of the project: it fetches (into `$SKILLS_HOME`'s staging) and writes.
  await using change = await beginChange({ kind: "project", home, root }, {
    env: options.env,
    signal: options.signal,
    progress: options.progress,
  });
  for (const note of change.recovered) options.note(note);
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
  // The organisation's policy refuses before anything is fetched or written.
  const org = await change.orgPolicy();
  if (org !== null && read.state === "ok") await refuseLocked(org, read.lock);
  const ws = { root, home, change };
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
