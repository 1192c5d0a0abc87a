/**
 * Which overlay engine gives a sandboxed script its copy-on-write workspace (runtime/workspace
 * applies the diff it leaves): as root, the kernel's overlayfs, mounted by the init helper
 * with the CAP_SYS_ADMIN bubblewrap leaves it (bubblewrap 0.8 has no overlay options); as an
 * ordinary user, inside bubblewrap's user namespace, the kernel refuses an overlay, and
 * `fuse-overlayfs` (Debian's package of that name, podman's rootless engine) serves it through
 * `/dev/fuse`. Where neither can be had the workspace is read-only for the run (never written
 * directly): {@link overlayEngine} says why, and `skills check` shows it.
 */

import { lstatSyncOrNull } from "../os/fs.ts";

export type OverlayEngine = "overlay" | "fuse-overlayfs";

type EngineChoice =
  | { engine: OverlayEngine; fuse?: string }
  | { engine: undefined; reason: string };

/** fuse-overlayfs from the system's own folders (never a look-alike from PATH). */
function fuseOverlayfsPath(): string | undefined {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin"]) {
    const path = `${dir}/fuse-overlayfs`;
    if (lstatSyncOrNull(path)?.isFile) return path;
  }
  return undefined;
}

/**
 * Whether the kernel has overlayfs: /proc/filesystems when it may be read (Deno lets only a
 * fully privileged process read /proc: otherwise every Linux this runs on since 3.18 is
 * taken to have it, and a refusal is init.py's to say).
 */
function kernelHasOverlay(): boolean {
  try {
    return /\toverlay$/m.test(Deno.readTextFileSync("/proc/filesystems"));
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  }
}

/**
 * The engine for a sandbox run as root (`root`) or not. The answer is made of what is
 * installed; a mount that still fails inside (a filesystem the kernel refuses as a layer,
 * a /dev/fuse this user may not open) is said by the init helper, the run's workspace is
 * then read-only, and its receipt says so (runtime/workspace/finish.ts).
 */
export function overlayEngine(root: boolean): EngineChoice {
  if (Deno.build.os !== "linux") return { engine: undefined, reason: "not Linux" };
  if (root) {
    return kernelHasOverlay()
      ? { engine: "overlay" }
      : { engine: undefined, reason: "the kernel has no overlay filesystem" };
  }
  const fuse = fuseOverlayfsPath();
  if (fuse === undefined) {
    return {
      engine: undefined,
      reason: "fuse-overlayfs is not installed (apt-get install fuse-overlayfs)",
    };
  }
  // Whether this user may open /dev/fuse is the mount's to find out (Deno opens no device
  // without every permission): init.py then says so, and the run's workspace is read-only.
  return { engine: "fuse-overlayfs", fuse };
}
