/**
 * The committed copies of the tables (scripts/gen_reference.ts, run by `deno task gen`):
 * docs/reference.md from the command specs, so it says exactly what `--help` says; the help
 * snapshots; the documents' generated blocks; the `--allow-run` lists. Each test fails while
 * its copy is stale.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  GENERATED_BLOCKS,
  HELP_SNAPSHOTS,
  PROGRAM_LIST_FILES,
  renderHelpSnapshots,
  renderReference,
  withGeneratedBlocks,
  withProgramLists,
} from "../../scripts/gen_reference.ts";
import { SPECS } from "../../src/cli/specs/all.ts";
import { renderHelp } from "../../src/cli/spec.ts";
import { REPO_ROOT } from "../helpers/cli.ts";

Deno.test("docs/reference.md is what scripts/gen_reference.ts makes from the specs", async () => {
  const path = join(REPO_ROOT, "docs", "reference.md");
  const fresh = await renderReference();
  // As with the help snapshots: UPDATE_SNAPSHOTS=1 rewrites it.
  if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") await Deno.writeTextFile(path, fresh);
  const committed = await Deno.readTextFile(path);
  assert.ok(
    committed === fresh,
    "docs/reference.md is stale: run `deno task gen` (or UPDATE_SNAPSHOTS=1 deno test -A tests/docs/reference_test.ts)",
  );
});

Deno.test("docs/reference.md holds every command's --help word for word", async () => {
  const committed = await Deno.readTextFile(join(REPO_ROOT, "docs", "reference.md"));
  for (const spec of SPECS) {
    assert.ok(committed.includes(`## \`skills ${spec.name}\``), spec.name);
    assert.ok(committed.includes(renderHelp(spec).trimEnd()), `${spec.name}'s --help`);
  }
});

Deno.test("the documents' blocks rendered from a table (link's agents, the peer's differences) are fresh", async () => {
  for (const file of new Set(GENERATED_BLOCKS.map((b) => b.file))) {
    const path = join(REPO_ROOT, file);
    const committed = await Deno.readTextFile(path);
    const fresh = await withGeneratedBlocks(file, committed);
    if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") await Deno.writeTextFile(path, fresh);
    assert.ok(committed === fresh, `${file} is stale: run \`deno task gen\``);
  }
});

Deno.test("the help snapshots are each command's --help as deno task gen writes them, and no others", async () => {
  const dir = join(REPO_ROOT, HELP_SNAPSHOTS);
  const fresh = renderHelpSnapshots();
  const committed = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".txt"));
  assert.deepEqual(committed.sort(), [...fresh.keys()].sort(), "run `deno task gen`");
  for (const [name, text] of fresh) {
    assert.ok(
      (await Deno.readTextFile(join(dir, name))) === text,
      `${name}: run \`deno task gen\``,
    );
  }
});

Deno.test("the binary's --allow-run lists in deno.json and docs/setup.md are the script languages' runners", async () => {
  for (const file of PROGRAM_LIST_FILES) {
    const committed = await Deno.readTextFile(join(REPO_ROOT, file));
    assert.match(committed, /--allow-run=/, file);
    const fresh = withProgramLists(file, committed);
    assert.ok(committed === fresh, `${file} is stale: run \`deno task gen\``);
  }
  // A build script's own list is not the binary's: `deno task bundle` may start only deno.
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  assert.match(config.tasks.bundle.command, /--allow-run=deno /);
});
