/**
 * A zip archive read from its central directory: the entry count is checked before any entry
 * is read, each entry admitted by the archive's checks (archive.ts) from what the directory
 * says — its path, its type from the Unix mode (a symbolic link or a device refuses the
 * archive), its size against the limits — before it is inflated; inflating stops one byte
 * past the size it declared (a lying entry is a bomb, refused there), and its CRC-32 is
 * checked. Encrypted entries, ZIP64 and methods other than stored and deflated are refused.
 */

import { type EntryCheck, type EntryKind, inflating } from "./entries.ts";

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

let crcTable: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The end-of-central-directory record's offset, searched from the end (a comment may follow it). */
function findEnd(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  return -1;
}

function kindOfMode(mode: number, name: string): EntryKind {
  const type = mode & 0o170000;
  if (type === 0o120000) return "symlink";
  if (type === 0o040000 || name.endsWith("/")) return "folder";
  if (type === 0 || type === 0o100000) return "file";
  return "device";
}

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  local: number;
  mode: number;
  madeOnUnix: boolean;
}

function centralEntry(view: DataView, bytes: Uint8Array, at: number): [CentralEntry, number] {
  const nameLength = view.getUint16(at + 28, true);
  const extraLength = view.getUint16(at + 30, true);
  const commentLength = view.getUint16(at + 32, true);
  const flags = view.getUint16(at + 8, true);
  const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength);
  const name = new TextDecoder(flags & 0x800 ? "utf-8" : "utf-8", { fatal: false }).decode(
    nameBytes,
  );
  const entry: CentralEntry = {
    name,
    flags,
    method: view.getUint16(at + 10, true),
    crc: view.getUint32(at + 16, true),
    compressed: view.getUint32(at + 20, true),
    size: view.getUint32(at + 24, true),
    local: view.getUint32(at + 42, true),
    mode: view.getUint32(at + 38, true) >>> 16,
    madeOnUnix: view.getUint8(at + 5) === 3,
  };
  return [entry, at + 46 + nameLength + extraLength + commentLength];
}

/** Inflates raw deflate data, stopping once it passes `limit` bytes. */
async function inflateBounded(data: Uint8Array, limit: number): Promise<Uint8Array | null> {
  const reader = inflating(data, "deflate-raw").getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Reads every entry of a zip through `check`. */
export async function readZip(bytes: Uint8Array, check: EntryCheck): Promise<void> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  if (end < 0) throw check.refuse("the zip archive has no central directory");
  const count = view.getUint16(end + 10, true);
  const directory = view.getUint32(end + 16, true);
  if (count === 0xffff || directory === 0xffffffff) {
    throw check.refuse("ZIP64 archives are not read");
  }
  if (count > check.limits.extractMaxFiles) {
    throw check.refuse(
      `it holds more than ${check.limits.extractMaxFiles} entries`,
      "Set SKILLS_EXTRACT_MAX_FILES to allow more",
    );
  }
  let at = directory;
  for (let index = 0; index < count; index++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) {
      throw check.refuse("the zip archive's central directory is damaged");
    }
    const [entry, next] = centralEntry(view, bytes, at);
    at = next;
    if (at > end) throw check.refuse("the zip archive's central directory is damaged");
    await readEntry(view, bytes, entry, check, directory);
  }
}

async function readEntry(
  view: DataView,
  bytes: Uint8Array,
  entry: CentralEntry,
  check: EntryCheck,
  directory: number,
): Promise<void> {
  const kind = entry.madeOnUnix
    ? kindOfMode(entry.mode, entry.name)
    : entry.name.endsWith("/")
    ? "folder"
    : "file";
  const path = check.admit(entry.name, kind, entry.size);
  if (path === null) return;
  if (entry.flags & 1) throw check.refuse(`the entry '${path}' is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw check.refuse(`the entry '${path}' uses compression method ${entry.method}`);
  }
  const local = entry.local;
  if (local + 30 > directory || view.getUint32(local, true) !== LOCAL) {
    throw check.refuse(`the entry '${path}' has no local header`);
  }
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  if (start + entry.compressed > directory) {
    throw check.refuse(`the entry '${path}' runs past its archive`);
  }
  const data = bytes.subarray(start, start + entry.compressed);
  const body = entry.method === 0 ? data.slice() : await inflateBounded(data, entry.size);
  if (body === null || body.length !== entry.size) {
    throw check.refuse(`the entry '${path}' unpacks to another size than it declares`);
  }
  if (crc32(body) !== entry.crc) throw check.refuse(`the entry '${path}' fails its CRC-32 check`);
  check.keep(path, body, entry.madeOnUnix && (entry.mode & 0o100) !== 0);
}
