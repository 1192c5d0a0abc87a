/**
 * Archives built byte by byte for tests, so a test can write what no honest tool writes: a
 * tar entry of any type and path (links, devices, `..`, absolute paths, sizes that lie), and
 * a zip entry with any name, Unix mode and declared size.
 */

export interface TarEntry {
  path: string;
  /** tar type flag: "0" file, "1" hard link, "2" symlink, "3" char device, "5" folder. */
  type?: string;
  body?: Uint8Array | string;
  /** The size the header claims (defaults to the body's). */
  size?: number;
  link?: string;
  mode?: number;
}

function put(header: Uint8Array, at: number, text: string): void {
  header.set(new TextEncoder().encode(text), at);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

export function tarBytes(entries: readonly TarEntry[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const entry of entries) {
    const body = typeof entry.body === "string"
      ? new TextEncoder().encode(entry.body)
      : entry.body ?? new Uint8Array(0);
    const header = new Uint8Array(512);
    put(header, 0, entry.path);
    put(header, 100, octal(entry.mode ?? 0o644, 8));
    put(header, 108, octal(0, 8));
    put(header, 116, octal(0, 8));
    put(header, 124, octal(entry.size ?? body.length, 12));
    put(header, 136, octal(0, 12));
    put(header, 148, "        ");
    put(header, 156, entry.type ?? "0");
    if (entry.link) put(header, 157, entry.link);
    put(header, 257, "ustar\0");
    put(header, 263, "00");
    const sum = header.reduce((n, b) => n + b, 0);
    put(header, 148, octal(sum, 7) + " ");
    blocks.push(header);
    const padded = new Uint8Array(Math.ceil(body.length / 512) * 512);
    padded.set(body);
    blocks.push(padded);
  }
  blocks.push(new Uint8Array(1024));
  return concat(blocks);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function through(bytes: Uint8Array, stream: CompressionStream): Promise<Uint8Array> {
  const out = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return through(bytes, new CompressionStream("gzip"));
}

export interface ZipEntry {
  name: string;
  body?: Uint8Array | string;
  /** Unix mode in the high half of the external attributes (0o120777 a symlink). */
  mode?: number;
  /** The uncompressed size the directory declares (defaults to the body's). */
  declaredSize?: number;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A zip of deflated entries, made on Unix (so modes count). */
export async function zipBytes(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const body = typeof entry.body === "string"
      ? new TextEncoder().encode(entry.body)
      : entry.body ?? new Uint8Array(0);
    const data = await through(body, new CompressionStream("deflate-raw"));
    const name = new TextEncoder().encode(entry.name);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, 8, true);
    local.setUint32(14, crc32(body), true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, entry.declaredSize ?? body.length, true);
    local.setUint16(26, name.length, true);
    const localBytes = concat([new Uint8Array(local.buffer), name, data]);
    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(4, (3 << 8) | 20, true);
    central.setUint16(6, 20, true);
    central.setUint16(10, 8, true);
    central.setUint32(16, crc32(body), true);
    central.setUint32(20, data.length, true);
    central.setUint32(24, entry.declaredSize ?? body.length, true);
    central.setUint16(28, name.length, true);
    central.setUint32(38, ((entry.mode ?? 0o100644) << 16) >>> 0, true);
    central.setUint32(42, offset, true);
    centrals.push(concat([new Uint8Array(central.buffer), name]));
    locals.push(localBytes);
    offset += localBytes.length;
  }
  const directory = concat(centrals);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, directory.length, true);
  end.setUint32(16, offset, true);
  return concat([...locals, directory, new Uint8Array(end.buffer)]);
}
