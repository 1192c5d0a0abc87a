import assert from "node:assert/strict";
import { FrontMatterError, loadFrontMatterYaml } from "../../../src/core/manifest/frontmatter.ts";

/** The SKILL.md line a front matter error is reported on (front matter starts on line 2). */
async function errorLine(yaml: string): Promise<number | undefined> {
  try {
    await loadFrontMatterYaml(yaml, 2);
  } catch (error) {
    assert.ok(error instanceof FrontMatterError, String(error));
    return error.line;
  }
  assert.fail("expected a front matter error");
}

Deno.test("a malformed flow mapping is reported on the line that opens it", async () => {
  // SKILL.md lines: 1 `---`, 2 name, 3 description, 4 metadata.
  assert.equal(await errorLine("name: x\ndescription: y\nmetadata: {a: 1, b\n"), 4);
  assert.equal(await errorLine("name: x\ndescription: y\nmetadata: {a: 1\nlicense: mit\n"), 4);
  assert.equal(
    await errorLine("name: x\nmetadata: {a: 1,\n  b: [2, 3],\n  c: 'x}'\nlicense: mit\n"),
    3,
  );
  // An error inside one line keeps js-yaml's own position.
  assert.equal(await errorLine("name: x\nmetadata: {a: 1, b: [2}\ndescription: y\n"), 3);
});
