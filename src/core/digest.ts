/**
 * The content digest of a skill: sha256 over the sorted relative paths and the sha256 of
 * each file, so renames, additions, removals and edits all change it.
 */

import { createHash } from "node:crypto";

export interface FileHash {
  /** Relative path with `/` separators. */
  path: string;
  /** Hex sha256 of the file's bytes. */
  sha256: string;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function combineDigest(files: readonly FileHash[]): string {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash("sha256");
  for (const file of sorted) hash.update(`${file.path}\0${file.sha256}\n`);
  return `sha256:${hash.digest("hex")}`;
}
