/**
 * One deterministic tar+gzip layer per skill: files sorted by path, mtime 0, uid/gid 0,
 * no user names, mode 0644 (0755 when the owner may execute), no directory entries — so
 * the same files always give the same digest, whoever packs them and when.
 */

import { sha256Hex } from "../../core/records/digest.ts";
import { fileTurns } from "../os/fs.ts";

interface PackedFile {
  /** Relative path, `/` separators. */
  path: string;
  bytes: Uint8Array;
  executable: boolean;
}

interface SkillLayer {
  layer: Uint8Array;
  files: { path: string; sha256: string }[];
}

/** Reads a skill folder; symlinks and special files are refused, never followed. */
export async function readSkillFolder(root: string): Promise<PackedFile[]> {
  const files: PackedFile[] = [];
  // Sync calls, with a turn of the event loop now and then (runtime/os/fs.ts, fileTurns).
  const turn = fileTurns();
  async function walk(relative: string): Promise<void> {
    for (const entry of Deno.readDirSync(relative ? `${root}/${relative}` : root)) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.name === ".git") continue;
      if (entry.isSymlink) {
        throw new Error(
          `Cannot publish "${root}": ${path} is a symbolic link. Replace it with the file it points to.`,
        );
      }
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        await turn();
        const info = Deno.statSync(`${root}/${path}`);
        files.push({
          path,
          bytes: Deno.readFileSync(`${root}/${path}`),
          executable: ((info.mode ?? 0) & 0o100) !== 0,
        });
      }
    }
  }
  await walk("");
  return files;
}

export async function packLayer(input: readonly PackedFile[]): Promise<SkillLayer> {
  const sorted = [...input].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const chunks: Uint8Array[] = [];
  const files: { path: string; sha256: string }[] = [];
  for (const file of sorted) {
    chunks.push(tarHeader(file.path, file.bytes.length, file.executable ? 0o755 : 0o644));
    chunks.push(file.bytes);
    const pad = (512 - (file.bytes.length % 512)) % 512;
    if (pad) chunks.push(new Uint8Array(pad));
    files.push({ path: file.path, sha256: await sha256Hex(file.bytes) });
  }
  chunks.push(new Uint8Array(1024)); // end of archive
  const tar = new Blob(chunks as Uint8Array<ArrayBuffer>[]);
  const gz = tar.stream().pipeThrough(new CompressionStream("gzip"));
  return { layer: new Uint8Array(await new Response(gz).arrayBuffer()), files };
}

function tarHeader(path: string, size: number, mode: number): Uint8Array {
  const header = new Uint8Array(512);
  const encoder = new TextEncoder();
  let name = path;
  let prefix = "";
  if (encoder.encode(path).length > 100) {
    const cut = path.lastIndexOf("/", 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
    if (cut <= 0 || encoder.encode(name).length > 100 || encoder.encode(prefix).length > 155) {
      throw new Error(`Cannot publish: the path ${path} is too long for a tar header. Shorten it.`);
    }
  }
  const put = (offset: number, text: string) => header.set(encoder.encode(text), offset);
  const octal = (offset: number, width: number, value: number) =>
    put(offset, value.toString(8).padStart(width - 1, "0") + "\0");
  put(0, name);
  octal(100, 8, mode);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, 0);
  put(148, "        ");
  put(156, "0");
  put(257, "ustar\0");
  put(263, "00");
  put(345, prefix);
  const sum = header.reduce((total, byte) => total + byte, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return header;
}
