/**
 * The first command inside the sandbox, which applies the limits (and, under a root CLI,
 * becomes the unprivileged uid) before the launcher runs. Two forms, the same effect:
 *
 *   util-linux  `[setpriv --reuid U --regid U --clear-groups --inh-caps=-all --]
 *               prlimit --nproc=N:N --as=M:M --cpu=C:C --fsize=F:F --core=0:0 -- launcher …`
 *               (two tiny execs, ~1 ms: the common case on Linux distributions);
 *   Python      `python3 -I -S -B -c <init.py> <config> launcher …` (~10 ms more: a Python
 *               start), used when the skill may use the network — init.py then also
 *               relays the sandbox's loopback port to the CLI's proxy — when a root CLI's
 *               workspace must be mounted idmapped for the uid, or when prlimit (or, as
 *               root, setpriv) is missing.
 */

// @ts-types="../../generated/sandbox_init_py.d.ts"
import { SANDBOX_INIT_SOURCE } from "../../generated/sandbox_init_py.ts";

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
  /** The Python that runs init.py (needed only when the util-linux form cannot be used). */
  python?: string | undefined;
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
   * folders, each with its pinned `.git` folders): needs init.py and CAP_SYS_ADMIN.
   */
  idmap?: readonly { path: string; pins: readonly string[] }[] | undefined;
  /** Relay 127.0.0.1:port inside to the proxy's socket. */
  bridge?: { port: number; socket: string } | undefined;
  /** The launcher (absolute) and its arguments. */
  command: readonly string[];
}

function rlimit(value: number): string {
  const text = value < 0 ? "unlimited" : String(Math.floor(value));
  return `${text}:${text}`;
}

/** The argv bubblewrap runs after `--`. */
export function initCommand(request: InitRequest, tools: InitTools): string[] {
  const { limits, uid, bridge, command, cwd, idmap } = request;
  const utilLinux = bridge === undefined && !idmap?.length && cwd === undefined &&
    tools.prlimit !== undefined && (uid === undefined || tools.setpriv !== undefined);
  if (utilLinux) {
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
