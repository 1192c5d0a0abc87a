import assert from "node:assert/strict";
import { join } from "node:path";
import { folderKey } from "../../../src/runtime/os/folder_keys.ts";
import { tempDir } from "../../helpers/cli.ts";

const linux = { ignore: Deno.build.os !== "linux" };

Deno.test(
  "a folder's key moves with every entry added, removed or renamed, not with a file's content",
  linux,
  async () => {
    await using work = await tempDir();
    await Deno.writeTextFile(join(work.path, "a.txt"), "one\n");
    let key = folderKey(work.path);
    assert.ok(key !== undefined, "a temp folder on this machine's disk (ext4) has a key");
    await Deno.writeTextFile(join(work.path, "a.txt"), "two\n");
    assert.equal(folderKey(work.path), key, "a file's content is not its folder's");
    const steps: [string, () => Promise<void>][] = [
      ["added", () => Deno.writeTextFile(join(work.path, "b.txt"), "")],
      ["renamed", () => Deno.rename(join(work.path, "b.txt"), join(work.path, "c.txt"))],
      ["removed", () => Deno.remove(join(work.path, "c.txt"))],
      ["mtime set back", () => Deno.utime(work.path, new Date(0), new Date(0))],
    ];
    for (const [what, step] of steps) {
      await new Promise((resolve) => setTimeout(resolve, 10)); // past the clock's tick
      await step();
      const now = folderKey(work.path);
      assert.notEqual(now, key, what);
      key = now;
    }
  },
);

Deno.test(
  "no key for a folder changed after the settle time, nor on a filesystem that may not stamp it",
  linux,
  async () => {
    await using work = await tempDir();
    assert.equal(folderKey(work.path, Date.now() - 5_000), undefined, "just made");
    assert.ok(folderKey(work.path, Date.now() + 5_000) !== undefined);
    assert.equal(folderKey("/proc"), undefined, "procfs (device major 0) is not known to stamp");
    assert.equal(folderKey(join(work.path, "missing")), undefined);
    await Deno.writeTextFile(join(work.path, "file"), "");
    assert.equal(folderKey(join(work.path, "file")), undefined, "a file is no folder");
  },
);
