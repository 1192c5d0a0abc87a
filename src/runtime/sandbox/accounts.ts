/**
 * The account a root CLI's sandbox runs as, in the sandbox's /etc/passwd and /etc/group.
 *
 * A root CLI runs each skill as a uid of its own (launch.ts), which no account file names.
 * Every program that asks who it is then falls through the files to the system's other
 * account sources: with systemd's NSS module, each bash start loads a library and searches
 * six userdb folders (~0.4 ms a process, ~6 ms for a version manager's shim of 16 bash
 * processes, measured on Debian 12), and the answer is still "no such user", which git, ssh
 * and Python's `pwd` treat as an error. So the sandbox sees the host's account files with
 * one line more for its uid: the same files otherwise (they are readable inside anyway), bound
 * read-only over /etc/passwd and /etc/group from a folder of the run that only root may enter.
 */

import { join } from "../os/paths.ts";

/** The account's name: no system names it, and no login (`nologin`). */
const SANDBOX_ACCOUNT = "skills-sandbox";

/** The account files' text with the sandbox's account added (pure). */
export function withSandboxAccount(
  passwd: string,
  group: string,
  uid: number,
  home: string,
): { passwd: string; group: string } {
  const line = (text: string, entry: string) =>
    text === "" || text.endsWith("\n") ? `${text}${entry}\n` : `${text}\n${entry}\n`;
  return {
    passwd: line(
      passwd,
      `${SANDBOX_ACCOUNT}:x:${uid}:${uid}:skills sandbox:${home}:/usr/sbin/nologin`,
    ),
    group: line(group, `${SANDBOX_ACCOUNT}:x:${uid}:`),
  };
}

/**
 * USER and LOGNAME as the script's environment has them (the caller's, from the base set)
 * renamed to the account: a script that asks them who it is must not hear "root" from a
 * process that is not.
 */
export function accountNames(env: Readonly<Record<string, string>>): Record<string, string> {
  const names: Record<string, string> = {};
  for (const name of ["USER", "LOGNAME"]) if (name in env) names[name] = SANDBOX_ACCOUNT;
  return names;
}

/** The files to bind over /etc/passwd and /etc/group, and their folder (removed after the run). */
export interface SandboxAccounts {
  dir: string;
  passwd: string;
  group: string;
}

/** Past this size (a directory service's accounts copied in), the files are left as they are. */
const MAX_ACCOUNT_FILE_BYTES = 1024 * 1024;

/**
 * Writes the account files for `uid` (whose home is `home`) into a fresh folder, or returns
 * undefined where the host's files are not plain files (a system that links them elsewhere
 * keeps its own) or are too large to copy on every run. The folder is made by mkdtemp (0700,
 * root's), the files 0644.
 */
export function writeSandboxAccounts(uid: number, home: string): SandboxAccounts | undefined {
  let passwd: string;
  let group: string;
  try {
    const plain = (info: Deno.FileInfo) => info.isFile && info.size <= MAX_ACCOUNT_FILE_BYTES;
    if (!plain(Deno.lstatSync("/etc/passwd")) || !plain(Deno.lstatSync("/etc/group"))) {
      return undefined;
    }
    passwd = Deno.readTextFileSync("/etc/passwd");
    group = Deno.readTextFileSync("/etc/group");
  } catch {
    return undefined;
  }
  const text = withSandboxAccount(passwd, group, uid, home);
  const dir = Deno.makeTempDirSync({ prefix: "skills-accounts-" });
  const files = { dir, passwd: join(dir, "passwd"), group: join(dir, "group") };
  for (const [path, content] of [[files.passwd, text.passwd], [files.group, text.group]]) {
    Deno.writeTextFileSync(path!, content!, { createNew: true });
    Deno.chmodSync(path!, 0o644); // whatever the umask: the uid reads them
  }
  return files;
}
