/**
 * The secret search keeps folder listings between sandboxed runs (runtime/masks/listing_cache.ts)
 * and reads again only folders whose entries changed: a secret planted deep in a big project
 * after a run, or a file renamed to a secret's name, is still masked on the next run.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setupLab } from "../sandbox/sandbox_helpers.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

Deno.test(
  "a secret planted deep in a big project between two runs is masked: its folder is listed again",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    for (let d = 0; d < 100; d++) {
      const lib = join(lab.callerDir, `pkg${d}`, "src", "lib");
      await Deno.mkdir(lib, { recursive: true });
      for (let f = 0; f < 20; f++) await Deno.writeTextFile(join(lib, `f${f}.ts`), "export {};\n");
    }
    // Listings are kept only of folders unchanged for five seconds before the search.
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    const first = await lab.attempt(["read:pkg77/src/lib/f1.ts"]);
    assert.equal(first["read:pkg77/src/lib/f1.ts"]!.detail, "export {};\n");
    const kept = [...Deno.readDirSync(join(lab.home, ".cache", "listings"))];
    assert.equal(kept.length, 1, "the first run kept the project's listings");
    const keptText = await Deno.readTextFile(join(lab.home, ".cache", "listings", kept[0]!.name));
    assert.ok(keptText.includes('"/pkg77/src/lib"'), "the deep folder's listing is kept");
    await Deno.writeTextFile(join(lab.callerDir, "pkg77/src/lib/.env"), "TOKEN=planted-secret\n");
    await Deno.writeTextFile(join(lab.callerDir, "pkg3/src/lib/f4.ts"), "KEY=renamed-secret\n");
    await Deno.rename(
      join(lab.callerDir, "pkg3/src/lib/f4.ts"),
      join(lab.callerDir, "pkg3/src/lib/id_ed25519"),
    );
    const seen = await lab.attempt(["read:pkg77/src/lib/.env", "read:pkg3/src/lib/id_ed25519"]);
    for (
      const [op, outcome] of Object.entries(seen) as [string, { ok: boolean; detail: string }][]
    ) {
      assert.equal(outcome.ok, false, `${op} was readable: ${outcome.detail}`);
      assert.ok(!outcome.detail.includes("secret"), outcome.detail);
    }
  },
);
