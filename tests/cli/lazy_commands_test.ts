/**
 * Start-up stays lazy with a generated registry: `deno run src/main.ts` sees no command
 * module (they are imported by computed paths, see cli/command_table/command_table.ts), `skills list` loads only
 * its own command and spec, and src/binary.ts (the bundle's and the binary's entry) sees
 * every one, so both artifacts embed them all.
 */

import assert from "node:assert/strict";
import { SPECS } from "../../src/cli/specs/all.ts";
import { localGraph, staticLocalGraph } from "../helpers/module_graph.ts";

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

Deno.test("the audit engine loads when a skill is audited, not when a command starts", async () => {
  // Its flow analysis is most of the audit's code (~45 ms to load from the sources): `add
  // --list`, `remove` and an `install` with nothing to fetch never audit.
  for (const command of ["add", "install", "remove", "trust", "lint", "check", "run"]) {
    const files = await staticLocalGraph(`src/cli/commands/${command}.ts`);
    assert.ok(files.includes(`src/cli/commands/${command}.ts`), command);
    assert.ok(!files.includes("src/core/audit/engine.ts"), `${command} loads the engine at start`);
  }
});
