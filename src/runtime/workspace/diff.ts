/**
 * The diff a run left: its overlay's upper layer read against the user's folder (the lower
 * layer), with no walk of the user's folder — only the paths the upper layer names are looked
 * up there. The upper layer is the script's work, hence hostile data: nothing in it is
 * followed (lstat only), and what it says is turned into a plan of plain operations
 * (apply.ts) on workspace-relative paths.
 *
 * The two engines' conventions (both read whatever the engine):
 *   - a whiteout (the name was deleted): a character device 0/0 (the kernel, and
 *     fuse-overlayfs where it may make one); fuse-overlayfs's fallback, a file `.wh.NAME`;
 *   - an opaque folder (the lower folder's entries are hidden: a folder deleted and made
 *     again): the kernel's `trusted.overlay.opaque` xattr ("y"); fuse-overlayfs's
 *     `user.fuseoverlayfs.opaque` xattr and `.wh..wh..opq` file (and `.wh..opq` device).
 * Deno reads no xattrs: the folders that may be opaque (those in both layers) are asked of
 * Python's os.getxattr in one short helper run, only when there are any.
 */

import { join } from "../os/paths.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import type { OverlayEngineName } from "./types.ts";

type Engine = OverlayEngineName;

/** A file or link the run left at `rel`: `created` when nothing was there before. */
interface DiffWrite {
  rel: string;
  kind: "file" | "link";
  /** Permission bits as the script left them (set-uid, set-gid and sticky never kept). */
  mode: number;
  /** The link's target. */
  target?: string;
  created: boolean;
}

export interface LayerDiff {
  /** Paths removed from the user's folder (files, links, whole folders), shallowest first. */
  deleted: { rel: string; dir: boolean }[];
  /** Folders to make (parents first) with their permission bits. */
  dirs: { rel: string; mode: number }[];
  writes: DiffWrite[];
  /** Device files, fifos and sockets: never carried over. */
  special: string[];
}

const WHITEOUT_PREFIX = ".wh.";
const OPAQUE_MARKERS = new Set([".wh..wh..opq", ".wh..opq"]);

function isWhiteoutDevice(info: Deno.FileInfo): boolean {
  return info.isCharDevice === true && (info.rdev ?? -1) === 0;
}

/**
 * Reads `upper` against `lower` (the user's folder). `opaque` says which of the candidate
 * folders (in both layers) are opaque: by default the xattrs are asked of Python.
 */
export function readDiff(
  upper: string,
  lower: string,
  engine: Engine,
  opaque: (dirs: string[]) => Set<string> = opaqueFolders,
): LayerDiff {
  const diff: LayerDiff = { deleted: [], dirs: [], writes: [], special: [] };
  // Folders of the upper layer that also are folders below: copied up, or opaque.
  const merged: string[] = [];
  const walk = (rel: string) => {
    const here = rel === "" ? upper : join(upper, rel);
    let names: string[];
    try {
      names = [...Deno.readDirSync(here)].map((entry) => entry.name).sort();
    } catch {
      return;
    }
    const markedOpaque = engine === "fuse-overlayfs" && names.includes(".wh..wh..opq");
    if (markedOpaque && rel !== "") hideLower(diff, lower, rel, names, engine);
    for (const name of names) {
      if (OPAQUE_MARKERS.has(name)) continue;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const info = lstatSyncOrNull(join(upper, childRel));
      if (info === null) continue;
      if (engine === "fuse-overlayfs" && name.startsWith(WHITEOUT_PREFIX) && info.isFile) {
        const gone = rel === "" ? name.slice(4) : `${rel}/${name.slice(4)}`;
        deleteIfBelow(diff, lower, gone);
        continue;
      }
      if (isWhiteoutDevice(info)) {
        deleteIfBelow(diff, lower, childRel);
        continue;
      }
      const below = lstatSyncOrNull(join(lower, childRel));
      if (info.isDirectory) {
        if (below !== null && !below.isDirectory) diff.deleted.push({ rel: childRel, dir: false });
        if (below?.isDirectory) {
          if (!markedOpaqueIn(upper, childRel, engine)) merged.push(childRel);
        } else diff.dirs.push({ rel: childRel, mode: permissions(info.mode) });
        walk(childRel);
      } else if (info.isFile || info.isSymlink) {
        if (below?.isDirectory) diff.deleted.push({ rel: childRel, dir: true });
        write(diff, upper, lower, childRel, info, below);
      } else {
        diff.special.push(childRel);
      }
    }
  };
  walk("");
  // Opaque folders (a folder deleted and made again): what was below and is not above is gone.
  if (merged.length > 0) {
    const hidden = opaque(merged.map((rel) => join(upper, rel)));
    for (const rel of merged) {
      if (!hidden.has(join(upper, rel))) continue;
      const names = [...Deno.readDirSync(join(upper, rel))].map((entry) => entry.name);
      hideLower(diff, lower, rel, names, engine);
    }
  }
  diff.deleted.sort((a, b) => a.rel.localeCompare(b.rel));
  return diff;
}

/** A fuse-overlayfs folder is opaque by its marker file too (when its xattr is not read). */
function markedOpaqueIn(upper: string, rel: string, engine: Engine): boolean {
  return engine === "fuse-overlayfs" && lstatSyncOrNull(join(upper, rel, ".wh..wh..opq")) !== null;
}

/** The set-uid, set-gid and sticky bits dropped: only permissions are carried over. */
function permissions(mode: number | null): number {
  return (mode ?? 0o644) & 0o777;
}

function deleteIfBelow(diff: LayerDiff, lower: string, rel: string): void {
  const below = lstatSyncOrNull(join(lower, rel));
  if (below !== null) diff.deleted.push({ rel, dir: below.isDirectory });
}

/** Every entry of the lower folder `rel` that the (opaque) upper folder does not hold. */
function hideLower(
  diff: LayerDiff,
  lower: string,
  rel: string,
  upperNames: readonly string[],
  engine: Engine,
): void {
  const kept = new Set(upperNames);
  let below: Deno.DirEntry[] = [];
  try {
    below = [...Deno.readDirSync(join(lower, rel))];
  } catch { /* nothing below */ }
  for (const entry of below) {
    if (kept.has(entry.name)) continue;
    if (engine === "fuse-overlayfs" && kept.has(`${WHITEOUT_PREFIX}${entry.name}`)) continue;
    diff.deleted.push({ rel: `${rel}/${entry.name}`, dir: entry.isDirectory && !entry.isSymlink });
  }
}

/** A file or link of the upper layer: created, changed, or the same bytes copied up (left out). */
function write(
  diff: LayerDiff,
  upper: string,
  lower: string,
  rel: string,
  info: Deno.FileInfo,
  below: Deno.FileInfo | null,
): void {
  const mode = permissions(info.mode);
  const existed = below !== null && !below.isDirectory;
  if (info.isSymlink) {
    const target = Deno.readLinkSync(join(upper, rel));
    if (existed && below!.isSymlink && Deno.readLinkSync(join(lower, rel)) === target) return;
    diff.writes.push({ rel, kind: "link", mode, target, created: !existed });
    return;
  }
  if (
    existed && below!.isFile && permissions(below!.mode) === mode &&
    sameBytes(join(upper, rel), join(lower, rel), info.size, below!.size)
  ) return;
  diff.writes.push({ rel, kind: "file", mode, created: !existed });
}

/** Whether two files hold the same bytes (a copy-up that changed nothing: `touch`, open for write). */
function sameBytes(a: string, b: string, sizeA: number, sizeB: number): boolean {
  if (sizeA !== sizeB) return false;
  let fa: Deno.FsFile | undefined;
  let fb: Deno.FsFile | undefined;
  try {
    fa = Deno.openSync(a);
    fb = Deno.openSync(b);
    const bufA = new Uint8Array(1 << 16);
    const bufB = new Uint8Array(1 << 16);
    for (;;) {
      const n = fa.readSync(bufA);
      if (n === null) return fb.readSync(bufB) === null;
      let got = 0;
      while (got < n) {
        const m = fb.readSync(bufB.subarray(got, n));
        if (m === null) return false;
        got += m;
      }
      for (let i = 0; i < n; i++) if (bufA[i] !== bufB[i]) return false;
    }
  } catch {
    return false;
  } finally {
    fa?.close();
    fb?.close();
  }
}

const OPAQUE_HELPER = `
import os, sys
for path in sys.argv[1:]:
    for name in ("trusted.overlay.opaque", "user.overlay.opaque", "user.fuseoverlayfs.opaque"):
        try:
            value = os.getxattr(path, name, follow_symlinks=False)
        except OSError:
            continue
        if value in (b"y", b"x") or name == "user.fuseoverlayfs.opaque":
            sys.stdout.buffer.write(os.fsencode(path) + b"\\0")
            break
`;

/** Which of `dirs` carry an opaque xattr, asked of Python (Deno has no xattr calls). */
function opaqueFolders(dirs: string[]): Set<string> {
  const python = ["/usr/bin/python3", "/bin/python3"].find((p) => lstatSyncOrNull(p) !== null) ??
    "python3";
  try {
    const output = new Deno.Command(python, {
      args: ["-I", "-S", "-B", "-c", OPAQUE_HELPER, ...dirs],
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    return new Set(new TextDecoder().decode(output.stdout).split("\0").filter((l) => l !== ""));
  } catch {
    return new Set();
  }
}
