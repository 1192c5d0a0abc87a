/**
 * docs/reference.md is generated from the command specs (scripts/gen_reference.ts), so it says
 * exactly what `--help` says; this fails when a spec changed and the reference was not rewritten.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  GENERATED_BLOCKS,
  renderReference,
  withGeneratedBlocks,
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
    "docs/reference.md is stale: run `deno task docs:reference` (or UPDATE_SNAPSHOTS=1 deno test -A tests/docs/reference_test.ts)",
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
    assert.ok(committed === fresh, `${file} is stale: run \`deno task docs:reference\``);
  }
});
