import assert from "node:assert/strict";
import { join } from "node:path";
import { watchFolders } from "../../../src/runtime/os/folder_watch.ts";
import { tempDir } from "../../helpers/cli.ts";

const linux = { ignore: Deno.build.os !== "linux" };

/** Runs `script` in `cwd` with sh: another process, as a script in policy mode is. */
async function inChild(cwd: string, script: string): Promise<void> {
  const done = await new Deno.Command("sh", { args: ["-c", script], cwd }).output();
  assert.equal(done.code, 0, new TextDecoder().decode(done.stderr));
}

Deno.test(
  "a watch names each entry another process touched in the watched folders — written, truncated, re-timed, made, removed, renamed — and nothing else",
  linux,
  async () => {
    await using work = await tempDir();
    const sub = join(work.path, "sub");
    const unwatched = join(work.path, "unwatched");
    await Deno.mkdir(sub);
    await Deno.mkdir(unwatched);
    for (const name of ["grown", "cut", "retimed", "gone", "moved", "still"]) {
      await Deno.writeTextFile(join(work.path, name), "text\n");
    }
    await Deno.writeTextFile(join(unwatched, "inner"), "text\n");
    const watch = watchFolders([work.path, sub]);
    assert.ok(watch);
    await inChild(
      work.path,
      "echo more >> grown; : > cut; touch -d @0 retimed; echo new > made; rm gone;" +
        " mv moved sub/arrived; echo x >> unwatched/inner; cat still > /dev/null",
    );
    const touched = await watch.settle();
    assert.ok(touched, "the flush came back and the queue never overflowed");
    const names = [...touched].map((path) => path.slice(work.path.length + 1)).sort();
    assert.deepEqual(names, ["cut", "gone", "grown", "made", "moved", "retimed", "sub/arrived"]);
  },
);

Deno.test("no watch where a folder cannot be watched, and none after close", linux, async () => {
  await using work = await tempDir();
  assert.equal(watchFolders([join(work.path, "missing")]), undefined);
  const watch = watchFolders([work.path]);
  assert.ok(watch);
  watch.close();
  await Deno.writeTextFile(join(work.path, "late"), "x");
  assert.equal(await watch.settle(), undefined, "a closed watch has no answer");
});
