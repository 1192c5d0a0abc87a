/**
 * The first command inside the sandbox, which applies the limits (and, under a root CLI,
 * becomes the unprivileged uid) before the launcher runs. Three forms, the same effect:
 *
 *   util-linux  `[setpriv --reuid U --regid U --clear-groups --inh-caps=-all --]
 *               prlimit --nproc=N:N --as=M:M --cpu=C:C --fsize=F:F --core=0:0 -- launcher …`
 *               (two tiny execs, ~1 ms: the common case on Linux distributions);
 *   Perl        `perl -f -e <idmap.pl> <syscalls> <folder>… -- U N M C F <cwd> launcher …`:
 *               a root CLI's writable workspace mounted idmapped for the uid by a Perl
 *               start, which then sets the same limits, becomes the uid as setpriv would,
 *               enters the workspace and executes the launcher itself, with system calls
 *               (no setpriv, env or prlimit execs: ~2.3 ms less from bubblewrap's start to
 *               the launcher, median of 41; the Python form does the same work ~4 ms
 *               slower; Perl is part of every Debian and Ubuntu system);
 *               used on x86_64 and aarch64 (whose system call numbers it is given) when no
 *               network is granted and nothing in the environment is read by Perl itself
 *               (a PERL* variable);
 *   Python      `python3 -I -S -B -c <init.py> <config> launcher …` (~9 ms: a Python
 *               start), used when the skill may use the network — init.py then also
 *               relays the sandbox's loopback port to the CLI's proxy — or when the forms
 *               above cannot be used (a tool missing, another architecture).
 */

// @ts-types="../../generated/sandbox_init_py.d.ts"
import { SANDBOX_INIT_SOURCE } from "../../generated/sandbox_init_py.ts";
// @ts-types="../../generated/sandbox_idmap_pl.d.ts"
import { SANDBOX_IDMAP_SOURCE } from "../../generated/sandbox_idmap_pl.ts";

/** Resource limits inside the sandbox; a negative value means unlimited. */
export interface SandboxLimits {
  processes: number;
  memoryBytes: number;
  cpuSeconds: number;
  fileSizeBytes: number;
}

export interface InitTools {
  /** Absolute paths, when present. */
  prlimit?: string | undefined;
  setpriv?: string | undefined;
  /** The Python that runs init.py (needed only when the forms above cannot be used). */
  python?: string | undefined;
  /**
   * The Perl that runs idmap.pl, with the numbers of the system calls it makes on this
   * architecture (comma-separated, in idmap.pl's order): both, or the Perl form is not used.
   */
  perl?: { path: string; syscalls: string } | undefined;
}

/**
 * unshare, setgroups, setresgid, setresuid, capset, prctl, prlimit64, mount and umount2, the order
 * idmap.pl reads them in, where the Perl form knows them (arch/x86/entry/syscalls/
 * syscall_64.tbl; asm-generic/unistd.h for aarch64). open_tree, move_mount and
 * mount_setattr have one number on every architecture.
 */
const PERL_SYSCALLS: Partial<Record<string, readonly number[]>> = {
  x86_64: [272, 116, 119, 117, 126, 157, 302, 165, 166],
  aarch64: [97, 159, 149, 147, 91, 167, 261, 40, 39],
};

/**
 * The Perl form's interpreter, when it may be used: an absolute `perl`, an architecture
 * whose system call numbers are known, and no PERL* variable in the environment the sandbox
 * starts with (Perl reads PERL5OPT, PERL5LIB and the like before any of idmap.pl runs, and
 * it runs with the capabilities the uid is about to lose).
 */
export function perlInit(
  perl: string | undefined,
  arch: string,
  environment: Readonly<Record<string, string>>,
): InitTools["perl"] {
  const syscalls = PERL_SYSCALLS[arch];
  if (perl === undefined || syscalls === undefined) return undefined;
  if (Object.keys(environment).some((name) => name.toUpperCase().startsWith("PERL"))) {
    return undefined;
  }
  return { path: perl, syscalls: syscalls.join(",") };
}

/**
 * What the init command needs in the sandbox's environment: for the Perl form, that Perl's
 * own start says nothing of a locale this system lacks (idmap.pl drops it before the exec).
 */
export function initEnv(request: InitRequest, tools: InitTools): Record<string, string> {
  return initForm(request, tools) === "perl" ? { PERL_BADLANG: "0" } : {};
}

interface InitRequest {
  limits: SandboxLimits;
  /** The unprivileged uid (and gid) a root CLI's sandbox switches to. */
  uid?: number | undefined;
  /**
   * Where to start, entered after becoming the uid: a root CLI's idmapped workspace is the
   * uid's alone, so bubblewrap (still root) cannot enter it.
   */
  cwd?: string | undefined;
  /**
   * Folders to mount idmapped for `uid` first (a root CLI's writable workspace and `--write`
   * folders, each with its pinned `.git` folders): needs idmap.pl or init.py, and
   * CAP_SYS_ADMIN.
   */
  idmap?: readonly { path: string; pins: readonly string[] }[] | undefined;
  /** Relay 127.0.0.1:port inside to the proxy's socket. */
  bridge?: { port: number; socket: string } | undefined;
  /** The workspace made an overlay, then its secret files masked (init.py). */
  overlay?: InitOverlay | undefined;
  /**
   * A service's port relay (init.py): each loopback port it listens on served as
   * `<dir>/<port>.sock`, at most `limit` of them.
   */
  relay?: { dir: string; limit: number } | undefined;
  /** A service's `--write` folders inside the overlaid workspace, kept live over it (init.py). */
  live?: readonly string[] | undefined;
  /** The launcher (absolute) and its arguments. */
  command: readonly string[];
}

/**
 * The copy-on-write workspace init.py mounts before anything else (see init.py's
 * overlay_workspace): the folder, where the run folder is bound inside, the engine, and the
 * secret files to mask in the merged view once it is mounted.
 */
export interface InitOverlay {
  engine: "overlay" | "fuse-overlayfs";
  /** The workspace (the lower layer, and where the merged view is mounted). */
  dir: string;
  /** Where the run folder (upper/, work/) is bound inside the sandbox. */
  layer: string;
  /** fuse-overlayfs's path (that engine only). */
  fuse?: string | undefined;
  masks: readonly string[];
  /**
   * Folders inside the workspace bubblewrap hid (other skills, secret folders): hidden again
   * over the overlay.
   */
  hide: readonly string[];
  /** Files bubblewrap shows sanitized (git configs): shown sanitized again over the overlay. */
  shown: readonly string[];
}

/** A limit as prlimit and idmap.pl take it: a whole number, or `unlimited`. */
function rlimitValue(value: number): string {
  return value < 0 ? "unlimited" : String(Math.floor(value));
}

/** `soft:hard` for prlimit, both the same: nothing inside can raise the soft one again. */
function rlimit(value: number): string {
  const text = rlimitValue(value);
  return `${text}:${text}`;
}

/** Which form {@link initCommand} takes for `request` with `tools`. */
function initForm(request: InitRequest, tools: InitTools): "util-linux" | "perl" | "python" {
  const { uid, bridge, cwd, idmap } = request;
  if (bridge !== undefined || request.relay !== undefined) return "python";
  // fuse-overlayfs (an ordinary user) is started by init.py alone.
  if (request.overlay?.engine === "fuse-overlayfs") return "python";
  if (!idmap?.length && cwd === undefined && request.overlay === undefined) {
    const missing = tools.prlimit === undefined ||
      (uid !== undefined && tools.setpriv === undefined);
    return missing ? "python" : "util-linux";
  }
  return uid !== undefined && tools.perl !== undefined ? "perl" : "python";
}

/** The argv bubblewrap runs after `--`. */
export function initCommand(request: InitRequest, tools: InitTools): string[] {
  const form = initForm(request, tools);
  if (form === "util-linux") return utilLinuxCommand(request, tools);
  if (form === "perl") return perlCommand(request, tools);
  return pythonCommand(request, tools);
}

/** setpriv (as root), then prlimit, then the launcher. */
function utilLinuxCommand(request: InitRequest, tools: InitTools): string[] {
  const { limits, uid, command } = request;
  const drop = uid === undefined ? [] : [
    tools.setpriv!,
    `--reuid=${uid}`,
    `--regid=${uid}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--",
  ];
  return [
    ...drop,
    tools.prlimit!,
    `--nproc=${rlimit(limits.processes)}`,
    `--as=${rlimit(limits.memoryBytes)}`,
    `--cpu=${rlimit(limits.cpuSeconds)}`,
    `--fsize=${rlimit(limits.fileSizeBytes)}`,
    "--core=0:0",
    "--",
    ...command,
  ];
}

/**
 * idmap.pl mounts the folders (each followed by its pins), sets the limits prlimit would,
 * becomes the uid as setpriv would, enters `cwd` (empty: stays) and executes the launcher.
 */
function perlCommand(request: InitRequest, tools: InitTools): string[] {
  const { limits, uid, cwd, command } = request;
  const perl = tools.perl!;
  const folders = (request.idmap ?? []).flatMap(({ path, pins }) => [path, ...pins]);
  const overlay = request.overlay === undefined ? [] : [
    `overlay:${request.overlay.dir}`,
    ...request.overlay.hide.map((path) => `hide:${path}`),
    ...request.overlay.masks.map((path) => `mask:${path}`),
    ...request.overlay.shown.map((path) => `shown:${path}`),
  ];
  return [
    perl.path,
    "-f",
    "-e",
    SANDBOX_IDMAP_SOURCE,
    perl.syscalls,
    ...overlay,
    ...folders,
    "--",
    String(uid),
    rlimitValue(limits.processes),
    rlimitValue(limits.memoryBytes),
    rlimitValue(limits.cpuSeconds),
    rlimitValue(limits.fileSizeBytes),
    cwd ?? "",
    ...command,
  ];
}

function pythonCommand(request: InitRequest, tools: InitTools): string[] {
  const { limits, uid, bridge, command, cwd, idmap } = request;
  const config = {
    limits: {
      processes: limits.processes,
      memory: limits.memoryBytes,
      cpu: limits.cpuSeconds,
      file_size: limits.fileSizeBytes,
    },
    uid: uid ?? null,
    gid: uid ?? null,
    bridge: bridge ?? null,
    cwd: cwd ?? null,
    idmap: idmap?.length ? idmap : null,
    overlay: request.overlay ?? null,
    relay: request.relay ?? null,
    live: request.live?.length ? request.live : null,
  };
  if (tools.python === undefined) throw new Error("the sandbox's init helper needs python3");
  return [
    tools.python,
    "-I",
    "-S",
    "-B",
    "-c",
    SANDBOX_INIT_SOURCE,
    JSON.stringify(config),
    ...command,
  ];
}
