/**
 * Start-up stays lazy with a generated registry: `deno run src/main.ts` sees no command
 * module (they are imported by computed paths, see cli/registry/command_table.ts), `skills list` loads only
 * its own command and spec, and src/binary.ts (the bundle's and the binary's entry) sees
 * every one, so both artifacts embed them all.
 */

import assert from "node:assert/strict";
import { SPECS } from "../../src/cli/specs/all.ts";
import { localGraph } from "../helpers/module_graph.ts";

const commandFiles = (files: string[]) =>
  files.filter((f) => /^src\/cli\/(commands|specs)\//.test(f)).sort();

Deno.test("skills --version and skills list load no other command's module", async () => {
  assert.deepEqual(commandFiles(await localGraph("src/main.ts")), []);
  assert.deepEqual(commandFiles(await localGraph("src/cli/commands/list.ts")), [
    "src/cli/commands/list.ts",
    "src/cli/specs/list.ts",
  ]);
});

Deno.test("the bundle's and binary's entry embeds every command", async () => {
  const files = await localGraph("src/binary.ts");
  for (const spec of SPECS) {
    assert.ok(files.includes(`src/cli/commands/${spec.name}.ts`), spec.name);
  }
});
