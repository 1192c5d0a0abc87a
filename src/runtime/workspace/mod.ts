/**
 * runtime/workspace — the transactional workspace: a script never writes the user's folder.
 * Inside the sandbox the folder is the lower layer of an overlay (runtime/sandbox mounts it);
 * the upper layer lives in a run folder the CLI owns (layer.ts: `$SKILLS_HOME/.cache/runs/<id>/`,
 * 0700, held by a lock while its run lives, removed after it). When the script ends, the upper
 * layer is the exact diff (diff.ts reads it: created, changed, deleted files at any depth,
 * whiteouts and opaque folders of both engines); apply.ts applies it to the user's folder as
 * the user — allowed entries written with the user's ownership, guarded ones
 * (core/policy/workspace_rules.ts heldBackReason) copied to a quarantine folder — through a journal
 * that the next run rolls forward if the CLI died half way (leftovers.ts).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/workspace",
  mayImport: ["core", "runtime/os"],
} as const;
