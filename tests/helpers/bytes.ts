/** Bytes for tests: text as the UTF-8 a file holds, and the digest a resource advertises. */

import { createHash } from "node:crypto";

/** `text` as UTF-8 bytes (what parsers and the audit read from a file). */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `sha256:<hex>` of `bytes`: the digest form MCP resources and skills/get carry. */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return `sha256:${
    Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

/** Hex sha256 of `text` as UTF-8: the form the lockfile records for files and for itself. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
