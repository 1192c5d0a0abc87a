/**
 * A fresh checkout type-checks before `deno task gen` has run (the generated modules are
 * git-ignored: their committed declarations stand in for them), and the TypeScript examples
 * in README.md and docs/ type-check against that checkout's library: each block is written
 * beside the tests (so deno.json's import map applies, `./mod.ts` meaning the library entry).
 * A renamed option in mod.ts breaks this test before it breaks a reader's program.
 *
 * One `deno check` for both: the examples import the library, so checking them alone checked
 * most of src/ a second time (~10 s of CPU).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../helpers/cli.ts";
import { denoIn, freshCheckout } from "../helpers/fresh_checkout.ts";
import { documents, fencedBlocks } from "./markdown.ts";

/** Every TypeScript block of the documents: its document, line and text. */
function examples(): { doc: string; line: number; text: string }[] {
  return documents().flatMap((doc) =>
    fencedBlocks(Deno.readTextFileSync(join(REPO_ROOT, doc)))
      .filter((b) => b.lang === "ts" || b.lang === "typescript")
      .map((b) => ({ doc, line: b.line, text: b.lines.join("\n") }))
  );
}

Deno.test("a fresh checkout type-checks before gen, and every TypeScript example of the docs against it", async () => {
  const found = examples();
  assert.ok(found.some((e) => e.doc === "docs/library.md"), "the library guide has examples");
  const dir = await freshCheckout();
  try {
    const folder = join(dir, "tests", "docs", ".ts-examples");
    await Deno.mkdir(folder, { recursive: true });
    const entry = pathToFileURL(join(dir, "mod.ts")).href;
    const files = found.map(({ doc, line, text }) => {
      const file = join(folder, `${doc.replaceAll("/", "_")}_${line}.ts`);
      Deno.writeTextFileSync(file, text.replaceAll('"./mod.ts"', `"${entry}"`));
      return file;
    });
    const checked = await denoIn(dir, ["check", "--quiet", "src/", ...files]);
    // The examples' files are named for their document and line, so a failure says which.
    assert.ok(checked.success, checked.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
