import assert from "node:assert/strict";
import {
  bwrapArgs,
  type MountPlan,
  namespaceArgs,
  parseBwrapVersion,
  readMaskArgs,
  workspaceReadMasks,
} from "../../../src/runtime/sandbox/bwrap.ts";
import { withSandboxAccount } from "../../../src/runtime/sandbox/accounts.ts";

const NEW = { version: [0, 8, 0], root: false } as const;
const ROOT = { version: [0, 8, 0], root: true } as const;
const OLD = { version: [0, 6, 1], root: false } as const;

const PLAN: MountPlan = {
  hideFirst: ["/home/u", "/run"],
  callerDir: "/home/u/project",
  mask: ["/home/u/project/.env"],
  hideSecond: ["/home/u/.agent/skills"],
  readOnly: ["/home/u/.pyenv", "/home/u/.agent/skills/pdf"],
  writable: ["/tmp/skills-work-1"],
  chdir: "/home/u/.agent/skills/pdf/scripts",
};

Deno.test("parseBwrapVersion() reads `bubblewrap 0.8.0`", () => {
  assert.deepEqual(parseBwrapVersion("bubblewrap 0.8.0\n"), [0, 8, 0]);
  assert.deepEqual(parseBwrapVersion("bubblewrap 0.11"), [0, 11, 0]);
  assert.equal(parseBwrapVersion("nothing"), undefined);
});

Deno.test("namespaceArgs(): every namespace, no capabilities; a user namespace except as root", () => {
  const user = namespaceArgs(NEW);
  for (
    const flag of [
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-net",
      "--die-with-parent",
      "--new-session",
      "--unshare-user",
      "--disable-userns",
    ]
  ) {
    assert.ok(user.includes(flag), flag);
  }
  assert.deepEqual(user.slice(user.indexOf("--cap-drop"), user.indexOf("--cap-drop") + 2), [
    "--cap-drop",
    "ALL",
  ]);
  assert.ok(!user.includes("--cap-add"));
  const root = namespaceArgs(ROOT);
  assert.ok(!root.includes("--unshare-user"), "root keeps the real uid namespace to switch uid");
  assert.deepEqual(root.filter((a) => a.startsWith("CAP_")), ["CAP_SETUID", "CAP_SETGID"]);
  assert.ok(!namespaceArgs(OLD).includes("--disable-userns"), "0.6 has no --disable-userns");
});

Deno.test("bwrapArgs(): read-only root, hidden folders, caller, skill, work folder, in that order", () => {
  const args = bwrapArgs(NEW, PLAN, ["python3", "-I", "x"]);
  const at = (...needle: string[]) => {
    for (let i = 0; i <= args.length - needle.length; i++) {
      if (needle.every((n, j) => args[i + j] === n)) return i;
    }
    return -1;
  };
  const order = [
    at("--ro-bind", "/", "/"),
    at("--tmpfs", "/tmp"),
    at("--tmpfs", "/home/u"),
    at("--ro-bind", "/home/u/project", "/home/u/project"),
    at("--ro-bind", "/dev/null", "/home/u/project/.env"),
    at("--tmpfs", "/home/u/.agent/skills"),
    at("--ro-bind", "/home/u/.pyenv", "/home/u/.pyenv"),
    at("--ro-bind", "/home/u/.agent/skills/pdf", "/home/u/.agent/skills/pdf"),
    at("--bind", "/tmp/skills-work-1", "/tmp/skills-work-1"),
    at("--remount-ro", "/home/u"),
    at("--chdir", PLAN.chdir),
    at("--", "python3", "-I", "x"),
  ];
  assert.ok(order.every((i) => i >= 0), JSON.stringify(order));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
  assert.equal(args[at("--tmpfs", "/tmp") - 3], "1777", "/tmp is sticky and world-writable");
  // Folders bubblewrap would make 0700 on the way to a mount are made 0755 first.
  assert.ok(at("--perms", "0755", "--dir", "/home/u/.agent") >= 0);
  assert.ok(
    at("--perms", "0755", "--dir", "/home/u/.agent") < at("--tmpfs", "/home/u/.agent/skills"),
  );
  const old = bwrapArgs(OLD, PLAN, ["true"]);
  assert.ok(!old.includes("--size") && !old.includes("--perms"), "0.6 has neither");
});

Deno.test("bwrapArgs(): a root CLI's account files go over /etc/passwd and /etc/group, read-only", () => {
  const accounts = {
    passwd: "/tmp/skills-accounts-1/passwd",
    group: "/tmp/skills-accounts-1/group",
  };
  const args = bwrapArgs(ROOT, { ...PLAN, accounts }, ["true"]).join(" ");
  assert.ok(args.includes(`--ro-bind ${accounts.passwd} /etc/passwd`), args);
  assert.ok(args.includes(`--ro-bind ${accounts.group} /etc/group`), args);
  assert.ok(!bwrapArgs(ROOT, PLAN, ["true"]).includes("/etc/passwd"), "none without them");
});

Deno.test("withSandboxAccount(): the host's entries kept, one line more for the uid", () => {
  const host = "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/nonexistent:/bin/false";
  const made = withSandboxAccount(host, "root:x:0:\n", 2_000_000_123, "/tmp/skills-work-1");
  assert.equal(
    made.passwd,
    `${host}\nskills-sandbox:x:2000000123:2000000123:skills sandbox:/tmp/skills-work-1:/usr/sbin/nologin\n`,
  );
  assert.equal(made.group, "root:x:0:\nskills-sandbox:x:2000000123:\n");
  assert.equal(withSandboxAccount("", "", 7, "/w").group, "skills-sandbox:x:7:\n");
});

Deno.test("readMaskArgs(): hidden folders, masked files and sanitized copies, after the workspace's own mounts", () => {
  const plan: MountPlan = {
    ...PLAN,
    maskedFolders: ["/home/u/project/.ssh"],
    shownAs: [{
      source: "/home/u/.agent/skills/.cache/git-config/ab-12",
      target: "/home/u/project/.git/config",
    }],
  };
  const masks = workspaceReadMasks(plan);
  assert.deepEqual(readMaskArgs(NEW, masks, "/dev/null"), [
    "--perms",
    "0755",
    "--size",
    String(1024 * 1024),
    "--tmpfs",
    "/home/u/project/.ssh",
    "--remount-ro",
    "/home/u/project/.ssh",
    "--ro-bind",
    "/dev/null",
    "/home/u/project/.env",
    "--ro-bind",
    "/home/u/.agent/skills/.cache/git-config/ab-12",
    "/home/u/project/.git/config",
  ]);
  const args = bwrapArgs(NEW, plan, ["x"]);
  const caller = args.indexOf("/home/u/project");
  const copy = args.indexOf("/home/u/.agent/skills/.cache/git-config/ab-12");
  assert.ok(caller >= 0 && copy > caller, "applied after the workspace is bound");
});
