/**
 * The init forms of a root CLI's sandbox leave a script in the same state (sandbox_init.ts):
 * idmap.pl, which sets the limits and drops to the uid with system calls of its own, against
 * setpriv + prlimit (the util-linux form, a read-only workspace) and init.py (the Python
 * form, chosen here by a PERL* variable the script is given). The same uid and gid, no
 * groups, no capability left (init.py excepted: it keeps the inheritable set), the same
 * bounding set and no_new_privs, the same limits, the same working directory; and through the
 * idmapped workspace, what the script writes is stored as the invoking root's.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setupLab } from "./sandbox_helpers.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { tempDir } from "../../helpers/cli.ts";
import { needsSandbox, systemPerl } from "../../helpers/sandbox.ts";
import { exists } from "../../helpers/wait.ts";

const root = Deno.uid() === 0;
if (Deno.env.get("CI") && root && !needsSandbox.ignore && !systemPerl) {
  throw new Error("The sandbox forms test must run in CI: install perl (Debian: perl-base)");
}

/** What the script reports of itself: /proc/self/status and limits lines, its directory. */
const IDENTITY_SCRIPT = `import grp, json, os, pwd, sys
status = {}
with open("/proc/self/status") as f:
    for line in f:
        name, _, value = line.partition(":")
        if name in ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                    "NoNewPrivs"):
            status[name] = " ".join(value.split())
limits = {}
with open("/proc/self/limits") as f:
    for line in f:
        for name in ("Max processes", "Max address space", "Max cpu time", "Max file size",
                     "Max core file size"):
            if line.startswith(name + " "):
                limits[name] = " ".join(line[len(name):].split())
try:
    account = pwd.getpwuid(os.getuid())
    group = grp.getgrgid(os.getgid())
    named = {"name": account.pw_name, "home": account.pw_dir, "group": group.gr_name}
except KeyError:
    named = None
try:
    open("/etc/passwd", "a").close()
    passwd_writable = True
except OSError:
    passwd_writable = False
written = None
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        f.write("written inside the sandbox\\n")
    written = os.path.abspath(sys.argv[1])
print(json.dumps({"status": status, "limits": limits, "cwd": os.getcwd(), "written": written,
                  "named": named, "home": os.environ["HOME"], "passwd_writable": passwd_writable,
                  "user": os.environ.get("USER")}))
`;

const SKILL_MD = `---
name: identity-lab
description: Reports the uid, groups, capabilities, limits and working directory it runs with.
permissions:
  env:
    - PERL_SKILLS_FORM
---

# Identity lab

Prints what the sandbox left it: for the sandbox forms test only.
`;

interface Identity {
  status: Record<string, string>;
  limits: Record<string, string>;
  cwd: string;
  written: string | null;
  /** What pwd and grp say of the uid and gid (null: no such account). */
  named: { name: string; home: string; group: string } | null;
  home: string;
  passwd_writable: boolean;
  /** $USER as the script sees it. */
  user: string | null;
}

Deno.test(
  "a root CLI's sandbox: idmap.pl leaves the script as setpriv + prlimit and init.py do",
  { ignore: needsSandbox.ignore || !root || !systemPerl },
  async () => {
    await using lab = await setupLab();
    await using source = await tempDir("skills-identity-lab-");
    await Deno.mkdir(join(source.path, "scripts"));
    await Deno.writeTextFile(join(source.path, "SKILL.md"), SKILL_MD);
    await Deno.writeTextFile(join(source.path, "scripts", "identity.py"), IDENTITY_SCRIPT);
    await installFixtureSkill(lab.home, source.path, { name: "identity-lab" });
    const limits = { MAX_SCRIPT_MEMORY: String(512 * 1024 * 1024) };
    const run = async (env: Record<string, string>, started: RegExp, file?: string) => {
      const args = ["-v", "identity-lab", "identity", ...(file === undefined ? [] : [file])];
      const result = await lab.run(args, { ...limits, USER: "root", ...env });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, started);
      const accounts = /; accounts (\S+)/.exec(result.stderr)?.[1];
      assert.ok(accounts !== undefined, "the account files' folder is logged");
      assert.equal(await exists(accounts), false, "the account files are removed after the run");
      return JSON.parse(result.stdout) as Identity;
    };
    const perl = await run(
      {},
      /sandbox: \S*perl -f -e <source> [0-9,]+ overlay:\S+ .*-- [0-9]+ /,
      "by-perl.txt",
    );
    const python = await run(
      { PERL_SKILLS_FORM: "1" },
      /sandbox: \S*python3? -I -S -B -c <source>/,
      "by-python.txt",
    );
    const utilLinux = await run(
      { SKILLS_READ_ONLY: "1" },
      /sandbox: \S*setpriv --reuid=[0-9]+ .*prlimit --nproc=/,
    );

    const zero = "0000000000000000";
    for (const name of ["CapInh", "CapPrm", "CapEff", "CapAmb"]) {
      assert.equal(perl.status[name], zero, `${name} in the Perl form`);
      assert.equal(utilLinux.status[name], zero, `${name} in the util-linux form`);
      assert.equal(python.status[name], zero, `${name} in the Python form`);
    }
    const uid = perl.status.Uid!.split(" ")[0]!;
    assert.ok(Number(uid) >= 2_000_000_000, `uid ${uid}: the skill's own, not root`);
    assert.equal(perl.status.Uid, `${uid} ${uid} ${uid} ${uid}`);
    assert.equal(perl.status.Gid, `${uid} ${uid} ${uid} ${uid}`);
    assert.equal(perl.status.Groups, "", "no supplementary group");
    assert.deepEqual(perl.status, utilLinux.status, "the util-linux form's identity");
    assert.deepEqual(perl.status, python.status, "the Python form's identity");

    assert.equal(Object.keys(perl.limits).length, 5, JSON.stringify(perl.limits));
    assert.deepEqual(perl.limits, utilLinux.limits, "the limits prlimit sets");
    assert.deepEqual(perl.limits, python.limits, "the limits init.py sets");
    assert.match(perl.limits["Max processes"]!, /^256 256 processes$/);
    assert.match(perl.limits["Max address space"]!, /^536870912 536870912 bytes$/);
    assert.match(perl.limits["Max core file size"]!, /^0 0 bytes$/);

    for (const identity of [perl, python, utilLinux]) {
      assert.equal(identity.cwd, lab.callerDir);
      // A uid no account names breaks git, ssh and Python's pwd, and sends every lookup
      // through the system's other account sources (accounts.ts).
      assert.deepEqual(identity.named, {
        name: "skills-sandbox",
        home: identity.home,
        group: "skills-sandbox",
      });
      assert.equal(identity.passwd_writable, false, "/etc/passwd stays read-only");
      assert.equal(identity.user, "skills-sandbox", "$USER names the account, not root");
    }
    for (const [identity, name] of [[perl, "by-perl.txt"], [python, "by-python.txt"]] as const) {
      const path = join(lab.callerDir, name);
      assert.equal(identity.written, path);
      const info = await Deno.lstat(path);
      assert.equal(info.uid, 0, `${name}: written as the invoking root (the diff applied)`);
      assert.equal(info.gid, 0, `${name}: stored as the invoking root's group`);
    }
  },
);
