/**
 * A receipt for every run: what the script did, for the user who let it write. Files it
 * created, changed or deleted in the workspace (exec/workspace_walk.ts walks it before and
 * after), hosts it reached and connections the sandbox refused, the names of the
 * environment variables it received, the skill's digest, its exit status and duration.
 * `skills run` prints it (stderr, or with the JSON), `script_run` returns it.
 */

import { heldBackReason } from "../../core/policy/workspace_rules.ts";
import { inert } from "../../core/terminal_text.ts";
import type { WorkspaceChanges, WorkspaceScan } from "./workspace_walk.ts";

/** At most this many paths per list; the count says how many there were. */
const MAX_LISTED = 100;

export interface RunReceipt {
  skill: string;
  script: string;
  /** The digest of the skill's files as trusted, or null (bundled skills are checked at build). */
  digest: string | null;
  sandbox: "bubblewrap" | "policy";
  exit_code: number | null;
  duration_ms: number;
  /** No absolute paths: `script_run` sends the receipt to the model provider. */
  workspace: {
    writable: boolean;
    /** Why it stayed read-only. */
    reason?: string;
  };
  files: {
    created: string[];
    changed: string[];
    deleted: string[];
    /** Guarded paths the run created or changed, held back in `quarantine` (not applied). */
    quarantined: string[];
    /** Device files, fifos and sockets the run made: never carried over. */
    dropped?: string[];
    /** Why none of the run's changes were applied (stopped, declined at review). */
    discarded?: string;
    /** `$SKILLS_HOME/.cache/quarantine/<run>`, written so (no absolute path). */
    quarantine?: string;
    /** Guarded paths changed where nothing could stop it (policy mode). */
    guarded_changed: string[];
    /** Counts (the lists stop at 100 paths each). */
    counts: { created: number; changed: number; deleted: number };
    /** The walk stopped at its bound (20,000 entries): lists may be incomplete. */
    incomplete: boolean;
  };
  network: { connected: string[]; refused: { target: string; reason: string }[] };
  /** Names only, never values. */
  env: string[];
}

/** What a run collects while it runs (the proxy's callbacks fill it). */
export class ReceiptCollector {
  readonly connected = new Set<string>();
  readonly refused = new Map<string, string>();
  constructor(
    readonly base: {
      skill: string;
      script: string;
      digest: string | null;
      sandbox: RunReceipt["sandbox"];
      env: string[];
      workspace: RunReceipt["workspace"];
    },
    /** The walk before the run, when the workspace is written directly (policy mode). */
    public scan: WorkspaceScan | undefined,
  ) {}

  allowed = (target: string): void => {
    this.connected.add(target);
  };

  denied = (target: string, reason: string): void => {
    if (!this.refused.has(target)) this.refused.set(target, reason);
  };

  /** The receipt once the run has ended (`changes` from the walk after it). */
  finish(
    exitCode: number | null,
    durationMs: number,
    changes: (WorkspaceChanges & { dropped?: string[]; discarded?: string }) | undefined,
    quarantine?: string,
  ): RunReceipt {
    const cap = (list: readonly string[]) => list.slice(0, MAX_LISTED);
    const guarded = (changes?.changed ?? []).filter((rel) => isGuardedPath(rel));
    return {
      ...this.base,
      env: [...this.base.env].sort(),
      exit_code: exitCode,
      duration_ms: durationMs,
      files: {
        created: cap(changes?.created ?? []),
        changed: cap(changes?.changed ?? []),
        deleted: cap(changes?.deleted ?? []),
        quarantined: changes?.quarantined ?? [],
        ...(changes?.quarantined.length && quarantine ? { quarantine } : {}),
        ...(changes?.dropped?.length ? { dropped: changes.dropped } : {}),
        ...(changes?.discarded ? { discarded: changes.discarded } : {}),
        guarded_changed: this.base.sandbox === "policy" ? guarded : [],
        counts: {
          created: changes?.created.length ?? 0,
          changed: changes?.changed.length ?? 0,
          deleted: changes?.deleted.length ?? 0,
        },
        incomplete: changes?.incomplete ?? false,
      },
      network: {
        connected: [...this.connected].sort(),
        refused: [...this.refused].map(([target, reason]) => ({ target, reason })),
      },
    };
  }
}

/** Whether a workspace-relative path is or lies in a guarded path (what a diff holds back). */
function isGuardedPath(rel: string): boolean {
  return heldBackReason(rel) !== undefined;
}

/**
 * The receipt as a tool result carries it to a model: only what the run changed or reached
 * (files created, changed, deleted, held back; hosts reached and refused) and, when the
 * workspace was read-only, why — nothing at all after a run that did neither, since every
 * token of a tool result is paid for. The model knows which skill and script it ran.
 */
export function compactReceipt(receipt: RunReceipt): Record<string, unknown> | undefined {
  const { files, network } = receipt;
  const out: Record<string, unknown> = {};
  const changed: Record<string, unknown> = {};
  if (files.created.length > 0) changed.created = files.created;
  if (files.changed.length > 0) changed.changed = files.changed;
  if (files.deleted.length > 0) changed.deleted = files.deleted;
  if (files.quarantined.length > 0) changed.held_back = files.quarantined;
  if (files.guarded_changed.length > 0) changed.guarded_changed = files.guarded_changed;
  if (files.discarded !== undefined) changed.discarded = files.discarded;
  const { counts } = files;
  const listed = files.created.length + files.changed.length + files.deleted.length;
  if (counts.created + counts.changed + counts.deleted > listed) changed.counts = counts;
  if (Object.keys(changed).length > 0) out.files = changed;
  const reached: Record<string, unknown> = {};
  if (network.connected.length > 0) reached.connected = network.connected;
  if (network.refused.length > 0) reached.refused = network.refused;
  if (Object.keys(reached).length > 0) out.network = reached;
  if (Object.keys(out).length === 0) return undefined;
  if (!receipt.workspace.writable) out.workspace = receipt.workspace;
  return out;
}

/** Whether a receipt has anything to tell in text mode (files or network). */
export function receiptIsNotable(receipt: RunReceipt): boolean {
  const { counts, quarantined, discarded } = receipt.files;
  return counts.created + counts.changed + counts.deleted + quarantined.length > 0 ||
    discarded !== undefined ||
    receipt.network.connected.length + receipt.network.refused.length > 0;
}

/** One line for stderr: `receipt: 1 created (out.zip); network: api.x:443; refused: y:443`. */
export function receiptLine(receipt: RunReceipt): string {
  const parts: string[] = [];
  const { files } = receipt;
  const list = (label: string, paths: string[], count: number) => {
    if (count === 0) return;
    // The script's file names, made inert: no escape sequence of its reaches the terminal.
    const shown = paths.slice(0, 3).map((path) => inert(path)).join(", ");
    parts.push(`${count} ${label} (${shown}${count > 3 ? ", …" : ""})`);
  };
  list("created", files.created, files.counts.created);
  list("changed", files.changed, files.counts.changed);
  list("deleted", files.deleted, files.counts.deleted);
  if (files.quarantined.length > 0) {
    parts.push(
      `held back ${files.quarantined.length} guarded path${
        files.quarantined.length === 1 ? "" : "s"
      } in ${files.quarantine ?? "quarantine"}: ${
        files.quarantined.map((p) => inert(p)).join(", ")
      }`,
    );
  }
  if (files.discarded !== undefined) parts.push(`changes discarded: ${files.discarded}`);
  if (files.guarded_changed.length > 0) {
    parts.push(
      `guarded paths changed (policy mode): ${
        files.guarded_changed.map((p) => inert(p)).join(", ")
      }`,
    );
  }
  if (receipt.network.connected.length > 0) {
    parts.push(`connected to ${receipt.network.connected.join(", ")}`);
  }
  if (receipt.network.refused.length > 0) {
    parts.push(`refused ${receipt.network.refused.map((r) => r.target).join(", ")}`);
  }
  const files_ = parts.length === 0 ? "no files changed" : parts.join("; ");
  return `receipt: ${receipt.skill}/${receipt.script} exit ${
    receipt.exit_code ?? "-"
  } in ${receipt.duration_ms} ms; ${files_}${
    files.incomplete ? " (workspace too large to list every change)" : ""
  }`;
}
