/**
 * A receipt for every run: what the script did, for the user who let it write. Files it
 * created, changed or deleted in the workspace (exec/workspace.ts walks it before and
 * after), hosts it reached and connections the sandbox refused, the names of the
 * environment variables it received, the skill's digest, its exit status and duration.
 * `skills run` prints it (stderr, or with the JSON), `script_run` returns it.
 */

import { isGuardedName } from "../../core/policy/workspace.ts";
import { basename } from "../os/paths.ts";
import type { WorkspaceChanges, WorkspaceScan } from "./workspace.ts";

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
    /** Guarded paths the run created, moved to `quarantine` afterwards. */
    quarantined: string[];
    /** `$SKILLS_HOME/.cache/quarantine/<run>`, written so (no absolute path). */
    quarantine?: string;
    /** Guarded paths changed where nothing could stop it (policy mode). */
    guarded_changed: string[];
    /** Counts (the lists stop at 100 paths each). */
    counts: { created: number; changed: number; deleted: number };
    /** The walk stopped at its bounds (depth 6, 20,000 entries): lists may be incomplete. */
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
    /** The walk before the run, when the workspace is writable. */
    readonly scan: WorkspaceScan | undefined,
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
    changes: WorkspaceChanges | undefined,
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

/** Whether a workspace-relative path is or lies in a guarded path. */
function isGuardedPath(rel: string): boolean {
  const parts = rel.split("/");
  if (parts.some((part, i) => isGuardedName(part, i < parts.length - 1))) return true;
  if (isGuardedName(basename(rel), false)) return true;
  const git = parts.indexOf(".git");
  return git !== -1 && ["hooks", "config"].includes(parts[git + 1] ?? "") ||
    rel.startsWith(".github/workflows/");
}

/**
 * The receipt as a tool result carries it to a model: what is empty left out (no empty
 * lists, zero counts, `incomplete: false`), since every token of a tool result is paid for.
 */
export function compactReceipt(receipt: RunReceipt): Record<string, unknown> {
  const prune = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.length === 0 ? undefined : value;
    if (value === null || typeof value !== "object") return value === false ? undefined : value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const kept = prune(inner);
      if (kept !== undefined && !(key === "counts" && Object.values(inner).every((n) => n === 0))) {
        out[key] = kept;
      }
    }
    return Object.keys(out).length === 0 ? undefined : out;
  };
  // `workspace.writable: false` says something: kept.
  return { ...prune(receipt) as Record<string, unknown>, workspace: receipt.workspace };
}

/** Whether a receipt has anything to tell in text mode (files or network). */
export function receiptIsNotable(receipt: RunReceipt): boolean {
  const { counts, quarantined } = receipt.files;
  return counts.created + counts.changed + counts.deleted + quarantined.length > 0 ||
    receipt.network.connected.length + receipt.network.refused.length > 0;
}

/** One line for stderr: `receipt: 1 created (out.zip); network: api.x:443; refused: y:443`. */
export function receiptLine(receipt: RunReceipt): string {
  const parts: string[] = [];
  const { files } = receipt;
  const list = (label: string, paths: string[], count: number) => {
    if (count === 0) return;
    const shown = paths.slice(0, 3).join(", ");
    parts.push(`${count} ${label} (${shown}${count > 3 ? ", …" : ""})`);
  };
  list("created", files.created, files.counts.created);
  list("changed", files.changed, files.counts.changed);
  list("deleted", files.deleted, files.counts.deleted);
  if (files.quarantined.length > 0) {
    parts.push(
      `guarded path${files.quarantined.length === 1 ? "" : "s"} created and moved to ${
        files.quarantine ?? "quarantine"
      }: ${files.quarantined.join(", ")}`,
    );
  }
  if (files.guarded_changed.length > 0) {
    parts.push(`guarded paths changed (policy mode): ${files.guarded_changed.join(", ")}`);
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
