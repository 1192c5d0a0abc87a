/**
 * A run's diff applied to the user's folder, as the user (the CLI's own uid): deletions, then
 * folders, then files, then links, each checked on its way — a path whose parent in the user's
 * folder is not a plain folder (a link, a file) is not written, so no link can redirect a
 * write outside the folder; a link the script made that points outside the folder, an
 * absolute one, is held back. Guarded paths (core/policy/workspace_rules.ts heldBackReason) are
 * never applied: their new content is copied (never renamed: the quarantine may be on
 * another filesystem) to a quarantine folder under `$SKILLS_HOME/.cache/quarantine/`.
 *
 * Atomic from the user's point of view: the upper layer is the staged content; the list of
 * operations is written to a journal in the run folder before the first change, every
 * operation is idempotent (a file is copied to a temporary name beside its target and renamed
 * over it), and the journal is removed after the last. A CLI that dies in between leaves the
 * journal and the upper layer, and the next run rolls the apply forward (leftovers.ts): the
 * folder is then fully applied, never half. Synchronous throughout, so that no Ctrl-C handler
 * runs in the middle.
 */

import { basename, dirname, isAbsolute, join, normalize } from "../os/paths.ts";
import { lstatSyncOrNull, writeFileAtomicSync } from "../os/fs.ts";
import { heldBackReason, heldBackRoot } from "../../core/policy/workspace_rules.ts";
import type { LayerDiff } from "./diff.ts";

/** One idempotent operation on the user's folder (workspace-relative paths). */
type ApplyOp =
  | { op: "delete"; rel: string }
  | { op: "dir"; rel: string; mode: number }
  | { op: "file"; rel: string; mode: number }
  | { op: "link"; rel: string; target: string };

/** What a diff will do to the user's folder, before it is applied. */
export interface ApplyPlan {
  workspace: string;
  upper: string;
  ops: ApplyOp[];
  created: string[];
  changed: string[];
  deleted: string[];
  /** Guarded paths (their shallowest guarded part) and why each is held back. */
  heldBack: { rel: string; reason: string }[];
  /** Device files, fifos and sockets the script made: never carried over. */
  dropped: string[];
}

/** The journal a CLI that died mid-apply leaves: enough to roll the apply forward. */
export interface ApplyJournal {
  version: 1;
  workspace: string;
  upper: string;
  /** The name temporary files take beside their targets (`.<name>.<tag>`). */
  tag: string;
  ops: ApplyOp[];
}

/** Whether a link at `rel` pointing at `target` stays inside the workspace. */
function linkStaysInside(rel: string, target: string): boolean {
  if (target === "" || isAbsolute(target)) return false;
  const resolved = normalize(join(dirname(rel), target));
  return resolved !== ".." && !resolved.startsWith("../") && !isAbsolute(resolved);
}

/**
 * Turns `diff` into the operations to apply and what is held back (pure but for the lstat of
 * nothing: the diff already knows what was there).
 */
export function planApply(diff: LayerDiff, workspace: string, upper: string): ApplyPlan {
  const plan: ApplyPlan = {
    workspace,
    upper,
    ops: [],
    created: [],
    changed: [],
    deleted: [],
    heldBack: [],
    dropped: [...diff.special],
  };
  const held = new Map<string, string>();
  const holds = (rel: string, reason?: string): boolean => {
    const why = reason ?? heldBackReason(rel);
    if (why === undefined) return false;
    const root = reason === undefined ? heldBackRoot(rel) ?? rel : rel;
    if (!held.has(root)) held.set(root, why);
    return true;
  };
  for (const { rel, dir } of diff.deleted) {
    if (holds(rel)) continue;
    plan.ops.push({ op: "delete", rel });
    plan.deleted.push(dir ? `${rel}/` : rel);
  }
  for (const { rel, mode } of diff.dirs) {
    if (!holds(rel)) plan.ops.push({ op: "dir", rel, mode });
  }
  const links: ApplyOp[] = [];
  for (const write of diff.writes) {
    if (holds(write.rel)) continue;
    if (write.kind === "link") {
      if (
        holds(
          write.rel,
          linkStaysInside(write.rel, write.target!) ? undefined : "a link out of the folder",
        )
      ) {
        continue;
      }
      links.push({ op: "link", rel: write.rel, target: write.target! });
    } else plan.ops.push({ op: "file", rel: write.rel, mode: write.mode });
    (write.created ? plan.created : plan.changed).push(write.rel);
  }
  plan.ops.push(...links);
  // A deleted path re-made as a file or link is a change, not a deletion and a creation.
  const deletedFiles = new Set(plan.deleted);
  plan.created = plan.created.filter((rel) => {
    if (!deletedFiles.has(rel)) return true;
    plan.changed.push(rel);
    plan.deleted = plan.deleted.filter((d) => d !== rel);
    return false;
  });
  plan.heldBack = [...held].map(([rel, reason]) => ({ rel, reason }))
    .sort((a, b) => a.rel.localeCompare(b.rel));
  for (const list of [plan.created, plan.changed, plan.deleted]) list.sort();
  return plan;
}

/**
 * Copies what the diff holds of each held-back path into `quarantine` (made 0700): a file's
 * bytes (permissions only), a link as a link, a folder with what the upper layer holds of it.
 * Copies, never renames: the quarantine may be on another filesystem than the run folder.
 */
export function quarantineHeldBack(plan: ApplyPlan, quarantine: string): void {
  if (plan.heldBack.length === 0) return;
  Deno.mkdirSync(quarantine, { recursive: true, mode: 0o700 });
  const copy = (rel: string) => {
    const from = join(plan.upper, rel);
    const info = lstatSyncOrNull(from);
    if (info === null) return; // a held-back deletion: nothing to keep
    const to = join(quarantine, rel);
    Deno.mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    if (info.isSymlink) Deno.symlinkSync(Deno.readLinkSync(from), to);
    else if (info.isFile) copyBytes(from, to, (info.mode ?? 0o600) & 0o777);
    else if (info.isDirectory) {
      Deno.mkdirSync(to, { recursive: true, mode: 0o700 });
      for (const entry of Deno.readDirSync(from)) copy(`${rel}/${entry.name}`);
    }
  };
  for (const { rel } of plan.heldBack) copy(rel);
}

/** Applies `plan` through a journal at `journalPath` (removed once every operation is done). */
export function applyPlan(plan: ApplyPlan, journalPath: string): string[] {
  if (plan.ops.length === 0) return [];
  const journal: ApplyJournal = {
    version: 1,
    workspace: plan.workspace,
    upper: plan.upper,
    tag: `skills-apply-${crypto.randomUUID().slice(0, 8)}`,
    ops: plan.ops,
  };
  writeFileAtomicSync(journalPath, JSON.stringify(journal));
  const skipped = runJournal(journal);
  Deno.removeSync(journalPath);
  return skipped;
}

/**
 * Every operation of `journal`, in order, each idempotent (run again by recovery after a
 * crash). Returns the paths not written because their way passed through something other
 * than a plain folder.
 */
export function runJournal(journal: ApplyJournal): string[] {
  const skipped: string[] = [];
  const root = journal.workspace;
  // A root CLI's run folder is root's (its lock file says so without asking for the uid).
  const isRoot = lstatSyncOrNull(join(dirname(journal.upper), "lock"))?.uid === 0;
  for (const op of journal.ops) {
    if (!plainWay(root, op.rel)) {
      skipped.push(op.rel);
      continue;
    }
    const target = join(root, op.rel);
    const there = lstatSyncOrNull(target);
    switch (op.op) {
      case "delete":
        if (there !== null) {
          Deno.removeSync(target, { recursive: there.isDirectory && !there.isSymlink });
        }
        break;
      case "dir":
        if (there !== null && !(there.isDirectory && !there.isSymlink)) Deno.removeSync(target);
        if (there === null || !there.isDirectory || there.isSymlink) {
          Deno.mkdirSync(target, { mode: op.mode });
        }
        Deno.chmodSync(target, op.mode);
        break;
      case "file": {
        const temp = join(dirname(target), `.${basename(target)}.${journal.tag}`);
        if (lstatSyncOrNull(temp) !== null) Deno.removeSync(temp);
        if (there?.isDirectory && !there.isSymlink) Deno.removeSync(target, { recursive: true });
        copyBytes(join(journal.upper, op.rel), temp, op.mode);
        // A changed file keeps its owner (a root CLI in another user's folder).
        if (isRoot && there !== null && there.uid !== null && there.gid !== null) {
          Deno.chownSync(temp, there.uid, there.gid);
        }
        Deno.renameSync(temp, target);
        break;
      }
      case "link":
        if (there !== null) {
          Deno.removeSync(target, { recursive: there.isDirectory && !there.isSymlink });
        }
        Deno.symlinkSync(op.target, target);
        break;
    }
  }
  return skipped;
}

/** Whether every folder between `root` and `rel`'s parent is a plain folder (never a link). */
function plainWay(root: string, rel: string): boolean {
  const parts = rel.split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) return false;
  let path = root;
  for (const part of parts.slice(0, -1)) {
    path = join(path, part);
    const info = lstatSyncOrNull(path);
    if (info === null || !info.isDirectory || info.isSymlink) return false;
  }
  return true;
}

/** Copies a regular file's bytes to a new file `to` with permission bits `mode` (never set-uid). */
function copyBytes(from: string, to: string, mode: number): void {
  const source = Deno.openSync(from, { read: true });
  try {
    const target = Deno.openSync(to, { write: true, createNew: true, mode: 0o600 });
    try {
      const buffer = new Uint8Array(1 << 20);
      for (let n = source.readSync(buffer); n !== null; n = source.readSync(buffer)) {
        let written = 0;
        while (written < n) written += target.writeSync(buffer.subarray(written, n));
      }
      target.syncSync();
    } finally {
      target.close();
    }
    Deno.chmodSync(to, mode & 0o777);
  } finally {
    source.close();
  }
}
