/**
 * What a sandbox hides, shows and lets write (see bwrap.ts for the order of the mounts):
 * the homes, /run and the runtime folder hidden first; the caller's directory shown
 * read-only with its `.env` masked, unless that would show a home or a hidden folder;
 * $SKILLS_HOME and other skills hidden after it; the interpreter's folders
 * (toolchain.ts), the skill and helper files read-only; the work folder writable. Under a
 * root CLI the sandbox runs as another uid, so folders on the way it may not enter are
 * replaced by empty ones, and the caller's directory is shown only if others may read it.
 */

import { join } from "../os/paths.ts";
import { isWithin, lstatSyncOrNull } from "../os/fs.ts";
import type { WorkspaceGuards } from "../../core/policy/workspace_rules.ts";
import type { MountPlan as BwrapMounts, ReadMasks } from "./bwrap.ts";
import { currentUid } from "./mode.ts";
import { toolchainMounts } from "./toolchain.ts";
import { findSecretFiles } from "../masks/secret_files.ts";
import { listingStore } from "../masks/listing_cache.ts";
import { sanitizedGitConfigs } from "../masks/clean_git_config.ts";

/** A copy-on-write workspace: its engine and the run folder holding its upper layer. */
interface WorkspaceOverlay {
  engine: "overlay" | "fuse-overlayfs";
  /** The run folder (runtime/workspace/layer.ts): `upper/` and `work/` inside. */
  layer: string;
  /** fuse-overlayfs's path, for that engine. */
  fuse?: string | undefined;
}

export interface WorkspaceMounts {
  writable: boolean;
  guards: WorkspaceGuards;
  overlay?: WorkspaceOverlay | undefined;
}

/**
 * Where the workspace's secret masks are made — the one place that takes the list of secret
 * files (what finds them is the workspace walk's, and may change without this): bubblewrap
 * binds them over a plain workspace; over an overlay they must be made after the overlay is
 * mounted (a mount below a layer does not show through it), so init.py makes them in the
 * merged view. fuse-overlayfs reads the lower layer through the filesystem like any process,
 * so there bubblewrap masks the lower layer too: the engine itself never reads a secret.
 */
function placeSecretMasks(
  masks: readonly string[],
  overlay: WorkspaceOverlay | undefined,
): { bwrap: string[]; init: string[] } {
  if (overlay === undefined) return { bwrap: [...masks], init: [] };
  return { bwrap: overlay.engine === "fuse-overlayfs" ? [...masks] : [], init: [...masks] };
}

/** The bubblewrap mounts, and the masks init.py makes over an overlay workspace. */
interface MountPlan extends BwrapMounts {
  overlayMasks: string[];
  /** Secret folders hidden again over the kernel's overlay (empty for other engines). */
  overlayHidden: string[];
  /**
   * Files bubblewrap shows sanitized (git configs) whose sanitized view init keeps aside
   * before the kernel's overlay is mounted and binds again over the merged view.
   */
  overlayShown: string[];
}

/** What {@link mountPlan} needs to know of a launch. */
interface MountRequest {
  /** The CLI's environment: HOME, XDG_RUNTIME_DIR. */
  callerEnv: Readonly<Record<string, string>>;
  skillDir: string;
  skillsHome: string;
  callerDir?: string | undefined;
  /**
   * The caller's directory as a workspace: writable or not, what to guard inside it, and
   * when it is copy-on-write, its overlay (it is then bound read-only: the lower layer).
   */
  workspace?: WorkspaceMounts | undefined;
  /** `--write` folders: writable, with their own guards. */
  grants?: readonly { dir: string; guards: WorkspaceGuards }[] | undefined;
  otherSkills?: readonly string[] | undefined;
  readOnly?: readonly string[] | undefined;
  cwd: string;
  /** A root CLI (the sandbox then runs as an unprivileged uid). */
  root: boolean;
  /**
   * This process's uid when the caller knows it (the owner of the work folder it just made):
   * spares {@link currentUid} the file it makes to learn it.
   */
  uid?: number | undefined;
}

export function realDir(path: string | undefined): string | undefined {
  if (path === undefined || path === "") return undefined;
  try {
    const real = Deno.realPathSync(path);
    return Deno.statSync(real).isDirectory ? real : undefined;
  } catch {
    return undefined;
  }
}

function isAncestorOrSame(path: string, of: string): boolean {
  return isWithin(path, of);
}

let accountHome: string | undefined | null = null;

/**
 * The home /etc/passwd gives this process's uid: hidden too, so that a HOME pointed
 * elsewhere does not expose the real one (for root, /root).
 */
function passwdHome(knownUid: number | undefined): string | undefined {
  if (accountHome !== null) return accountHome;
  accountHome = undefined;
  try {
    const uid = String(knownUid ?? currentUid());
    for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
      const fields = line.split(":");
      if (fields[2] === uid && fields[5]?.startsWith("/")) {
        accountHome = fields[5];
        break;
      }
    }
  } catch { /* no passwd file: HOME alone */ }
  return accountHome;
}

/**
 * What to mask in a folder the sandbox shows (runtime/masks): secret files at any depth, by
 * their real paths so a symlinked one is masked where it points, folders hidden whole, and
 * git configs (of the repository it is in, and of those inside) shown without credentials.
 * A target out of sight anyway (hidden, or in the host's /tmp) needs nothing; folders
 * hidden after this one (`skip`: other skills, $SKILLS_HOME) are not searched.
 */
function shownFolderMasks(
  dir: string,
  hidden: readonly string[],
  skip: readonly string[],
  skillsHome: string,
): Required<ReadMasks> {
  const found = findSecretFiles(dir, {
    skip: skip.filter((p) => isWithin(dir, p)),
    store: listingStore(skillsHome, "secrets"),
  });
  const visible = (path: string) =>
    isWithin(dir, path) || !hidden.some((root) => isWithin(root, path));
  const store = join(skillsHome, ".cache", "git-config");
  const configs = sanitizedGitConfigs(dir, found.gitEntries, store, found.files);
  return {
    files: [...new Set(found.files.filter(visible))],
    folders: [...new Set(found.folders.filter(visible))],
    shownAs: configs.filter((copy) => visible(copy.target)),
  };
}

/** Whether others may list and enter `dir` (a root CLI's sandbox runs as another uid). */
/**
 * `dirs` but the plain folders directly in `home`: hiding the home hides them whatever they
 * hold, so one listing of the home replaces resolving each (a registry of a thousand skills
 * cost ~10 ms of realpath and stat calls). A symlink there, or any other folder, stays.
 */
function beyondHome(dirs: readonly string[], home: string): string[] {
  const plain = new Set<string>();
  try {
    for (const entry of Deno.readDirSync(home)) {
      if (entry.isDirectory) plain.add(join(home, entry.name));
    }
  } catch { /* no listing: every folder is resolved */ }
  return dirs.filter((dir) => !plain.has(dir));
}

function readableByOthers(dir: string): boolean {
  try {
    return ((Deno.statSync(dir).mode ?? 0o755) & 0o005) === 0o005;
  } catch {
    return false;
  }
}

/**
 * The shallowest folder above `path` that others may not enter, skipping what lies inside
 * `covered` (tmpfs mounts the sandbox makes itself, whose folders it makes 0755).
 */
function closedAncestor(path: string, covered: readonly string[]): string | undefined {
  const parts = path.split("/").filter(Boolean);
  for (let i = 1; i < parts.length; i++) {
    const ancestor = `/${parts.slice(0, i).join("/")}`;
    if (covered.some((root) => isWithin(root, ancestor))) return undefined;
    try {
      if (((Deno.statSync(ancestor).mode ?? 0o755) & 0o001) === 0) return ancestor;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * A script starts in the workspace (`requested`: the caller's directory, by its real path).
 * One that is out of sight but still there (the home or `/`, shown empty or read-only) is
 * still the place, so a write there fails with a reason; one that is not there at all
 * (inside $SKILLS_HOME, or closed to a root CLI's uid) gives way to the work folder.
 */
function startIn(
  request: MountRequest,
  requested: string | undefined,
  shown: string | undefined,
  hideFirst: readonly string[],
  workDir: string,
): string {
  if (shown !== undefined || requested === undefined || !isWithin(requested, request.cwd)) {
    return request.cwd;
  }
  return requested === "/" || hideFirst.some((root) => isAncestorOrSame(requested, root))
    ? request.cwd
    : workDir;
}

/**
 * The mounts for `request`; `workDir` is the run's fresh folder.
 * long because: the mount order is the security argument: hidden first, shown again, toolchain, guards.
 */
export function mountPlan(
  request: MountRequest,
  workDir: string,
  executables: string[],
): MountPlan {
  const env = request.callerEnv;
  const runtimeDir = realDir(env.XDG_RUNTIME_DIR);
  const home = realDir(env.HOME);
  const account = passwdHome(request.uid);
  const homes = [home, account === env.HOME ? home : realDir(account)];
  const hideFirst = [...new Set([...homes, realDir("/run"), realDir("/var/run"), runtimeDir])]
    .filter((p): p is string => p !== undefined && p !== "/" && !isAncestorOrSame(p, "/tmp"));
  const skillDir = request.skillDir;
  const hides = (p: string | undefined): p is string =>
    p !== undefined && p !== "/" && !isAncestorOrSame(p, "/tmp") && p !== skillDir &&
    !isWithin(skillDir, p);
  const skillsHome = realDir(request.skillsHome);
  const others = request.otherSkills ?? [];
  const hideSecond = [
    ...new Set([
      skillsHome,
      ...(hides(skillsHome) ? beyondHome(others, request.skillsHome) : others).map(realDir),
    ]),
  ].filter(hides);
  const requested = realDir(request.callerDir);
  let callerDir = requested;
  if (
    callerDir !== undefined &&
    (callerDir === "/" || hideFirst.some((root) => isAncestorOrSame(callerDir!, root)) ||
      hideSecond.some((root) => isWithin(root, callerDir!)) ||
      // A root CLI's writable workspace is idmapped for the sandbox's uid (init.py).
      (request.root && !request.workspace?.writable && !readableByOthers(callerDir)))
  ) callerDir = undefined;
  const overlay = callerDir === undefined ? undefined : request.workspace?.overlay;
  // Written directly only without an overlay (policy mode has no sandbox at all).
  const writable = callerDir !== undefined && request.workspace?.writable === true &&
    overlay === undefined;
  // Out of sight already (inside another hidden folder, the fresh /tmp or the home) unless
  // the caller's directory shows it again: no mount of its own.
  const shownAgain = (p: string) => callerDir !== undefined && isWithin(callerDir, p);
  const hideMounts = hideSecond.filter((p) =>
    !hideSecond.some((q) => q !== p && isWithin(q, p)) &&
    (shownAgain(p) || !["/tmp", ...hideFirst].some((root) => isWithin(root, p)))
  );
  // /tmp is a fresh tmpfs inside: executables under it must be bound like hidden ones.
  const hidden = ["/tmp", ...hideFirst, ...hideSecond];
  const toolchain = toolchainMounts(
    executables,
    hidden,
    callerDir === undefined ? [] : [callerDir],
  );
  const readOnly = [...toolchain.binds, skillDir, ...(request.readOnly ?? [])];
  if (request.root) {
    // The unprivileged uid must walk to every bound path: a folder on the way it may not
    // enter (root's 0700 temp and home folders) is replaced by an empty one it may.
    const covered = () => ["/tmp", ...hideFirst];
    const targets = [
      callerDir,
      ...hideMounts,
      ...readOnly,
      ...toolchain.links.map(([, p]) => p),
      workDir,
    ];
    for (const target of targets) {
      if (target === undefined) continue;
      const blocked = closedAncestor(target, covered());
      if (blocked !== undefined && !hideFirst.includes(blocked)) hideFirst.push(blocked);
    }
  }
  const guards = request.workspace?.guards;
  const varTmp = lstatSyncOrNull("/var/tmp");
  const grants = request.grants ?? [];
  // Secret files are searched wherever a folder is shown, read-only or not (runtime/masks).
  const masksOf = (dir: string) => shownFolderMasks(dir, hidden, hideMounts, request.skillsHome);
  const shown = callerDir === undefined ? undefined : masksOf(callerDir);
  const granted = grants.map((grant) => masksOf(grant.dir));
  const masks = placeSecretMasks(
    shown === undefined ? [] : [...new Set([...shown.files, ...guards?.secrets ?? []])],
    overlay,
  );
  // Over the kernel's overlay, a mount below the lower layer does not show through it: init
  // hides the secret folders again and shows the sanitized git configs again in the merged view.
  const again = overlay?.engine === "overlay";
  const plan: MountPlan = {
    hideFirst,
    callerDir,
    callerWritable: writable,
    pins: writable ? guards?.pins ?? [] : [],
    guards: writable ? guards?.readOnly ?? [] : [],
    mask: masks.bwrap,
    overlayMasks: masks.init,
    overlayHidden: again ? [...shown?.folders ?? []] : [],
    overlayShown: again ? (shown?.shownAs ?? []).map(({ target }) => target) : [],
    maskedFolders: [...shown?.folders ?? []],
    shownAs: [...shown?.shownAs ?? []],
    layer: overlay?.layer,
    fuse: overlay?.engine === "fuse-overlayfs",
    varTmp: varTmp?.isDirectory === true && !varTmp.isSymlink,
    hideSecond: hideMounts,
    readOnly,
    links: toolchain.links,
    writable: [workDir, ...grants.map((grant) => grant.dir)],
    writablePins: grants.flatMap((grant) => grant.guards.pins),
    writableGuards: grants.flatMap((grant) => grant.guards.readOnly),
    writableMasks: [...new Set(granted.flatMap((found) => found.files))],
    writableMaskedFolders: granted.flatMap((found) => found.folders),
    writableShownAs: granted.flatMap((found) => found.shownAs),
    chdir: startIn(request, requested, callerDir, hideFirst, workDir),
  };
  return plan;
}
