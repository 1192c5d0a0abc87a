/**
 * A run's diff read from an upper layer made by hand in each engine's conventions (as root:
 * whiteout devices and trusted xattrs need it), planned and applied to a folder.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";
import { readDiff } from "../../../src/runtime/workspace/diff.ts";
import { applyPlan, planApply, runJournal } from "../../../src/runtime/workspace/apply.ts";
import { openLayer } from "../../../src/runtime/workspace/layer.ts";
import { JOURNAL, recoverRuns } from "../../../src/runtime/workspace/leftovers.ts";

const isRoot = Deno.uid() === 0;

async function sh(script: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", script] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

async function tree(dir: string): Promise<string[]> {
  const out = await new Deno.Command("find", { args: [".", "-mindepth", "1"], cwd: dir }).output();
  return new TextDecoder().decode(out.stdout).trim().split("\n").filter(Boolean).sort();
}

/**
 * recoverRuns until it has dealt with `runs` folders (at most ~2 s). `deno test --parallel`
 * runs other files in this same process, and a process one of them starts holds a copy of
 * every descriptor until it execs, the dead run's lock among them: for that instant the run
 * looks alive, and recovery rightly leaves its folder for the next look.
 */
async function recoverDeadRuns(home: string, runs: number) {
  let recovered = await recoverRuns(home);
  for (
    let tries = 0;
    recovered.applied.length + recovered.discarded < runs && tries < 100;
    tries++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await recoverRuns(home);
    recovered = {
      applied: [...recovered.applied, ...again.applied],
      discarded: recovered.discarded + again.discarded,
    };
  }
  return recovered;
}

Deno.test({
  name: "a kernel upper layer: created, changed, deleted and opaque folders, at any depth",
  ignore: !isRoot,
  async fn() {
    await using lower = await tempDir("ws-lower-");
    await using upper = await tempDir("ws-upper-");
    await writeTree(lower.path, {
      "keep.txt": "same\n",
      "edit.txt": "before\n",
      "gone.txt": "x\n",
      "old/a.txt": "a\n",
      "redo/stale.txt": "stale\n",
      "touched.txt": "same bytes\n",
    });
    await writeTree(upper.path, {
      "edit.txt": "after\n",
      "a/b/c/d/e/f/g/deep.json": "{}\n",
      ".venv/lib/python3.11/site-packages/evil.pth": "import os\n",
      "redo/fresh.txt": "new\n",
      "touched.txt": "same bytes\n",
      "sub/.git/config": "[core]\n\tfsmonitor = evil\n",
    });
    await sh(
      `cd ${upper.path} && mknod gone.txt c 0 0 && mknod old c 0 0 && ` +
        `python3 -c "import os; os.setxattr('redo', 'trusted.overlay.opaque', b'y')"`,
    );
    const diff = readDiff(upper.path, lower.path, "overlay");
    const plan = planApply(diff, lower.path, upper.path);
    assert.deepEqual(plan.created, [
      ".venv/lib/python3.11/site-packages/evil.pth",
      "a/b/c/d/e/f/g/deep.json",
      "redo/fresh.txt",
    ]);
    assert.deepEqual(plan.changed, ["edit.txt"], "a copy-up with the same bytes is no change");
    assert.deepEqual(plan.deleted, ["gone.txt", "old/", "redo/stale.txt"]);
    assert.deepEqual(plan.heldBack, [{ rel: "sub/.git", reason: "git" }]);
    assert.deepEqual(applyPlan(plan, join(upper.path, "..", `journal-${crypto.randomUUID()}`)), []);
    assert.deepEqual(await tree(lower.path), [
      "./.venv",
      "./.venv/lib",
      "./.venv/lib/python3.11",
      "./.venv/lib/python3.11/site-packages",
      "./.venv/lib/python3.11/site-packages/evil.pth",
      "./a",
      "./a/b",
      "./a/b/c",
      "./a/b/c/d",
      "./a/b/c/d/e",
      "./a/b/c/d/e/f",
      "./a/b/c/d/e/f/g",
      "./a/b/c/d/e/f/g/deep.json",
      "./edit.txt",
      "./keep.txt",
      "./redo",
      "./redo/fresh.txt",
      "./sub",
      "./touched.txt",
    ]);
    assert.equal(await Deno.readTextFile(join(lower.path, "edit.txt")), "after\n");
  },
});

Deno.test("a fuse-overlayfs upper layer: .wh. files and the opaque marker file", async () => {
  await using lower = await tempDir("ws-lower-");
  await using upper = await tempDir("ws-upper-");
  await writeTree(lower.path, { "x.txt": "x\n", "dir/old.txt": "old\n" });
  await writeTree(upper.path, { ".wh.x.txt": "", "dir/.wh..wh..opq": "", "dir/new.txt": "n\n" });
  const plan = planApply(
    readDiff(upper.path, lower.path, "fuse-overlayfs", () => new Set()),
    lower.path,
    upper.path,
  );
  assert.deepEqual(plan.deleted, ["dir/old.txt", "x.txt"]);
  assert.deepEqual(plan.created, ["dir/new.txt"]);
});

Deno.test("set-uid bits are never carried over; a link out of the folder is held back", async () => {
  await using lower = await tempDir("ws-lower-");
  await using upper = await tempDir("ws-upper-");
  await writeTree(upper.path, { "tool": "#!/bin/sh\n" });
  await Deno.chmod(join(upper.path, "tool"), 0o4755);
  await Deno.symlink("/etc/passwd", join(upper.path, "out-link"));
  await Deno.symlink("tool", join(upper.path, "in-link"));
  const plan = planApply(
    readDiff(upper.path, lower.path, "overlay", () => new Set()),
    lower.path,
    upper.path,
  );
  assert.deepEqual(plan.heldBack, [{ rel: "out-link", reason: "a link out of the folder" }]);
  applyPlan(plan, join(upper.path, "..", `journal-${crypto.randomUUID()}`));
  assert.equal((await Deno.stat(join(lower.path, "tool"))).mode! & 0o7777, 0o755);
  assert.equal(await Deno.readLink(join(lower.path, "in-link")), "tool");
});

Deno.test("no write goes through a link in the user's folder", async () => {
  await using lower = await tempDir("ws-lower-");
  await using outside = await tempDir("ws-outside-");
  await Deno.symlink(outside.path, join(lower.path, "data"));
  const skipped = runJournal({
    version: 1,
    workspace: lower.path,
    upper: outside.path,
    tag: "t",
    ops: [{ op: "delete", rel: "data/important" }, { op: "dir", rel: "data/x", mode: 0o755 }],
  });
  assert.deepEqual(skipped, ["data/important", "data/x"]);
  assert.deepEqual(await tree(outside.path), []);
});

Deno.test("an apply the CLI did not finish is rolled forward by the next run", async () => {
  await using home = await tempDir("ws-home-");
  await using work = await tempDir("ws-folder-");
  const layer = openLayer(home.path);
  await writeTree(layer.upper, { "one.txt": "1\n", "two.txt": "2\n" });
  const plan = planApply(
    readDiff(layer.upper, work.path, "overlay", () => new Set()),
    work.path,
    layer.upper,
  );
  // What a CLI killed mid-apply leaves: the journal written, one file of two applied.
  await Deno.writeTextFile(
    join(layer.dir, JOURNAL),
    JSON.stringify({
      version: 1,
      workspace: work.path,
      upper: layer.upper,
      tag: "t",
      ops: plan.ops,
    }),
  );
  await Deno.writeTextFile(join(work.path, "one.txt"), "1\n");
  layer.release(); // the dead CLI's lock is gone
  const recovered = await recoverDeadRuns(home.path, 1);
  assert.deepEqual(recovered.applied, [work.path]);
  assert.deepEqual(await tree(work.path), ["./one.txt", "./two.txt"]);
  assert.deepEqual([...Deno.readDirSync(join(home.path, ".cache/runs"))], []);
});

Deno.test("a live run's folder is left alone; a dead run's without a journal is discarded", async () => {
  await using home = await tempDir("ws-home-");
  const live = openLayer(home.path);
  const dead = openLayer(home.path);
  await writeTree(dead.upper, { "x.txt": "x\n" });
  dead.release();
  const recovered = await recoverDeadRuns(home.path, 1);
  assert.equal(recovered.discarded, 1);
  assert.ok((await Deno.stat(live.dir)).isDirectory);
  await assert.rejects(Deno.stat(dead.dir), Deno.errors.NotFound);
  await live.dispose();
});
