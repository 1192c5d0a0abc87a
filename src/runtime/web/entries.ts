/**
 * What every archive entry passes, whatever the format (tar.ts, zip.ts): its path relative and
 * inside the skill, its type a file or a folder, its size and the count against the limits,
 * admitted before its bytes are read; and compressed bytes inflated a slice at a time so the
 * reader that checks can stop a bomb early.
 */

import { SkillError } from "../../core/errors.ts";
import { safeEntryPath } from "../../core/sources/web_source.ts";

/** A file read out of an archive. */
export interface ArchiveFile {
  path: string;
  bytes: Uint8Array;
  executable: boolean;
}

export interface ArchiveLimits {
  downloadMaxBytes: number;
  extractMaxBytes: number;
  extractMaxFiles: number;
}

const DEFAULT_LIMITS: ArchiveLimits = {
  downloadMaxBytes: 10 * 1024 * 1024,
  extractMaxBytes: 25 * 1024 * 1024,
  extractMaxFiles: 1000,
};

/** The limits in force: `SKILLS_DOWNLOAD_MAX_BYTES`, `SKILLS_EXTRACT_MAX_BYTES`, `SKILLS_EXTRACT_MAX_FILES`. */
export function archiveLimits(env: Readonly<Record<string, string | undefined>>): ArchiveLimits {
  const read = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isSafeInteger(value) && value > 0 ? value : fallback;
  };
  return {
    downloadMaxBytes: read("SKILLS_DOWNLOAD_MAX_BYTES", DEFAULT_LIMITS.downloadMaxBytes),
    extractMaxBytes: read("SKILLS_EXTRACT_MAX_BYTES", DEFAULT_LIMITS.extractMaxBytes),
    extractMaxFiles: read("SKILLS_EXTRACT_MAX_FILES", DEFAULT_LIMITS.extractMaxFiles),
  };
}

/** What an entry is, as the archive says. */
export type EntryKind = "file" | "folder" | "symlink" | "hardlink" | "device" | "other";

/** The checks every entry of an archive passes, in the order it is read. */
export class EntryCheck {
  readonly files: ArchiveFile[] = [];
  #count = 0;
  #bytes = 0;
  readonly #seen = new Set<string>();

  constructor(readonly limits: ArchiveLimits, readonly where: string) {}

  /** Refuses the archive: nothing of it is written. */
  refuse(why: string, hint?: string): SkillError {
    return new SkillError(
      "integrity_mismatch",
      `Cannot install from ${this.where}: ${why}. Nothing was written`,
      hint === undefined ? {} : { hint },
    );
  }

  /**
   * Admits the next entry before its bytes are read: its path and kind, and its size against
   * what is left of the limits. Returns the path to keep (null for a folder).
   */
  admit(rawPath: string, kind: EntryKind, size: number): string | null {
    if (++this.#count > this.limits.extractMaxFiles) {
      throw this.refuse(
        `it holds more than ${this.limits.extractMaxFiles} entries`,
        "Set SKILLS_EXTRACT_MAX_FILES to allow more",
      );
    }
    const path = rawPath.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
    if (kind === "folder" && path === "") return null;
    if (!safeEntryPath(path)) {
      throw this.refuse(`the entry '${printable(rawPath)}' is not a path inside the skill`);
    }
    if (kind === "symlink" || kind === "hardlink") {
      throw this.refuse(
        `the entry '${printable(path)}' is a ${kind === "symlink" ? "symbolic" : "hard"} link`,
      );
    }
    if (kind === "device" || kind === "other") {
      throw this.refuse(`the entry '${printable(path)}' is a device or special file`);
    }
    if (kind === "folder") return null;
    if (!Number.isSafeInteger(size) || size < 0) {
      throw this.refuse(`the entry '${printable(path)}' has no valid size`);
    }
    this.#bytes += size;
    if (this.#bytes > this.limits.extractMaxBytes) {
      throw this.refuse(
        `it unpacks to more than ${this.limits.extractMaxBytes} bytes`,
        "Set SKILLS_EXTRACT_MAX_BYTES to allow more",
      );
    }
    if (this.#seen.has(path)) throw this.refuse(`the entry '${printable(path)}' appears twice`);
    this.#seen.add(path);
    return path;
  }

  keep(path: string, bytes: Uint8Array, executable: boolean): void {
    this.files.push({ path, bytes, executable });
  }
}

function printable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.slice(0, 200).replace(/[\u0000-\u001f\u007f]/g, "?");
}

/**
 * Compressed bytes inflated as they are read, fed a small slice at a time: one slice of
 * deflate inflates to at most ~1,000 times its size, so whoever reads stops a bomb within a
 * few hundred KiB of the limit it checks (a whole buffer fed at once is inflated at once).
 */
export function inflating(
  bytes: Uint8Array,
  format: "gzip" | "deflate-raw",
): ReadableStream<Uint8Array> {
  const SLICE = 256;
  let at = 0;
  const source = new ReadableStream<BufferSource>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + SLICE));
      at += SLICE;
    },
  }, { highWaterMark: 0 });
  return source.pipeThrough(new DecompressionStream(format));
}
