import { dirname } from "node:path";
import { REPO_ROOT } from "./cli.ts";

/**
 * Whether the OS sandbox can work here: bubblewrap installed and allowed to make its
 * namespaces. Tests of what happens inside the sandbox need it; without it `skills` runs
 * scripts in policy mode (tests/hardening/policy_mode/policy_mode_test.ts covers that). CI installs
 * bubblewrap (.ci/run) and must never skip them: there, a missing sandbox fails loudly.
 */

function bubblewrapWorks(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    const probe = new Deno.Command("bwrap", {
      args: ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return probe.success;
  } catch {
    return false;
  }
}

const works = bubblewrapWorks();
if (!works && Deno.build.os === "linux" && Deno.env.get("CI")) {
  throw new Error(
    "The sandbox tests must run in CI: install bubblewrap (Debian: apt-get install bubblewrap)",
  );
}

/**
 * Whether a root CLI's sandbox can take the Perl form here (sandbox_init.perlInit): a system
 * Perl and an architecture whose system call numbers it knows.
 */
export const systemPerl = ["x86_64", "aarch64"].includes(Deno.build.arch) &&
  ["/usr/bin/perl", "/bin/perl", "/usr/sbin/perl", "/sbin/perl"].some((path) => {
    try {
      return Deno.lstatSync(path) !== null;
    } catch {
      return false;
    }
  });

/** Deno.test options for a test of the OS sandbox itself. */
export const needsSandbox = { ignore: !works };

/**
 * Each script test twice: in the OS sandbox (`SKILLS_SANDBOX=auto`, where bubblewrap works)
 * and in policy mode (`off`): `[label, SKILLS_SANDBOX, Deno.test options]`.
 */
export const SANDBOX_MODES = [
  ["sandbox", "auto", needsSandbox],
  ["policy mode", "off", { ignore: Deno.build.os !== "linux" }],
] as const;

/**
 * `text` without the one-line notice `skills` prints where the sandbox cannot work
 * (`auto` falling back to policy mode): tests of other things read the same output
 * on a machine with or without bubblewrap.
 */
export function withoutSandboxNotice(text: string): string {
  return text.replace(
    /^warning: [^\n]*: scripts run without the OS sandbox \(policy mode\)\n/m,
    "",
  );
}

/**
 * A folder the sandbox shows as the rest of the filesystem (read-only), outside /tmp, /var/tmp
 * and the home, which the sandbox makes private or hides, and outside the repository: other
 * tests run the CLI there at the same time (tests/helpers/cli.ts's default working directory),
 * their sandboxes search it for secret files, and a secret of this folder's that came and
 * went under one of those searches would fail its mount. Beside the repository when that is
 * such a place, else below /srv (the tests run as root in CI, where a clone under /tmp or the
 * home would hide its parent too). Removed after.
 */
export async function visibleFolder(prefix: string): Promise<{ path: string } & AsyncDisposable> {
  const home = Deno.env.get("HOME");
  const hidden = (dir: string) =>
    ["/tmp", "/var/tmp", ...(home ? [home] : [])].some((root) =>
      dir === root || dir.startsWith(`${root}/`)
    );
  const beside = dirname(REPO_ROOT);
  let path: string | undefined;
  for (const parent of [beside, "/srv"].filter((dir) => dir !== "/" && !hidden(dir))) {
    try {
      await Deno.mkdir(parent, { recursive: true });
      path = await Deno.makeTempDir({ dir: parent, prefix });
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
    }
  }
  if (path === undefined) {
    throw new Error(`no folder the sandbox shows is writable (${beside}, /srv)`);
  }
  await Deno.chmod(path, 0o755);
  const made = path;
  return { path: made, [Symbol.asyncDispose]: () => Deno.remove(made, { recursive: true }) };
}
