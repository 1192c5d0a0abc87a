/**
 * The bubblewrap command line, built by pure functions so tests can assert it.
 *
 * Namespaces: new PID (the CLI's /proc is out of reach), IPC, UTS, network (loopback
 * only; declared hosts go through the CLI's proxy) and cgroup; the sandbox dies with the
 * CLI (`--die-with-parent`) and runs in a session of its own (`--new-session`: no
 * TIOCSTI into the user's terminal). Privileges: every capability is dropped. As a normal
 * user bubblewrap works in a user namespace of its own (nested ones disabled); as root it
 * keeps only CAP_SETUID/CAP_SETGID, which the init helper uses to become an unprivileged
 * uid before anything of the skill runs (see launch.ts: root is exempt from the process
 * limit, and root-owned secrets stay unreadable).
 *
 * Filesystem, in mount order (a later mount covers an earlier one):
 *   /                       read-only
 *   /dev, /proc             minimal devices; the sandbox's own processes only
 *   /tmp, /var/tmp          private tmpfs mounts
 *   hidden (first)          empty read-only tmpfs over the user's home, /run, ...
 *   the workspace           the caller's directory: writable (or read-only when asked),
 *                           its `.git` folders pinned, guarded paths read-only, then its
 *                           read masks (readMaskArgs): secret files masked, unlistable
 *                           folders hidden, `.git/config` shown without credentials
 *   hidden (second)         empty read-only tmpfs over $SKILLS_HOME and other skills
 *   read-only               the interpreter's install folders, the skill, helper files;
 *                           a root CLI's account files naming its uid (accounts.ts)
 *   symlinks                an interpreter's links that lived in a hidden folder
 *   writable                the run's work folder
 */

/** What the installed bubblewrap supports, and whether we run as root. */
export interface BwrapFeatures {
  /** `[major, minor, patch]` from `bwrap --version`. */
  version: readonly [number, number, number];
  root: boolean;
  /** A root CLI's init mounts the workspace idmapped (idmap.pl, init.py): it keeps CAP_SYS_ADMIN. */
  idmap?: boolean;
  /**
   * The workspace's overlay engine, mounted by init.py: as root the kernel's overlay, which
   * keeps (until init drops them) what the overlay's creator needs to copy files up and write
   * whiteouts — CAP_SYS_ADMIN, CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_CHOWN, CAP_MKNOD; as a user,
   * fuse-overlayfs, with /dev/fuse and CAP_SYS_ADMIN inside bubblewrap's user namespace.
   */
  overlay?: "overlay" | "fuse-overlayfs" | undefined;
}

/** Where the run folder of an overlay workspace is bound inside (its path never in options). */
export const LAYER_MOUNT = "/tmp/.skills-layer";

/** What the kernel overlay's creator must hold while init mounts it (dropped before the script). */
const OVERLAY_CAPS = ["CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_CHOWN", "CAP_MKNOD"];

/** Where things go inside the sandbox; every path is absolute and already resolved. */
export interface MountPlan {
  /** Hidden before the caller's directory is bound (home, /run, the runtime dir). */
  hideFirst: string[];
  /** Bound at its own path (the workspace), or undefined when not exposed. */
  callerDir?: string | undefined;
  /** Whether the workspace is bound writable. */
  callerWritable?: boolean;
  /** Inside the workspace: bound onto themselves writable, so they cannot be swapped. */
  pins?: string[];
  /** Inside the workspace: bound onto themselves read-only (guarded paths). */
  guards?: string[];
  /** Files masked with an empty read-only file (the workspace's secret files). */
  mask: string[];
  /** Inside the workspace: folders hidden whole (secret folders, folders the search could not list). */
  maskedFolders?: string[];
  /** Inside the workspace: files shown as another (a `.git/config` without credentials). */
  shownAs?: ShownAs[];
  /** Whether the host has /var/tmp (replaced by a private tmpfs like /tmp). */
  varTmp?: boolean;
  /** Hidden after the caller's directory ($SKILLS_HOME, other skills). */
  hideSecond: string[];
  /** Bound read-only at their own paths (toolchains, the skill, helper files). */
  readOnly: string[];
  /** `[target, path]`: symlinks made inside (a hidden toolchain's links, see toolchain.ts). */
  links?: [string, string][];
  /** Bound read-write at their own paths (the work folder, the skill's cache, `--write`). */
  writable: string[];
  /**
   * Inside `--write` folders: bound onto themselves writable, so they cannot be swapped (a
   * repository's `.git` for one with the script's hooks), as the workspace's {@link pins}.
   */
  writablePins?: string[];
  /** Inside `--write` folders: read-only guarded paths and masked secret files. */
  writableGuards?: string[];
  writableMasks?: string[];
  writableMaskedFolders?: string[];
  writableShownAs?: ShownAs[];
  /** Bound read-only over /etc/passwd and /etc/group: a root CLI's uid named (accounts.ts). */
  accounts?: { passwd: string; group: string } | undefined;
  /** The working directory inside the sandbox. */
  chdir: string;
  /** An overlay workspace's run folder, bound at {@link LAYER_MOUNT} for init.py. */
  layer?: string | undefined;
  /** fuse-overlayfs's device, shown inside. */
  fuse?: boolean | undefined;
}

/** A file shown at `target` with the contents of `source` (read-only). */
interface ShownAs {
  source: string;
  target: string;
}

/**
 * What a script may not read in a folder it is shown (runtime/masks finds them): secret
 * files, folders hidden whole, files shown as a sanitized copy. Every path is absolute.
 */
export interface ReadMasks {
  files: readonly string[];
  folders?: readonly string[] | undefined;
  shownAs?: readonly ShownAs[] | undefined;
}

/**
 * The bubblewrap arguments that apply `masks`, to come after every mount of the folder
 * they are in (a later mount over the folder — an overlay, an idmapped clone that is not
 * recursive — must apply them again): each secret file covered by `maskSource` (a device
 * the sandbox may not open, so a read fails), each hidden folder by an empty read-only
 * tmpfs, each sanitized copy bound read-only over its original.
 */
export function readMaskArgs(
  features: BwrapFeatures,
  masks: ReadMasks,
  maskSource: string,
): string[] {
  const args: string[] = [];
  for (const folder of masks.folders ?? []) {
    args.push(...tmpfs(features, folder, "0755", HIDDEN_BYTES), "--remount-ro", folder);
  }
  for (const file of masks.files) args.push("--ro-bind", maskSource, file);
  for (const { source, target } of masks.shownAs ?? []) args.push("--ro-bind", source, target);
  return args;
}

/**
 * The read masks of a plan's workspace (the caller's directory), as {@link readMaskArgs}
 * applies them: what an engine that mounts over the workspace after bubblewrap's mounts (an
 * overlay in the init helper) must apply again on top of it.
 */
export function workspaceReadMasks(plan: MountPlan): ReadMasks {
  return { files: plan.mask, folders: plan.maskedFolders, shownAs: plan.shownAs };
}

/** Size caps of the tmpfs mounts (RAM-backed: without a cap a script could fill memory). */
const TMP_BYTES = 256 * 1024 * 1024;
const HIDDEN_BYTES = 1024 * 1024;

export function parseBwrapVersion(text: string): BwrapFeatures["version"] | undefined {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

function atLeast(version: BwrapFeatures["version"], major: number, minor: number): boolean {
  return version[0] > major || (version[0] === major && version[1] >= minor);
}

/** Namespaces, lifetime and privileges: shared by the probe and every run. */
export function namespaceArgs(features: BwrapFeatures): string[] {
  const args = [
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
    "--hostname",
    "skills-sandbox",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
  ];
  if (features.root) {
    // No user namespace: the init helper must be able to switch to a real unprivileged uid.
    args.push("--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID");
    // Dropped with the others when init becomes the uid, before anything of the skill runs.
    const caps = features.overlay === "overlay"
      ? OVERLAY_CAPS
      : features.idmap
      ? ["CAP_SYS_ADMIN"]
      : [];
    for (const cap of caps) args.push("--cap-add", cap);
  } else {
    args.push("--unshare-user");
    if (atLeast(features.version, 0, 8)) args.push("--disable-userns");
    // In the user namespace only: fuse-overlayfs's mount; init drops it before the script.
    if (features.overlay === "fuse-overlayfs") args.push("--cap-add", "CAP_SYS_ADMIN");
  }
  return args;
}

function tmpfs(features: BwrapFeatures, path: string, mode: string, bytes: number): string[] {
  // --perms and --size before --tmpfs arrived in 0.8 (Debian 12); older ones get a plain tmpfs.
  return atLeast(features.version, 0, 8)
    ? ["--perms", mode, "--size", String(bytes), "--tmpfs", path]
    : ["--tmpfs", path];
}

/** The mounts, in the order that makes later ones win (see the header). */
function mountArgs(features: BwrapFeatures, plan: MountPlan, maskSource: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (plan.fuse) args.push("--dev-bind", "/dev/fuse", "/dev/fuse");
  const roots: string[] = [];
  const made = new Set<string>();
  // bubblewrap makes missing mount points 0700: an unprivileged uid (a root CLI's
  // sandbox) could not walk through them, so the folders on the way are made 0755 first.
  const parents = (path: string) => {
    if (!atLeast(features.version, 0, 8)) return;
    const parts = path.split("/").filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const parent = `/${parts.slice(0, i).join("/")}`;
      if (made.has(parent) || !roots.some((root) => parent.startsWith(`${root}/`))) continue;
      made.add(parent);
      args.push("--perms", "0755", "--dir", parent);
    }
  };
  const hide = (path: string, mode: string, bytes: number) => {
    parents(path);
    args.push(...tmpfs(features, path, mode, bytes));
    roots.push(path);
  };
  const bind = (flag: string, source: string, target: string) => {
    parents(target);
    args.push(flag, source, target);
  };
  hide("/tmp", "1777", TMP_BYTES);
  if (plan.layer !== undefined) args.push("--bind", plan.layer, LAYER_MOUNT);
  if (plan.varTmp) hide("/var/tmp", "1777", TMP_BYTES);
  for (const path of plan.hideFirst) hide(path, "0755", HIDDEN_BYTES);
  if (plan.callerDir !== undefined) {
    bind(plan.callerWritable ? "--bind" : "--ro-bind", plan.callerDir, plan.callerDir);
    if (plan.callerWritable) {
      // A mount point can be neither renamed nor removed: a pinned `.git` cannot be swapped
      // for a planted one, and guarded files cannot be replaced.
      for (const path of plan.pins ?? []) bind("--bind", path, path);
      for (const path of plan.guards ?? []) bind("--ro-bind", path, path);
    }
    args.push(...readMaskArgs(features, workspaceReadMasks(plan), maskSource));
  }
  for (const path of plan.hideSecond) hide(path, "0755", HIDDEN_BYTES);
  for (const path of plan.readOnly) bind("--ro-bind", path, path);
  if (plan.accounts !== undefined) {
    args.push("--ro-bind", plan.accounts.passwd, "/etc/passwd");
    args.push("--ro-bind", plan.accounts.group, "/etc/group");
  }
  for (const [target, path] of plan.links ?? []) {
    parents(path);
    args.push("--symlink", target, path);
  }
  for (const path of plan.writable) bind("--bind", path, path);
  for (const path of plan.writablePins ?? []) bind("--bind", path, path);
  for (const path of plan.writableGuards ?? []) bind("--ro-bind", path, path);
  const grantMasks = {
    files: plan.writableMasks ?? [],
    folders: plan.writableMaskedFolders,
    shownAs: plan.writableShownAs,
  };
  args.push(...readMaskArgs(features, grantMasks, maskSource));
  // The hidden tmpfs mounts were writable only so that mount points could be made in them.
  for (const path of [...plan.hideFirst, ...plan.hideSecond]) args.push("--remount-ro", path);
  args.push("--chdir", plan.chdir);
  return args;
}

/** The whole argv after `bwrap`: namespaces, mounts, then `--` and the command. */
export function bwrapArgs(
  features: BwrapFeatures,
  plan: MountPlan,
  command: readonly string[],
  maskSource = "/dev/null",
): string[] {
  return [...namespaceArgs(features), ...mountArgs(features, plan, maskSource), "--", ...command];
}
