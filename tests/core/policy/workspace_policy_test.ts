import assert from "node:assert/strict";
import {
  decideWorkspace,
  heldBackReason,
  heldBackRoot,
  refusedGrant,
  systemFolderOf,
} from "../../../src/core/policy/workspace.ts";

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

Deno.test("heldBackReason() holds back any .git at any depth, file or folder", () => {
  for (
    const rel of [".git", ".git/config", "sub/.git", "a/b/c/.git/hooks/pre-commit", ".GIT/config"]
  ) {
    assert.equal(heldBackReason(rel), "git", rel);
  }
});

Deno.test("heldBackReason() holds back agent, editor, shell, package-manager and CI settings", () => {
  const cases: [string, string][] = [
    [".claude/settings.json", "agent or editor settings"],
    ["packages/web/.vscode/tasks.json", "agent or editor settings"],
    [".cursor/rules", "agent or editor settings"],
    [".mcp.json", "agent or editor settings"],
    [".envrc", "shell start-up"],
    ["deep/.bashrc", "shell start-up"],
    [".npmrc", "package-manager configuration"],
    [".yarnrc.yml", "package-manager configuration"],
    [".pre-commit-config.yaml", "package-manager configuration"],
    [".github/workflows/ci.yml", "CI workflows"],
    ["svc/.github/actions/x/action.yml", "CI workflows"],
    ["skills-lock.json", "the skills lockfile"],
  ];
  for (const [rel, reason] of cases) assert.equal(heldBackReason(rel), reason, rel);
});

Deno.test("heldBackReason() lets ordinary project files through, .venv and node_modules too", () => {
  for (
    const rel of [
      "out/report.json",
      ".github/ISSUE_TEMPLATE.md",
      ".venv/lib/python3.11/site-packages/x.pth",
      "node_modules/left-pad/index.js",
      "a/b/c/d/e/f/g/benchmark.json",
      "gitconfig.txt",
    ]
  ) assert.equal(heldBackReason(rel), undefined, rel);
});

Deno.test("heldBackRoot() names the shallowest guarded part", () => {
  assert.equal(heldBackRoot("sub/.git/hooks/post-checkout"), "sub/.git");
  assert.equal(heldBackRoot(".github/workflows/ci.yml"), ".github/workflows");
  assert.equal(heldBackRoot(".mcp.json"), ".mcp.json");
  assert.equal(heldBackRoot("src/main.ts"), undefined);
});
