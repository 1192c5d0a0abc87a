import assert from "node:assert/strict";
import { decideWorkspace, refusedGrant, systemFolderOf } from "../../src/core/policy/workspace.ts";

const base = { home: "/home/ana", skillsHome: "/home/ana/.agent/skills", readOnly: false };

Deno.test("decideWorkspace(): a system folder is read-only, said as a warning", () => {
  for (
    const dir of [
      "/etc",
      "/etc/nginx",
      "/usr",
      "/usr/local/bin",
      "/boot",
      "/var",
      "/var/spool/cron",
      "/proc",
      "/sys",
      "/dev",
      "/run",
      "/root",
      "/lib64",
      "/sbin",
    ]
  ) {
    const decision = decideWorkspace({ ...base, dir });
    assert.equal(decision.writable, false, dir);
    assert.match(decision.reason ?? "", /system folder/, dir);
    assert.match(decision.warning ?? "", new RegExp(`scripts get ${dir} read-only`), dir);
  }
  // A root CLI (its home /root) in /home: every user's home at once.
  assert.match(decideWorkspace({ ...base, home: "/root", dir: "/home" }).warning ?? "", /system/);
});

Deno.test("decideWorkspace(): users' own folders inside and beside the system's stay writable", () => {
  for (
    const dir of [
      "/var/tmp/build",
      "/usr/src/app",
      "/var/www/html",
      "/opt/app",
      "/srv/site",
      "/home/bob/project",
      "/mnt/disk/repo",
      "/tmp/x",
      "/etcetera",
    ]
  ) {
    assert.deepEqual(decideWorkspace({ ...base, dir }), { writable: true }, dir);
  }
  // The home and `/` keep their own reasons, without a warning.
  const root = decideWorkspace({ ...base, dir: "/root", home: "/root" });
  assert.equal(root.warning, undefined);
  assert.match(root.reason ?? "", /home/);
  assert.equal(decideWorkspace({ ...base, dir: "/" }).warning, undefined);
});

Deno.test("refusedGrant(): --write of a system folder is refused", () => {
  assert.equal(refusedGrant("/etc", base.skillsHome, base.home), "it is a system folder (/etc)");
  assert.equal(
    refusedGrant("/usr/local/lib/python3", base.skillsHome, base.home),
    "it is a system folder (/usr)",
  );
  assert.equal(
    refusedGrant("/usr/src", base.skillsHome, base.home),
    "it is a system folder (/usr)",
  );
  assert.equal(systemFolderOf("/usr/src/app"), undefined);
});
