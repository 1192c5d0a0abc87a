import assert from "node:assert/strict";
import { inert, markInvisible } from "../../src/core/terminal_text.ts";

Deno.test("inert() shows controls, bidi and format characters as escapes", () => {
  assert.equal(inert("a\x1b[2Kb\rc\x07"), "a\\x1b[2Kb\\rc\\x07");
  assert.equal(inert("x\u202ey\u200bz\u{E0041}"), "x\\u202ey\\u200bz\\u{e0041}");
  assert.equal(inert("\x9b31m"), "\\x9b31m");
  assert.equal(inert("line\nnext\tcol"), "line\\nnext\\tcol");
  assert.equal(inert("line\nnext\tcol", { multiline: true }), "line\nnext\tcol");
  assert.equal(inert("caf\u00e9 \u65e5\u672c \u{1F600}"), "caf\u00e9 \u65e5\u672c \u{1F600}");
  assert.equal(inert("\ud800x"), "\ufffdx");
});

Deno.test("markInvisible() marks tag characters, zero-width, bidi and variation selectors", () => {
  assert.equal(markInvisible("a\u{E0041}b"), "a[U+E0041]b");
  assert.equal(markInvisible("a\u200bb\u202ec\uFE0F"), "a[U+200B]b[U+202E]c[U+FE0F]");
  assert.equal(markInvisible("plain text, caf\u00e9"), "plain text, caf\u00e9");
});
