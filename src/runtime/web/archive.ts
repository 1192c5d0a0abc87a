/**
 * Archives downloaded from websites (`.zip`, `.tar`, `.tar.gz`, `.tgz`), read in memory with
 * every entry checked as it is read (`EntryCheck`): its path relative and inside the skill
 * (no root, no drive, no `..`, no `.git`), its type a file or a folder (a symbolic link, a
 * hard link, a device or a FIFO refuses the whole archive: a skill's lockfile records files
 * only, so none of them is a skill's), the count of entries and the bytes they unpack to
 * bounded before each entry is read. Nothing is written here: the caller writes the files
 * only once the whole archive has been read.
 *
 * The limits default to vercel-labs' CLI's (a download of 10 MiB, 25 MiB unpacked, 1,000
 * files) and read its variables, so one setting serves both tools.
 */

import { SkillError } from "../../core/errors.ts";
import { type ArchiveFile, type ArchiveLimits, EntryCheck, inflating } from "./entries.ts";
import { readTarStream } from "./tar.ts";

import { readZip } from "./zip.ts";

/** Reads a zip, a tar or a gzip'd tar by its first bytes; every entry is checked as it is read. */
export async function readArchive(
  bytes: Uint8Array,
  limits: ArchiveLimits,
  where: string,
): Promise<ArchiveFile[]> {
  const check = new EntryCheck(limits, where);
  try {
    await readByKind(bytes, check);
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw check.refuse(`it is not a valid archive (${(error as Error).message})`);
  }
  return withoutWrapper(check.files);
}

async function readByKind(bytes: Uint8Array, check: EntryCheck): Promise<void> {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) await readZip(bytes, check);
  else if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    await readTarStream(inflating(bytes, "gzip"), check);
  } else if (new TextDecoder().decode(bytes.subarray(257, 262)) === "ustar") {
    await readTarStream(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(), check);
  } else throw check.refuse("it is not a zip, tar or gzip'd tar archive");
}

/**
 * An archive that holds one folder with everything in it (`pdf/SKILL.md`, `pdf/…`) is read
 * from that folder, as release archives are made; an archive with files at its root as it is.
 */
function withoutWrapper(files: ArchiveFile[]): ArchiveFile[] {
  const tops = new Set(files.map((f) => f.path.split("/")[0]));
  const [top] = tops;
  if (tops.size !== 1 || top === undefined || files.some((f) => f.path === top)) return files;
  if (files.some((f) => f.path === "SKILL.md")) return files;
  return files.map((f) => ({ ...f, path: f.path.slice(top.length + 1) }));
}
