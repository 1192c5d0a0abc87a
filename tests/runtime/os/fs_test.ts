import assert from "node:assert/strict";
import { isWithin, removeWorkFolder } from "../../../src/runtime/os/fs.ts";
import { join } from "node:path";
import { tempDir } from "../../helpers/cli.ts";

Deno.test("isWithin() accepts the parent itself and its descendants, nothing else", () => {
  const inside: [string, string][] = [
    ["/home/u/.agent/skills", "/home/u/.agent/skills"],
    ["/home/u/.agent/skills", "/home/u/.agent/skills/x"],
    ["/home/u/.agent/skills", "/home/u/.agent/skills/x/y/../z"],
    ["/home/u/.agent/skills/", "/home/u/.agent/skills/x"],
    ["/", "/etc"],
    ["/a", "/a/"],
  ];
  const outside: [string, string][] = [
    ["/home/u/.agent/skills", "/home/u/.agent/skills-evil"],
    ["/home/u/.agent/skills", "/home/u/.agent"],
    ["/home/u/.agent/skills", "/home/u/.agent/skills/../other"],
    ["/home/u/.agent/skills", "/home/u/.agent/skills/x/../../y"],
    ["/a/b", "/a//b/../c"],
    ["/a", "relative/a"],
  ];
  for (const [parent, child] of inside) assert.ok(isWithin(parent, child), `${parent} ⊇ ${child}`);
  for (const [parent, child] of outside) {
    assert.ok(!isWithin(parent, child), `${parent} ⊉ ${child}`);
  }
});

Deno.test("removeWorkFolder() removes a run's work folder, empty or filled, and never throws", async () => {
  await using tmp = await tempDir();
  const empty = join(tmp.path, "empty");
  const filled = join(tmp.path, "filled");
  await Deno.mkdir(empty);
  await Deno.mkdir(join(filled, "deep", "er"), { recursive: true });
  await Deno.writeTextFile(join(filled, "deep", "er", "left.txt"), "a script's leftovers");
  for (const folder of [empty, filled]) {
    await removeWorkFolder(folder);
    assert.equal(await Deno.lstat(folder).then(() => true, () => false), false, folder);
  }
  await removeWorkFolder(join(tmp.path, "never-made"));
});
