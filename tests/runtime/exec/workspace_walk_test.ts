import assert from "node:assert/strict";
import { join } from "node:path";
import { scanWorkspace, workspaceChanges } from "../../../src/runtime/exec/workspace_walk.ts";
import { tempDir } from "../../helpers/cli.ts";

Deno.test("guarded names made at the workspace's top after the walk are quarantined, whether the walk listed the top or the disk is asked", async () => {
  for (const listed of [true, false]) {
    await using work = await tempDir();
    await using quarantine = await tempDir();
    await Deno.writeTextFile(join(work.path, "notes.txt"), "mine\n");
    const before = scanWorkspace(work.path);
    assert.ok(before.absent.includes(".envrc") && before.absent.includes(".github/workflows"));
    assert.ok(!before.absent.includes("notes.txt"));
    if (!listed) before.top = undefined; // a top the walk could not list in full
    const since = Date.now() - 50;
    await Deno.writeTextFile(join(work.path, ".envrc"), "export X=1\n");
    await Deno.mkdir(join(work.path, ".github", "workflows"), { recursive: true });
    await Deno.writeTextFile(join(work.path, ".github", "workflows", "ci.yml"), "on: push\n");
    await Deno.writeTextFile(join(work.path, "made.txt"), "new\n");
    const changes = workspaceChanges(before, since, join(quarantine.path, "q"));
    assert.deepEqual(changes.quarantined, [".envrc", ".github/workflows"], `listed: ${listed}`);
    assert.deepEqual(changes.created, ["made.txt"], `listed: ${listed}`);
    await assert.rejects(Deno.lstat(join(work.path, ".envrc")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(quarantine.path, "q", ".envrc")), "export X=1\n");
  }
});

Deno.test("a guarded name that was there before is not absent, in any case the walk saw it", async () => {
  await using work = await tempDir();
  await Deno.writeTextFile(join(work.path, ".envrc"), "");
  await Deno.mkdir(join(work.path, ".git", "hooks"), { recursive: true });
  const scan = scanWorkspace(work.path);
  assert.ok(!scan.absent.includes(".envrc"));
  assert.ok(!scan.absent.includes(".git/hooks"));
  assert.ok(scan.absent.includes(".vscode"));
  await Deno.remove(join(work.path, ".git", "hooks"));
  assert.ok(scanWorkspace(work.path).absent.includes(".git/hooks"));
});
