/**
 * The CLI run as an ordinary user (uid 65534) from a root test process: in a mount namespace
 * of its own (util-linux `unshare -m`), where root's Deno cache is bound where that uid may
 * read it, and — for the copy-on-write workspace — `/dev/fuse` is the world-usable device a
 * Debian system's udev makes it (mode 0666: `KERNEL=="fuse", MODE="0666"`), which a container
 * without udev leaves at 0600. Without `fuse` the machine's own /dev/fuse is left as it is.
 */

import { join } from "node:path";
import { cliEntry, type CliResult, entryFlags } from "./cli.ts";

export const USER_UID = 65534;

export interface UserLab extends AsyncDisposable {
  root: string;
  /** The user's home (owned by the uid); `$SKILLS_HOME` is `home/skills`. */
  home: string;
  skillsHome: string;
  /** A folder the uid owns to run in. */
  cwd: string;
  /** `skills <args>` as the uid, in `cwd` unless told. */
  run(
    args: string[],
    options?: { fuse?: boolean; cwd?: string; env?: Record<string, string> },
  ): Promise<CliResult>;
  /** Gives everything under `path` to the uid (after a root test wrote it). */
  give(path: string): Promise<void>;
}

function denoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache"), "deno");
}

export async function userLab(): Promise<UserLab> {
  const root = await Deno.makeTempDir({ prefix: "skills-user-lab-" });
  await Deno.chmod(root, 0o755);
  const home = join(root, "home");
  const cwd = join(root, "cwd");
  const cache = join(root, "deno");
  for (const dir of [home, cwd, cache]) await Deno.mkdir(dir);
  const give = async (path: string) => {
    const out = await new Deno.Command("chown", { args: ["-R", `${USER_UID}:${USER_UID}`, path] })
      .output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  };
  await give(home);
  await give(cwd);
  // A world-usable FUSE device node, bound over /dev/fuse in the CLI's mount namespace only.
  const fuseNode = join(root, "fuse");
  await new Deno.Command("mknod", { args: ["-m", "0666", fuseNode, "c", "10", "229"] }).output();
  const closedNode = join(root, "fuse-closed");
  await new Deno.Command("mknod", { args: ["-m", "0600", closedNode, "c", "10", "229"] }).output();
  return {
    root,
    home,
    skillsHome: join(home, "skills"),
    cwd,
    give,
    async run(args, options = {}) {
      const env = {
        PATH: "/usr/bin:/bin",
        HOME: home,
        DENO_DIR: cache,
        SKILLS_HOME: join(home, "skills"),
        NO_COLOR: "1",
        ...options.env,
      };
      // fuse: true, a usable /dev/fuse; false, one this uid may not open; unset, the machine's.
      const binds = [
        `mount --bind "$1" "$2"`,
        ...options.fuse === undefined ? [] : [`mount --bind "$3" /dev/fuse`],
      ];
      const program = [
        Deno.execPath(),
        "run",
        ...entryFlags(),
        cliEntry(),
        ...args,
      ];
      const script = `${
        binds.join(" && ")
      } && cd "$4" && shift 4 && exec setpriv --reuid=${USER_UID} --regid=${USER_UID} --clear-groups -- env -i "$@"`;
      const out = await new Deno.Command("unshare", {
        args: [
          "-m",
          "sh",
          "-c",
          script,
          "sh",
          denoDir(),
          cache,
          options.fuse === false ? closedNode : fuseNode,
          options.cwd ?? cwd,
          ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
          ...program,
        ],
        clearEnv: true,
        env: { PATH: "/usr/bin:/bin" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}
