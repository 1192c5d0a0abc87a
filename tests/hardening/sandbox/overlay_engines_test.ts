/**
 * The copy-on-write workspace on each engine and filesystem (runtime/sandbox/overlay.ts,
 * init.py, idmap.pl; runtime/workspace applies the diff): a root CLI's kernel overlay and an
 * ordinary user's fuse-overlayfs, each over an ext4 folder and a tmpfs one; guarded files a
 * script writes in a tmpfs workspace held back in a quarantine on another filesystem; and the
 * read-only workspace, with its warning, where no overlay can be had.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setupLab } from "./sandbox_helpers.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";
import { installFixtureSkill, RUNNER_SKILLS } from "../../helpers/install_fixture.ts";
import { userLab } from "../../helpers/unprivileged.ts";

const root = Deno.uid() === 0;
const linux = Deno.build.os === "linux";
const asRoot = { ignore: needsSandbox.ignore || !root || !linux };

/** A tmpfs mounted on a fresh folder under `parent` for the test's length. */
async function tmpfsFolder(
  parent: string,
  owner?: number,
): Promise<AsyncDisposable & { path: string }> {
  const path = join(parent, "on-tmpfs");
  await Deno.mkdir(path);
  const mounted = await new Deno.Command("mount", {
    args: [
      "-t",
      "tmpfs",
      "-o",
      `size=16m,mode=755${owner === undefined ? "" : `,uid=${owner},gid=${owner}`}`,
      "tmpfs",
      path,
    ],
  }).output();
  assert.ok(mounted.success, new TextDecoder().decode(mounted.stderr));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await new Deno.Command("umount", { args: ["-l", path] }).output();
    },
  };
}

/** The receipt's parts these tests read. */
interface Receipt {
  workspace: { writable: boolean; reason?: string };
  files: {
    created: string[];
    changed: string[];
    deleted: string[];
    quarantined: string[];
    quarantine: string;
  };
}

function receiptOf(stderr: string): Receipt {
  const line = stderr.split("\n").find((l) => l.startsWith("receipt: "));
  assert.ok(line !== undefined, stderr);
  return JSON.parse(line.slice(9));
}

const OPS = [
  "write:made.txt",
  "write:data.txt",
  "create:deep/a/b/c/d/e/f/g.txt",
  "write:.mcp.json",
  "--json",
];

for (const fs of ["ext4", "tmpfs"] as const) {
  Deno.test(
    `a root CLI: the kernel overlay on ${fs}; the diff applied, guarded files held back`,
    asRoot,
    async () => {
      await using lab = await setupLab();
      await using tmpfs = fs === "tmpfs" ? await tmpfsFolder(lab.callerDir) : undefined;
      const dir = tmpfs?.path ?? lab.callerDir;
      await Deno.writeTextFile(join(dir, "data.txt"), "the user's data\n");
      const result = await lab.run(["-v", "sandbox-lab", "attempt", ...OPS], {}, { cwd: dir });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /sandbox: \S*(perl|python3?) .*overlay/);
      assert.equal(await Deno.readTextFile(join(dir, "made.txt")), "written by a skill\n");
      assert.equal(
        await Deno.readTextFile(join(dir, "deep/a/b/c/d/e/f/g.txt")),
        "written by a skill\n",
      );
      await assert.rejects(Deno.lstat(join(dir, ".mcp.json")), Deno.errors.NotFound);
      const receipt = receiptOf(result.stderr);
      assert.deepEqual(receipt.files.created, ["deep/a/b/c/d/e/f/g.txt", "made.txt"]);
      assert.deepEqual(receipt.files.changed, ["data.txt"]);
      assert.deepEqual(receipt.files.quarantined, [".mcp.json"]);
      // The quarantine is in $SKILLS_HOME (ext4): a copy across filesystems, never a rename.
      const kept = join(receipt.files.quarantine.replace("$SKILLS_HOME", lab.home), ".mcp.json");
      assert.equal(await Deno.readTextFile(kept), "written by a skill\n");
    },
  );
}

Deno.test(
  "guarded files a script writes in a tmpfs workspace are held back across filesystems",
  asRoot,
  async () => {
    await using lab = await setupLab();
    await using tmpfs = await tmpfsFolder(lab.callerDir);
    const planted = [
      "write:.envrc.local",
      "create:.vscode/tasks.json",
      "create:.claude/settings.json",
      "write:.mcp.json",
      "create:.github/workflows/ci.yml",
      "write:.npmrc.new",
    ];
    const result = await lab.run(["sandbox-lab", "attempt", ...planted, "--json"], {}, {
      cwd: tmpfs.path,
    });
    assert.equal(result.code, 0, result.stderr);
    const receipt = receiptOf(result.stderr);
    assert.deepEqual(receipt.files.quarantined, [
      ".claude",
      ".github/workflows",
      ".mcp.json",
      ".vscode",
    ]);
    for (const rel of [".vscode", ".claude", ".mcp.json", ".github/workflows"]) {
      await assert.rejects(Deno.lstat(join(tmpfs.path, rel)), Deno.errors.NotFound, rel);
    }
    const quarantine = receipt.files.quarantine.replace("$SKILLS_HOME", lab.home);
    assert.equal(
      await Deno.readTextFile(join(quarantine, ".vscode/tasks.json")),
      "written by a skill\n",
    );
    assert.match(result.stderr, /held back/);
  },
);

const asUser = { ignore: needsSandbox.ignore || !root || !linux };

for (const fs of ["ext4", "tmpfs"] as const) {
  Deno.test(
    `an ordinary user: fuse-overlayfs on ${fs}; the diff applied as that user`,
    asUser,
    async () => {
      await using lab = await userLab();
      await installFixtureSkill(lab.skillsHome, join(RUNNER_SKILLS, "sandbox-lab"));
      await lab.give(lab.home);
      await using tmpfs = fs === "tmpfs" ? await tmpfsFolder(lab.cwd, 65534) : undefined;
      const dir = tmpfs?.path ?? lab.cwd;
      await Deno.writeTextFile(join(dir, "data.txt"), "the user's data\n");
      await lab.give(join(dir, "data.txt"));
      const result = await lab.run(["run", "-v", "sandbox-lab", "attempt", ...OPS], {
        fuse: true,
        cwd: dir,
      });
      assert.equal(result.code, 0, result.stderr);
      const receipt = receiptOf(result.stderr);
      assert.deepEqual(
        receipt.files.created,
        ["deep/a/b/c/d/e/f/g.txt", "made.txt"],
        result.stderr,
      );
      assert.deepEqual(receipt.files.changed, ["data.txt"]);
      assert.deepEqual(receipt.files.quarantined, [".mcp.json"]);
      const made = await Deno.lstat(join(dir, "made.txt"));
      assert.equal(made.uid, 65534, "written as the user");
      await assert.rejects(Deno.lstat(join(dir, ".mcp.json")), Deno.errors.NotFound);
    },
  );
}

Deno.test(
  "without an overlay (an ordinary user who may not open /dev/fuse) the workspace is read-only, said once",
  asUser,
  async () => {
    await using lab = await userLab();
    await installFixtureSkill(lab.skillsHome, join(RUNNER_SKILLS, "sandbox-lab"));
    await lab.give(lab.home);
    await Deno.writeTextFile(join(lab.cwd, "data.txt"), "the user's data\n");
    // --verbose: a run that changed nothing prints its receipt only when asked.
    const result = await lab.run([
      "run",
      "--verbose",
      "sandbox-lab",
      "attempt",
      "write:made.txt",
      "write:data.txt",
      "--json",
    ], {
      fuse: false,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /warning: the workspace is read-only for this run: cannot mount its overlay/,
    );
    assert.deepEqual(receiptOf(result.stderr).workspace, {
      writable: false,
      reason: "its overlay could not be mounted",
    });
    const seen = JSON.parse(result.stdout);
    assert.equal(seen["write:made.txt"].ok, false);
    assert.match(seen["write:made.txt"].detail, /Read-only file system/);
    await assert.rejects(Deno.lstat(join(lab.cwd, "made.txt")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(lab.cwd, "data.txt")), "the user's data\n");
  },
);
