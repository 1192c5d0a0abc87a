/**
 * The end of a transactional run: the diff its upper layer holds read (diff.ts), planned
 * (apply.ts: what is applied, what is held back, what is dropped), shown and asked about
 * when the user asked to review, the held-back entries copied to quarantine, the rest applied
 * through the journal, and the run folder removed. A run that did not end by itself (timed
 * out, interrupted) is discarded whole: the user's folder stays exactly as it was.
 */

import { join } from "../os/paths.ts";
import { readDiff } from "./diff.ts";
import { type ApplyPlan, applyPlan, planApply, quarantineHeldBack } from "./apply.ts";
import type { RunLayer } from "./layer.ts";
import { JOURNAL } from "./leftovers.ts";
import type { OverlayEngineName } from "./types.ts";

/** What the run did to the user's folder, for the receipt (workspace-relative paths). */
export interface CommittedChanges {
  created: string[];
  changed: string[];
  deleted: string[];
  /** Guarded paths, held back in quarantine (not applied), with why. */
  heldBack: { rel: string; reason: string }[];
  /** Device files, fifos and sockets the script made: dropped. */
  dropped: string[];
  /** Paths not written because a link or file stood on their way. */
  skipped: string[];
  /** Why nothing was applied: the run was killed, or the user declined the review. */
  discarded?: string | undefined;
  /** What a discarded plan would have written, held back or deleted: named to the user. */
  notWritten?: string[] | undefined;
  /** The overlay was never mounted (the init helper said why): the workspace was read-only. */
  notMounted?: boolean | undefined;
}

interface CommitRequest {
  workspace: string;
  layer: RunLayer;
  engine: OverlayEngineName;
  /** Where held-back entries are copied (made when there are any). */
  quarantine: string;
  /** Set when the run did not end by itself: the diff is discarded, and why. */
  discard?: string | undefined;
  /** `--review`: shown the plan, answers whether to apply it. */
  review?: ((plan: ApplyPlan) => Promise<boolean>) | undefined;
  /** Set: whatever the run wrote is not applied, and why (a `--help` probe's). */
  keepNothing?: string | undefined;
}

/** Reads, plans, (asks,) quarantines and applies a run's diff; always removes the run folder. */
export async function commitRun(request: CommitRequest): Promise<CommittedChanges> {
  const { layer } = request;
  try {
    if (request.discard !== undefined) return nothing(request.discard);
    // Both engines make `work/work` when they mount: none means the run had no overlay.
    if (isEmptyFolder(layer.work)) {
      return { ...nothing(""), discarded: undefined, notMounted: true };
    }
    const diff = readDiff(layer.upper, request.workspace, request.engine);
    const plan = planApply(diff, request.workspace, layer.upper);
    const changes: CommittedChanges = {
      created: plan.created,
      changed: plan.changed,
      deleted: plan.deleted,
      heldBack: plan.heldBack,
      dropped: plan.dropped,
      skipped: [],
    };
    const anything = plan.ops.length + plan.heldBack.length > 0;
    if (anything && request.keepNothing !== undefined) return nothing(request.keepNothing, plan);
    if (anything && request.review !== undefined && !await request.review(plan)) {
      return nothing("declined at review", plan);
    }
    quarantineHeldBack(plan, request.quarantine);
    changes.skipped = applyPlan(plan, join(layer.dir, JOURNAL));
    if (changes.skipped.length > 0) {
      const skipped = new Set(changes.skipped);
      const kept = (list: string[]) => list.filter((rel) => !skipped.has(rel.replace(/\/$/, "")));
      changes.created = kept(changes.created);
      changes.changed = kept(changes.changed);
      changes.deleted = kept(changes.deleted);
    }
    return changes;
  } finally {
    await layer.dispose();
  }
}

function isEmptyFolder(path: string): boolean {
  try {
    for (const _ of Deno.readDirSync(path)) return false;
  } catch { /* gone: nothing mounted there either */ }
  return true;
}

function nothing(why: string, plan?: ApplyPlan): CommittedChanges {
  return {
    created: [],
    changed: [],
    deleted: [],
    heldBack: [],
    dropped: [],
    skipped: [],
    discarded: plan === undefined ? why : `${why} (${describePlan(plan)})`,
    notWritten: plan === undefined
      ? undefined
      : [...plan.created, ...plan.changed, ...plan.deleted, ...plan.heldBack.map((h) => h.rel)],
  };
}

/** `3 created, 1 changed, 1 held back`: a plan in a few words. */
function describePlan(plan: ApplyPlan): string {
  const parts = [
    [plan.created.length, "created"],
    [plan.changed.length, "changed"],
    [plan.deleted.length, "deleted"],
    [plan.heldBack.length, "held back"],
  ].filter(([n]) => n !== 0).map(([n, label]) => `${n} ${label}`);
  return parts.length === 0 ? "no changes" : parts.join(", ");
}
