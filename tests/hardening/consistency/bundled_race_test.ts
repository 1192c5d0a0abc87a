/**
 * The first commands on a fresh home all write the bundled skills out at once: each into
 * its own staging folder, one rename wins, and nobody removes a complete copy another
 * process has just put in place.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";

Deno.test("twelve first commands on a fresh home materialise the bundled skills without crashing", async () => {
  for (let round = 0; round < 3; round++) {
    await using dir = await tempDir();
    const env = { SKILLS_HOME: join(dir.path, "home") };
    const results = await Promise.all(
      Array.from({ length: 12 }, () => runCli(["list", "--json"], { env })),
    );
    for (const result of results) {
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.doesNotMatch(result.stdout + result.stderr, /Unexpected error/);
      const names = JSON.parse(result.stdout).skills.map((s: { name: string }) => s.name);
      assert.ok(names.includes("kalshi-markets") && names.includes("hello-extended"), names);
    }
  }
});
