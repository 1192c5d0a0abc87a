/**
 * A sandboxed run's copy-on-write workspace, from prepared_run.ts's side: whether the run gets
 * an overlay (or a read-only workspace, said once), its run folder made (after recovering what
 * a dead run left) and handed to the sandbox, and at the end its diff committed
 * (runtime/workspace) with the loud lines a user must see whatever the output mode.
 */

import { inert } from "../../core/terminal_text.ts";
import { join } from "../os/paths.ts";
import { type OverlayEngine, overlayEngine } from "../sandbox/overlay.ts";
import type { SandboxRequest } from "../sandbox/launch.ts";
import type { ApplyPlan } from "../workspace/apply.ts";
import type { CommittedChanges } from "../workspace/finish.ts";
import { openLayer, type RunLayer, RUNS_FOLDER } from "../workspace/layer.ts";
import type { ReceiptCollector } from "./receipt.ts";
import type { RunOutcome } from "./runner.ts";

/** The overlay a prepared run asked for. */
export interface RunOverlay {
  engine: OverlayEngine;
  fuse?: string | undefined;
  /** The workspace (real path). */
  dir: string;
}

/** What of a prepared run the transaction reads. */
interface Prepared {
  sandbox: SandboxRequest | undefined;
  receipt: ReceiptCollector;
  quarantine: string;
  overlay?: RunOverlay | undefined;
}

/** What of the run's dependencies the transaction uses. */
interface Deps {
  home: string;
  warn?: ((message: string) => void) | undefined;
  /** Where notices go without `warn` (the library's log). */
  log?: ((message: string) => void) | undefined;
  review?: ((plan: ApplyPlan) => Promise<boolean>) | undefined;
  /** Set: the diff is never applied, and why (a `--help` probe's). */
  discard?: string | undefined;
  /** A service: stopping is how it ends, so its diff is applied then (see discardReason). */
  service?: unknown;
}

/**
 * A writable workspace in the sandbox is copy-on-write: the script writes an overlay's upper
 * layer, never the folder (runtime/workspace applies the diff after the run). Without an
 * overlay engine it is read-only for the run, said once per process — never written directly.
 */
export function copyOnWrite(
  sandbox: SandboxRequest,
  workspace: { writable: boolean; dir?: string | undefined },
  receipt: ReceiptCollector,
  warn: ((message: string) => void) | undefined,
): RunOverlay | undefined {
  const asked = sandbox.workspace;
  if (!workspace.writable || workspace.dir === undefined || asked === undefined) return undefined;
  receipt.scan = undefined; // the diff, not a walk, says what changed
  const choice = overlayEngine(sandbox.bwrap.root);
  if (choice.engine === undefined) {
    sandbox.workspace = { writable: false, guards: asked.guards };
    receipt.base.workspace = { writable: false, reason: `no overlay: ${choice.reason}` };
    if (!noOverlaySaid) {
      noOverlaySaid = true;
      warn?.(
        `the workspace is read-only for scripts: no overlay can be had (${choice.reason}); --write DIR grants a folder`,
      );
    }
    return undefined;
  }
  return { engine: choice.engine, fuse: choice.fuse, dir: workspace.dir };
}

let noOverlaySaid = false;

/**
 * Why a run's diff is not applied at all: it did not end by itself — stopped by its timeout or
 * Ctrl-C, or killed by SIGKILL or SIGTERM (the OOM killer, `kill`): inside bubblewrap a signal's
 * death is the exit status 128 + its number. A script that exits on its own, even with an
 * error, has its diff applied (its partial output is what a user debugs).
 */
function discardReason(outcome: RunOutcome, service: boolean): string | undefined {
  // A service ends by being stopped (`skills stop`, idle, lifetime): that is its normal end.
  if (service) return undefined;
  if (outcome.error === "timeout" || outcome.error === "cancelled") {
    return `the run was stopped (${outcome.error})`;
  }
  if (outcome.exitCode === 137) return "the script was killed (SIGKILL)";
  if (outcome.exitCode === 143) return "the script was killed (SIGTERM)";
  return undefined;
}

/**
 * The run's diff committed: discarded when the run was stopped, reviewed when asked, applied
 * otherwise; its loud lines said; the receipt's workspace corrected when the overlay never
 * mounted (the workspace was read-only after all).
 */
export async function commitWorkspace(
  prepared: Prepared,
  outcome: RunOutcome,
  layer: RunLayer,
  deps: Deps,
): Promise<CommittedChanges> {
  // Reading, planning and applying a diff load only when a run wrote something (or was
  // stopped, or never mounted its overlay): most runs leave an empty upper layer.
  const discard = discardReason(outcome, deps.service !== undefined);
  if (isEmpty(layer.upper) && !isEmpty(layer.work) && discard === undefined) {
    await layer.dispose();
    return { created: [], changed: [], deleted: [], heldBack: [], dropped: [], skipped: [] };
  }
  const { commitRun } = await import("../workspace/finish.ts");
  const committed = await commitRun({
    workspace: prepared.overlay!.dir,
    layer,
    engine: prepared.overlay!.engine,
    quarantine: join(deps.home, prepared.quarantine),
    discard,
    review: deps.review,
    keepNothing: deps.discard,
  });
  sayCommitted(committed, prepared, deps);
  if (committed.notMounted) {
    prepared.receipt.base.workspace = {
      writable: false,
      reason: "its overlay could not be mounted",
    };
  }
  return committed;
}

/**
 * The loud lines of a committed diff, whatever the output mode: guarded paths held back
 * (where they are kept, and why each), entries dropped, a discarded diff. File names are the
 * script's: made inert for the terminal.
 */
function sayCommitted(committed: CommittedChanges, prepared: Prepared, deps: Deps): void {
  const warn = deps.warn ?? deps.log ?? ((message: string) => console.error(`warning: ${message}`));
  const names = (list: readonly string[]) =>
    list.slice(0, 10).map((rel) => inert(rel)).join(", ") +
    (list.length > 10 ? `, … (${list.length} in all)` : "");
  if (committed.heldBack.length > 0) {
    warn(
      `held back ${committed.heldBack.length} guarded path${
        committed.heldBack.length === 1 ? "" : "s"
      } the script wrote (not applied; kept in $SKILLS_HOME/${prepared.quarantine}): ${
        names(committed.heldBack.map(({ rel, reason }) => `${rel} (${reason})`))
      }`,
    );
  }
  if (committed.dropped.length > 0) {
    warn(`dropped device files, fifos or sockets the script made: ${names(committed.dropped)}`);
  }
  if (committed.skipped.length > 0) {
    warn(`not applied (a link or file stood on the way): ${names(committed.skipped)}`);
  }
  if (committed.discarded !== undefined) {
    const paths = committed.notWritten ?? [];
    warn(
      `the script's changes were discarded: ${committed.discarded}; the folder is as it was` +
        (paths.length > 0 ? ` (not written: ${names(paths)})` : ""),
    );
  }
}

/** A committed diff as the receipt lists it (held-back paths are its quarantined ones). */
export function receiptChanges(changes: CommittedChanges) {
  return {
    created: changes.created,
    changed: changes.changed,
    deleted: changes.deleted,
    quarantined: changes.heldBack.map((held) => held.rel),
    dropped: changes.dropped,
    discarded: changes.discarded,
    incomplete: false,
  };
}

/**
 * A copy-on-write run's folder, made fresh (after rolling forward or discarding what a dead
 * run left in `$SKILLS_HOME/.cache/runs/`).
 */
export async function openRunLayer(prepared: Prepared, deps: Deps): Promise<RunLayer | undefined> {
  if (prepared.overlay === undefined) return undefined;
  // What a dead run left: looked at only when there is anything at all.
  const recovered = isEmpty(join(deps.home, RUNS_FOLDER))
    ? { applied: [] }
    : await (await import("../workspace/leftovers.ts")).recoverRuns(deps.home);
  for (const workspace of recovered.applied) {
    deps.warn?.(`finished applying an interrupted run's changes to ${workspace}`);
  }
  return openLayer(deps.home);
}

/** The sandbox request with the run folder the overlay's upper layer lives in. */
export function withLayer(
  prepared: Prepared,
  layer: RunLayer | undefined,
): SandboxRequest | undefined {
  const sandbox = prepared.sandbox;
  if (layer === undefined || sandbox?.workspace === undefined) return sandbox;
  const { engine, fuse } = prepared.overlay!;
  return {
    ...sandbox,
    workspace: { ...sandbox.workspace, overlay: { engine, fuse, layer: layer.dir } },
  };
}

/** Whether `path` is an empty folder (or none). */
function isEmpty(path: string): boolean {
  try {
    for (const _ of Deno.readDirSync(path)) return false;
  } catch { /* none */ }
  return true;
}
