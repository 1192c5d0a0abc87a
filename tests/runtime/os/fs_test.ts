import assert from "node:assert/strict";
import { isWithin } from "../../../src/runtime/os/fs.ts";

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
