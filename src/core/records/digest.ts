/**
 * The content digest of a skill: sha256 over the sorted relative paths and the sha256 of
 * each file, so renames, additions, removals and edits all change it. WebCrypto, not
 * node:crypto: loading the node:crypto polyfill costs ~20 ms of start-up per command. Small
 * inputs (most files of a skill, the combined list) are hashed here in this thread
 * (sha256.ts): WebCrypto's wait for a worker thread cost more than their hashing.
 */

import { sha256HexSync } from "./sha256.ts";

export interface FileHash {
  /** Relative path with `/` separators. */
  path: string;
  /** Hex sha256 of the file's bytes. */
  sha256: string;
}

function toHex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Up to this size, hashing in this thread is faster than WebCrypto's round trip. */
const SYNC_HASH_BYTES = 64 * 1024;

export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  if (bytes.length <= SYNC_HASH_BYTES) return sha256HexSync(bytes);
  return toHex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

export async function combineDigest(files: readonly FileHash[]): Promise<string> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const text = sorted.map((file) => `${file.path}\0${file.sha256}\n`).join("");
  return `sha256:${await sha256Hex(text)}`;
}
