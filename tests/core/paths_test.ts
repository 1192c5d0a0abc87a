import { deepStrictEqual as assertEquals } from "node:assert/strict";
import * as node from "node:path";
import * as ours from "../../src/core/paths.ts";

// Our path helpers must agree with node:path (which they replace on start-up paths).
const SAMPLES = [
  "",
  ".",
  "..",
  "/",
  "//",
  "a",
  "a/",
  "a/b",
  "a//b/",
  "./a/./b",
  "a/../b",
  "a/../../b",
  "../a/..",
  "/a/b/../../..",
  "/a/./b//c/",
  "/..",
  "skills/core/kalshi-markets/SKILL.md",
  "/tmp/x/.staging/123-abc/../..",
  "a/b/c/../../../../d",
];

Deno.test("normalize, dirname, basename and isAbsolute agree with node:path", () => {
  for (const p of SAMPLES) {
    assertEquals(ours.normalize(p), node.normalize(p), `normalize(${JSON.stringify(p)})`);
    assertEquals(ours.dirname(p), node.dirname(p), `dirname(${JSON.stringify(p)})`);
    assertEquals(ours.basename(p), node.basename(p), `basename(${JSON.stringify(p)})`);
    assertEquals(ours.isAbsolute(p), node.isAbsolute(p), `isAbsolute(${JSON.stringify(p)})`);
  }
});

Deno.test("join, resolve and relative agree with node:path", () => {
  for (const a of SAMPLES) {
    for (const b of SAMPLES) {
      const label = `(${JSON.stringify(a)}, ${JSON.stringify(b)})`;
      assertEquals(ours.join(a, b), node.join(a, b), `join${label}`);
      assertEquals(ours.resolve(a, b), node.resolve(a, b), `resolve${label}`);
      assertEquals(ours.relative(a, b), node.relative(a, b), `relative${label}`);
    }
  }
  assertEquals(ours.join(), node.join());
  assertEquals(ours.resolve(), node.resolve());
  assertEquals(ours.join("a", "", "b", "/c/"), node.join("a", "", "b", "/c/"));
  assertEquals(ours.resolve("/x", "y", "/z", "w"), node.resolve("/x", "y", "/z", "w"));
});
