/**
 * The `--help` text of every command and the top-level help, as the real CLI prints them,
 * against the committed files in help_snapshots/ (rewrite with UPDATE_SNAPSHOTS=1).
 * docs/reference.md holds the same texts (tests/docs/reference_test.ts, same variable).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/registry/command_table.ts";
import { VERSION } from "../../src/core/version.ts";
import { runCli } from "../helpers/cli.ts";
import { assertSnapshot } from "../helpers/snapshot.ts";

const DIR = join(import.meta.dirname!, "help_snapshots");

/** The version changes with every release; the snapshot should not. */
const withoutVersion = (text: string) => text.replaceAll(`skills ${VERSION}`, "skills <version>");

Deno.test("skills --help matches its snapshot", async () => {
  const result = await runCli(["--help"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  await assertSnapshot(join(DIR, "_top_level.txt"), withoutVersion(result.stdout));
});

for (const name of Object.keys(COMMANDS)) {
  Deno.test(`skills ${name} --help matches its snapshot`, async () => {
    const result = await runCli([name, "--help"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    await assertSnapshot(join(DIR, `${name}.txt`), withoutVersion(result.stdout));
  });
}
