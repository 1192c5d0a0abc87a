/**
 * The TypeScript examples in README.md and docs/ type-check against this checkout: each block
 * is written beside the tests (so deno.json's import map applies, `./mod.ts` meaning the
 * library entry) and given to `deno check`. A renamed option in mod.ts breaks this test
 * before it breaks a reader's program.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../helpers/cli.ts";
import { documents, fencedBlocks } from "./markdown.ts";

for (const doc of documents()) {
  const blocks = fencedBlocks(Deno.readTextFileSync(join(REPO_ROOT, doc)))
    .filter((b) => b.lang === "ts" || b.lang === "typescript");
  if (blocks.length === 0) continue;
  Deno.test(`${doc}: every TypeScript example type-checks`, async () => {
    const dir = await Deno.makeTempDir({ dir: join(REPO_ROOT, "tests", "docs"), prefix: ".ts-" });
    try {
      const files = blocks.map((block) => {
        const file = join(dir, `${doc.replaceAll("/", "_")}_${block.line}.ts`);
        const entry = pathToFileURL(join(REPO_ROOT, "mod.ts")).href;
        Deno.writeTextFileSync(file, block.lines.join("\n").replaceAll('"./mod.ts"', `"${entry}"`));
        return file;
      });
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["check", "--quiet", ...files],
        cwd: REPO_ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(out.success, `${doc}:\n${new TextDecoder().decode(out.stderr)}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
