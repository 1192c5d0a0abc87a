/**
 * What an update changes: files added, modified and removed between the installed skill
 * and the staged new version, with SKILL.md, scripts, toolsets and permissions (`env` and
 * `network`) changes flagged for review.
 */

import type { Manifest } from "../manifest/manifest.ts";
import { networkList } from "../policy/net_grants.ts";

type ChangeKind = "manifest" | "script" | "toolset" | "other";

interface FileChange {
  path: string;
  change: "added" | "modified" | "removed";
  kind: ChangeKind;
}

export interface ChangeSummary {
  files: FileChange[];
  /** Set when `permissions.env` differs. */
  permissions: { before: string[]; after: string[] } | null;
  /** Set when `permissions.network` differs (`*` is any public host). */
  network: { before: string[]; after: string[] } | null;
  flags: { manifest: boolean; scripts: boolean; toolsets: boolean; permissions: boolean };
}

function toolsetFiles(manifest: Manifest | undefined): string[] {
  return (manifest?.toolsets ?? []).map((ref) => `${ref.split(":")[0]!.replaceAll(".", "/")}.py`);
}

function classify(path: string, toolsets: readonly string[]): ChangeKind {
  if (path === "SKILL.md") return "manifest";
  if (path.startsWith("scripts/")) return "script";
  if (path.startsWith("toolsets/") || toolsets.includes(path)) return "toolset";
  return "other";
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  const x = [...a].sort();
  const y = [...b].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Pure: compares two file maps and two manifests. */
export function summarizeChanges(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  oldManifest: Manifest | undefined,
  newManifest: Manifest | undefined,
): ChangeSummary {
  const toolsets = [...toolsetFiles(oldManifest), ...toolsetFiles(newManifest)];
  const files: FileChange[] = [];
  const paths = new Set([...before.keys(), ...after.keys()]);
  for (const path of [...paths].sort()) {
    const a = before.get(path);
    const b = after.get(path);
    if (a === b) continue;
    const change = a === undefined ? "added" : b === undefined ? "removed" : "modified";
    files.push({ path, change, kind: classify(path, toolsets) });
  }
  const beforeEnv = oldManifest?.envPatterns ?? [];
  const afterEnv = newManifest?.envPatterns ?? [];
  const permissions = sameList(beforeEnv, afterEnv)
    ? null
    : { before: [...beforeEnv], after: [...afterEnv] };
  const beforeNet = networkList(oldManifest?.network);
  const afterNet = networkList(newManifest?.network);
  const network = sameList(beforeNet, afterNet) ? null : { before: beforeNet, after: afterNet };
  return {
    files,
    permissions,
    network,
    flags: {
      manifest: files.some((f) => f.kind === "manifest"),
      scripts: files.some((f) => f.kind === "script"),
      toolsets: files.some((f) => f.kind === "toolset") ||
        !sameList(oldManifest?.toolsets ?? [], newManifest?.toolsets ?? []),
      permissions: permissions !== null || network !== null,
    },
  };
}
