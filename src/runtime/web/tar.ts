/**
 * A tar stream read entry by entry (ustar, with PAX `path`/`size` records and GNU long
 * names): each header is admitted by the archive's checks (archive.ts) before its body is
 * read, so an entry that claims more than the limits allow stops the read at its header —
 * a gzip bomb is never inflated past it — and a link, a device or a path outside the skill
 * refuses the archive there.
 */

import type { EntryCheck, EntryKind } from "./entries.ts";

const BLOCK = 512;

/** Reads exactly the bytes asked for from a stream, or fewer at its end. */
class StreamReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #done = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  async read(length: number): Promise<Uint8Array> {
    while (this.#buffered < length && !this.#done) {
      const { done, value } = await this.#reader.read();
      if (done) this.#done = true;
      else {
        this.#chunks.push(value);
        this.#buffered += value.length;
      }
    }
    const size = Math.min(length, this.#buffered);
    const out = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const chunk = this.#chunks[0]!;
      const take = Math.min(chunk.length, size - at);
      out.set(chunk.subarray(0, take), at);
      at += take;
      if (take === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(take);
    }
    this.#buffered -= size;
    return out;
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function field(header: Uint8Array, from: number, length: number): string {
  return new TextDecoder().decode(header.subarray(from, from + length)).replace(/\0.*$/s, "");
}

function octal(header: Uint8Array, from: number, length: number): number {
  // A base-256 size (first byte's high bit) is a file of 8 GiB or more: never a skill's.
  if ((header[from]! & 0x80) !== 0) return Number.POSITIVE_INFINITY;
  const text = field(header, from, length).trim();
  return text === "" ? 0 : /^[0-7]+$/.test(text) ? parseInt(text, 8) : Number.NaN;
}

function kindOf(type: string): EntryKind {
  switch (type) {
    case "0":
    case "":
    case "7":
      return "file";
    case "5":
      return "folder";
    case "1":
      return "hardlink";
    case "2":
      return "symlink";
    case "3":
    case "4":
      return "device";
    default:
      return "other";
  }
}

/** The `path` and `size` of a PAX extended header's records. */
function paxRecords(body: Uint8Array): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  for (const line of new TextDecoder().decode(body).split("\n")) {
    const match = /^\d+ (path|size)=(.*)$/s.exec(line);
    if (match?.[1] === "path") out.path = match[2]!;
    if (match?.[1] === "size") out.size = /^\d+$/.test(match[2]!) ? Number(match[2]) : Number.NaN;
  }
  return out;
}

/** Metadata entries (PAX, GNU long names) are small; a large one is no honest archive's. */
const MAX_META_BYTES = 64 * 1024;

/** Reads every entry of a tar stream through `check`. */
export async function readTarStream(
  stream: ReadableStream<Uint8Array>,
  check: EntryCheck,
): Promise<void> {
  const reader = new StreamReader(stream);
  try {
    let pending: { path?: string; size?: number } = {};
    for (;;) {
      const header = await reader.read(BLOCK);
      if (header.length < BLOCK) {
        if (header.length === 0) return;
        throw check.refuse("the tar archive is cut short");
      }
      if (header.every((b) => b === 0)) return;
      const type = field(header, 156, 1);
      const name = field(header, 0, 100);
      const prefix = field(header, 345, 155);
      const size = pending.size ?? octal(header, 124, 12);
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (type === "x" || type === "g" || type === "L") {
        if (!(size <= MAX_META_BYTES)) throw check.refuse("a tar metadata entry is too large");
        const body = (await reader.read(padded)).subarray(0, size);
        if (type === "x") pending = paxRecords(body);
        if (type === "L") pending = { ...pending, path: field(body, 0, body.length) };
        continue;
      }
      const path = pending.path ?? (prefix ? `${prefix}/${name}` : name);
      pending = {};
      const kept = check.admit(path, kindOf(type), size);
      if (kept === null) {
        if (size !== 0) throw check.refuse(`the folder entry '${path}' claims a body`);
        continue;
      }
      const body = await reader.read(padded);
      if (body.length < padded) throw check.refuse(`the tar entry '${kept}' is cut short`);
      const mode = octal(header, 100, 8);
      check.keep(kept, body.slice(0, size), Number.isFinite(mode) && (mode & 0o100) !== 0);
    }
  } finally {
    await reader.close();
  }
}
