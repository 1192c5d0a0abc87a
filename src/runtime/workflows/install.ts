/**
 * `skills install` below any front end: the skills of the project seen from `cwd` restored
 * from its lockfile (ours or the peer's: project/restore.ts, project/foreign.ts), every file
 * verified, trusted on request, copies refreshed. A lockfile is a project's: this workflow
 * has that one scope. Nothing is asked; the asker is told progress and notes.
 */

import { SkillError } from "../../core/errors.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import { refreshCopies, trustedProjectFolders } from "../project/links.ts";
import { beginChange } from "../lifecycle/change.ts";
import { type ForeignReport, restoreForeign } from "../project/foreign.ts";
import { restoreLocked, type RestoreReport } from "../project/restore.ts";
import { refuseLocked } from "../governance/install_policy.ts";
import { readProjectTrust } from "../store/project_records.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { readProjectLock } from "../store/lockfile.ts";
import { trustInstalled } from "../project/approvals.ts";
import type { WorkflowRequest } from "./request.ts";

/** What `skills install` asks of the project's lockfile. */
interface InstallRequest extends WorkflowRequest {
  /** `--frozen` (or CI): nothing is written unless every entry agrees. */
  frozen: boolean;
  /** `--force`: folders that differ are replaced. */
  force: boolean;
  /** `--trust`: this user approves what is then in place. */
  trust: boolean;
}

/** What `skills install` tells as it goes: nothing is asked. */
interface InstallAsker {
  /** Progress lines of the fetches. */
  progress?(message: string): void;
  /** Notes as they arise (recoveries, conversions, copies left as they were). */
  note?(text: string): void;
}

/** What `skills install` did: the restore's report and what followed from it. */
interface InstallOutcome {
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
export async function installWorkflow(
  request: InstallRequest,
  asker: InstallAsker,
): Promise<InstallOutcome> {
  const { home, cwd } = request;
  const options = request;
  const note = (text: string) => asker.note?.(text);
  const { root } = findProjectRoot(cwd);
  // One change of the project: it fetches (into `$SKILLS_HOME`'s staging) and writes.
  await using change = await beginChange({ kind: "project", home, root }, {
    env: options.env,
    signal: options.signal,
    progress: asker.progress === undefined ? undefined : (line) => asker.progress!(line),
  });
  for (const text of change.recovered) note(text);
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
  for (const text of report.notes ?? []) note(text);
  const blocking = report.mismatches.filter((m) => m.blocking);
  let trusted: string[] = [];
  if (options.trust && blocking.length === 0) {
    trusted = await trustInstalled(home, root, [...report.present, ...report.restored]);
  }
  // Copies `skills link --copy` made of the folders show what the lockfile restored.
  if (!options.frozen && blocking.length === 0) {
    const folders = trustedProjectFolders(home, root, [...report.present, ...report.restored]);
    for (const text of (await refreshCopies(home, folders)).notes) note(text);
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
