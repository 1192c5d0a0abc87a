/**
 * A skill layer (tar+gzip) unpacked as it streams in (the client's `openBlob`): the compressed
 * bytes are hashed on the way, gunzipped and read as tar a piece at a time, and each file is
 * handed to a sink as it arrives — never the whole layer, nor the whole archive, in memory;
 * nothing unpacked counts until the bytes hashed to the layer's digest.
 * What it unpacks to is bounded: 100 MiB per file (as for every skill file), 1 GiB per layer
 * (as for a local directory), and a budget shared by every layer of one pull, so a 1 MB gzip
 * bomb — alone, or eight of them in an index — is refused after at most that much work, with
 * a message naming the limit. Tar entries: regular files only, relative paths without `..`.
 */

import { MAX_SKILL_FILE_BYTES } from "../../core/manifest/limits.ts";

const GIB = 1024 * 1024 * 1024;
/** What one layer may unpack to (the limit a local directory has: 1 GiB in all). */
export const MAX_LAYER_BYTES = GIB;
/** What all layers of one pull (an index of skills) may unpack to together. */
const MAX_PULL_BYTES = 2 * GIB;
/** Compressed bytes handed to gunzip at once: deflate inflates them at most ~1000-fold. */
const IN_BYTES = 16 * 1024;
/** The pieces gunzip gives out. */
const OUT_BYTES = 256 * 1024;
/** A PAX or GNU long-name header body larger than this is no path. */
const MAX_HEADER_BODY = 1024 * 1024;

/** Where unpacked files go: each opened, written piece by piece, then closed. */
export interface FileSink {
  open(path: string, executable: boolean): Promise<FileWriter>;
}

interface FileWriter {
  write(piece: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** What every layer of one pull may still unpack to, shared by layers unpacked at once. */
export class UnpackBudget {
  #left: number;
  #stopped = false;
  constructor(readonly total = MAX_PULL_BYTES, readonly what = "its layers") {
    this.#left = total;
  }

  /** Another layer of the pull failed: the others end at their next piece. */
  stop(): void {
    this.#stopped = true;
  }

  take(bytes: number, where: string): void {
    if (this.#stopped) throw new LimitError(`Cannot install from ${where}: another layer failed.`);
    this.#left -= bytes;
    if (this.#left < 0) {
      throw new LimitError(
        `Cannot install from ${where}: ${this.what} unpack to more than ${gib(this.total)} ` +
          "together (the limit for one pull). Refusing it; nothing was installed.",
      );
    }
  }
}

function gib(bytes: number): string {
  return `${bytes / GIB} GiB`;
}

/** One file as the layer held it: its path, sha256 (hex) and whether its owner may run it. */
interface UnpackedFile {
  path: string;
  sha256: string;
  executable: boolean;
}

/** A refusal for what a layer unpacks to: no need to read the rest of it to say so. */
class LimitError extends Error {}

/** Where the layer comes from, for messages: `oci://registry/repository@digest`, and its blob. */
interface LayerSource {
  where: string;
  /** `registry/repository`. */
  repository: string;
  digest: string;
}

/**
 * Unpacks the tar+gzip `layer` (its blob `source.digest`) into `sink`, counting what it
 * unpacks to against the layer's limit and `budget`. Returns the files once the bytes read
 * hashed to the digest; throws (naming the source) on anything refused — a blob whose bytes
 * differ is reported as such even when it failed to unpack first.
 */
export async function unpackLayer(
  layer: ReadableStream<Uint8Array>,
  source: LayerSource,
  budget: UnpackBudget,
  sink: FileSink,
): Promise<UnpackedFile[]> {
  const { createHash } = await import("node:crypto");
  // node:zlib, not DecompressionStream: that one inflates each piece it is given whole (a
  // 1 MB piece of a bomb comes out as one piece of gigabytes); this one gives out pieces of
  // `chunkSize` and holds the next input until they are read.
  const { createGunzip } = await import("node:zlib");
  const gunzip = createGunzip({ chunkSize: OUT_BYTES });
  let abandon = false;
  const fed = feed(layer, gunzip, createHash("sha256"), () => abandon);
  fed.catch(() => {}); // awaited below on every path
  let files: UnpackedFile[];
  try {
    const pieces = counted(gunzip as AsyncIterable<Uint8Array>, source.where, budget);
    files = await readTar(pieces, source.where, sink);
  } catch (error) {
    if (error instanceof LimitError) {
      abandon = true;
      gunzip.destroy();
      await fed.catch(() => {});
      throw error;
    }
    // A blob cut off or larger than promised says so; one whose bytes differ says that.
    checkDigest(source, await fed);
    throw error;
  }
  checkDigest(source, await fed);
  return files;
}

/** The gunzip side of a layer: written to a little at a time, ended or destroyed. */
interface Gunzip {
  write(piece: Uint8Array, done: (error?: Error | null) => void): unknown;
  end(): unknown;
  destroy(error?: Error): unknown;
  once(event: "close", listener: () => void): unknown;
}

/**
 * Feeds the compressed pieces to `gunzip` in slices of IN_BYTES, each once the last was taken
 * (so at most one slice's inflation waits to be read), hashing every piece: when the gunzip
 * side fails the rest is still hashed, so a tampered blob is named as one, unless abandoned.
 */
async function feed(
  layer: ReadableStream<Uint8Array>,
  gunzip: Gunzip,
  hash: { update(piece: Uint8Array): unknown; digest(encoding: "hex"): string },
  abandoned: () => boolean,
): Promise<string> {
  let broken = false;
  // A write held back for a reader that is gone may never be called back: its close ends it.
  const closed = new Promise<void>((resolve) => gunzip.once("close", resolve)).then(() => {
    broken = true;
  });
  const write = (slice: Uint8Array) =>
    Promise.race([
      closed,
      new Promise<void>((resolve) =>
        gunzip.write(slice, (error) => {
          if (error) broken = true;
          resolve();
        })
      ),
    ]);
  try {
    for await (const piece of layer) {
      if (abandoned()) break;
      hash.update(piece);
      for (let at = 0; !broken && at < piece.length; at += IN_BYTES) {
        await write(piece.subarray(at, at + IN_BYTES));
      }
    }
  } catch (error) {
    // The blob could not be read to its end: the gunzip side ends with the same error.
    gunzip.destroy(error as Error);
    throw error;
  }
  if (abandoned()) gunzip.destroy();
  else gunzip.end();
  return `sha256:${hash.digest("hex")}`;
}

function checkDigest(source: LayerSource, actual: string): void {
  if (actual !== source.digest) {
    throw new Error(
      `Cannot trust blob ${source.digest} of ${source.repository}: its bytes hash to ${actual}. Refusing it; nothing was installed.`,
    );
  }
}

/** The tar archive `pieces` hold, each regular file handed to `sink`; the rest read and counted. */
async function readTar(
  pieces: AsyncIterable<Uint8Array>,
  where: string,
  sink: FileSink,
): Promise<UnpackedFile[]> {
  const tar = new ByteReader(pieces);
  try {
    return await readEntries(tar, where, sink);
  } finally {
    // Ends the gunzip stream when the reading stopped early, so the feeding side is not left
    // waiting for a reader that is gone.
    await tar.close();
  }
}

async function readEntries(
  tar: ByteReader,
  where: string,
  sink: FileSink,
): Promise<UnpackedFile[]> {
  const { createHash } = await import("node:crypto");
  const files: UnpackedFile[] = [];
  const text = (bytes: Uint8Array, from: number, length: number) =>
    new TextDecoder().decode(bytes.subarray(from, from + length)).replace(/\0.*$/s, "");
  /** The next entry's path from a PAX (`x`) or GNU (`L`) header, when one came first. */
  let longPath: string | undefined;
  for (;;) {
    const header = await tar.exact(512, where);
    if (header === null || header.every((byte) => byte === 0)) break;
    const name = text(header, 0, 100);
    const prefix = text(header, 345, 155);
    const raw = longPath ?? (prefix ? `${prefix}/${name}` : name);
    longPath = undefined;
    // `tar -C dir .` writes `./SKILL.md`; directories end with `/`.
    const path = raw.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
    const size = parseInt(text(header, 124, 12).trim() || "0", 8);
    const type = text(header, 156, 1) || "0";
    const mode = parseInt(text(header, 100, 8).trim() || "0", 8);
    if (!Number.isSafeInteger(size) || size < 0 || size > MAX_SKILL_FILE_BYTES) {
      throw new Error(
        `Cannot install from ${where}: ${path} is ${size} bytes, too large. Refusing it.`,
      );
    }
    const padding = (512 - (size % 512)) % 512;
    if (type === "x" || type === "L") {
      if (size > MAX_HEADER_BODY) {
        throw new Error(
          `Cannot install from ${where}: a tar header of ${size} bytes. Refusing it.`,
        );
      }
      const bytes = (await tar.exact(size + padding, where)) ?? new Uint8Array();
      const body = new TextDecoder().decode(bytes.subarray(0, size));
      longPath = type === "L"
        ? body.replace(/\0.*$/s, "")
        : /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body)?.[1];
      continue;
    }
    if (type === "5" || type === "g" || path === "") {
      // Directories come from the files' paths; a global PAX header holds nothing we need.
      await tar.skip(size + padding, where);
      continue;
    }
    if (type !== "0") {
      throw new Error(
        `Cannot install from ${where}: ${path} is not a regular file (tar type ${type}). Refusing it.`,
      );
    }
    if (path.startsWith("/") || path.split("/").some((p) => p === ".." || p === "." || p === "")) {
      throw new Error(
        `Cannot install from ${where}: the path ${path} leaves the skill folder. Refusing it.`,
      );
    }
    const executable = (mode & 0o100) !== 0;
    const writer = await sink.open(path, executable);
    const hash = createHash("sha256");
    try {
      for await (const piece of tar.take(size, where)) {
        hash.update(piece);
        await writer.write(piece);
      }
    } finally {
      await writer.close();
    }
    await tar.skip(padding, where);
    files.push({ path, sha256: hash.digest("hex"), executable });
  }
  // Whatever follows the archive still counts, and is read to the end with the blob.
  await tar.skip(Infinity, where);
  return files;
}

/** The gunzipped pieces, each counted against the layer's limit and the pull's budget. */
async function* counted(
  stream: AsyncIterable<Uint8Array>,
  where: string,
  budget: UnpackBudget,
): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const piece of stream) {
    total += piece.length;
    if (total > MAX_LAYER_BYTES) {
      throw new LimitError(
        `Cannot install from ${where}: its layer unpacks to more than ${gib(MAX_LAYER_BYTES)} ` +
          "(the limit for one skill). Refusing it; nothing was installed.",
      );
    }
    budget.take(piece.length, where);
    yield piece;
  }
}

/** Reads a stream of pieces by exact lengths, holding at most one piece back. */
class ByteReader {
  #pieces: AsyncIterator<Uint8Array>;
  #held: Uint8Array = new Uint8Array(0);
  #ended = false;

  constructor(pieces: AsyncIterable<Uint8Array>) {
    this.#pieces = pieces[Symbol.asyncIterator]();
  }

  async #next(): Promise<Uint8Array | null> {
    if (this.#held.length > 0) {
      const held = this.#held;
      this.#held = new Uint8Array(0);
      return held;
    }
    if (this.#ended) return null;
    const next = await this.#pieces.next();
    if (next.done) {
      this.#ended = true;
      return null;
    }
    return next.value;
  }

  /** Up to `length` bytes in pieces; throws when the stream ends first. */
  async *take(length: number, where: string): AsyncGenerator<Uint8Array> {
    let left = length;
    while (left > 0) {
      const piece = await this.#next();
      if (piece === null) {
        if (length === Infinity) return;
        throw new Error(`Cannot install from ${where}: its layer is cut short. Refusing it.`);
      }
      if (piece.length > left) {
        this.#held = piece.subarray(left);
        yield piece.subarray(0, left);
        return;
      }
      left -= piece.length;
      yield piece;
    }
  }

  /** Exactly `length` bytes; null when the stream has ended. */
  async exact(length: number, where: string): Promise<Uint8Array | null> {
    const first = await this.#next();
    if (first === null) return null;
    this.#held = first;
    const out = new Uint8Array(length);
    let at = 0;
    for await (const piece of this.take(length, where)) {
      out.set(piece, at);
      at += piece.length;
    }
    return out;
  }

  /** Stops reading: the pieces' source is told so. */
  async close(): Promise<void> {
    this.#ended = true;
    await this.#pieces.return?.();
  }

  async skip(length: number, where: string): Promise<void> {
    for await (const _ of this.take(length, where)) { /* counted, then dropped */ }
  }
}
