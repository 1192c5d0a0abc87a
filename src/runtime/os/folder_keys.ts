/**
 * A folder's key: what says its entries are the ones a listing of it saw. A folder's change
 * time moves whenever an entry is added, removed or renamed in it (POSIX asks it of create,
 * link, unlink, rename, mkdir and rmdir; and when its mtime is set back, which anyone can do to
 * mtime and no one to ctime); inode and device say it is the same folder, not another moved or
 * mounted into its place. Kept only on Linux and only for folders on a block device's
 * filesystem (ext4, xfs, f2fs, vfat, …, each of which stamps folders so): a device numbered
 * with major 0 is a FUSE, network, overlay or memory filesystem, which may report stamps that
 * never move, and there a folder is always listed. (Deno reads no /proc/self/mountinfo
 * without --allow-all, so the filesystem's type is not asked.)
 */

/**
 * How long before the listing a folder must have last changed for its key to be kept. A change
 * stamps a folder from a coarse clock (a tick, a few ms, behind), some filesystems keep stamps
 * to the second or two (ext3, FAT), and Deno gives ctime to the whole second: a folder changed
 * within that grain of its `lstat` could change again and keep its stamps.
 */
export const SETTLED_MS = 5_000;

/** The major number of a Linux device number (glibc's `makedev` layout). */
function majorOf(dev: number): number {
  return (Math.floor(dev / 0x100) & 0xfff) + Math.floor(dev / 0x1000_0000_0000) * 0x1000;
}

/**
 * The key of the folder at `path` (not followed if a link), or undefined: not a folder, on no
 * stamping filesystem, or changed at or after `settled` (ms), when given.
 */
export function folderKey(path: string, settled?: number): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return undefined;
  }
  const ctime = info.ctime?.getTime();
  const mtime = info.mtime?.getTime();
  if (!info.isDirectory || ctime === undefined || mtime === undefined || info.dev === null) {
    return undefined;
  }
  if (settled !== undefined && (ctime >= settled || mtime >= settled)) return undefined;
  if (Deno.build.os !== "linux" || majorOf(info.dev) === 0) return undefined;
  return `${info.dev}:${info.ino}:${ctime}:${mtime}:${info.nlink}:${info.mode}:${info.size}`;
}
