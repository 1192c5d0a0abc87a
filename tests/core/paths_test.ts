import { deepStrictEqual as assertEquals } from "node:assert/strict";
import * as node from "node:path";
import { pathRules } from "../../src/core/path_rules.ts";

// The rules of the platform these tests run on, bound like runtime/os/paths.ts binds them.
const ours = pathRules(Deno.build.os === "windows" ? "windows" : "posix", () => Deno.cwd());

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

const WINDOWS_SAMPLES = [
  "",
  ".",
  "C:\\",
  "C:/",
  "c:\\a\\b",
  "C:\\a\\..\\..\\b",
  "C:/a//b/",
  "\\\\server\\share\\dir\\f.txt",
  "//server/share/",
  "\\a\\b",
  "a\\b\\",
  "a/b\\c",
  "..\\a",
  "C:\\Users\\Ada\\.agent\\skills\\kalshi-markets\\SKILL.md",
];

Deno.test("Windows rules agree with node:path.win32, tested on any platform", () => {
  const cwd = "C:\\work\\project";
  const win = pathRules("windows", () => cwd);
  const nodeWin = node.win32;
  assertEquals([win.SEP, win.DELIMITER], [nodeWin.sep, nodeWin.delimiter]);
  for (const p of WINDOWS_SAMPLES) {
    const label = JSON.stringify(p);
    assertEquals(win.normalize(p), nodeWin.normalize(p), `normalize(${label})`);
    assertEquals(win.dirname(p), nodeWin.dirname(p), `dirname(${label})`);
    assertEquals(win.basename(p), nodeWin.basename(p), `basename(${label})`);
    assertEquals(win.isAbsolute(p), nodeWin.isAbsolute(p), `isAbsolute(${label})`);
    for (const q of WINDOWS_SAMPLES) {
      const pair = `(${label}, ${JSON.stringify(q)})`;
      // Joining an absolute path into the middle of another is not something we do, and
      // node then adds `.\\` guards of its own; compare joins of relative tails.
      if (!nodeWin.isAbsolute(q)) assertEquals(win.join(p, q), nodeWin.join(p, q), `join${pair}`);
      // node resolves relative paths against process.cwd(); compare with an absolute base.
      assertEquals(
        win.resolve(cwd, p, q),
        nodeWin.resolve(cwd, p, q),
        `resolve${pair}`,
      );
      const [a, b] = [nodeWin.resolve(cwd, p), nodeWin.resolve(cwd, q)];
      assertEquals(win.relative(a, b), nodeWin.relative(a, b), `relative${pair}`);
    }
  }
});
