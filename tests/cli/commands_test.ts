import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/registry/command_table.ts";
import { COMMAND_MODULES } from "../../src/cli/commands/all.ts";

// The bundle and the binary load commands only through COMMAND_MODULES: a command missing
// there would exist under `deno run` and fail in the shipped artifact.
Deno.test("the artifact's literal command imports cover exactly the command table", async () => {
  assert.deepEqual(Object.keys(COMMAND_MODULES).sort(), Object.keys(COMMANDS).sort());
  for (const [name, load] of Object.entries(COMMAND_MODULES)) {
    const viaLiteral = await load();
    const viaTable = await COMMANDS[name]!.load();
    assert.equal(viaLiteral, viaTable, `${name}: both paths load the same module`);
    assert.match(viaLiteral.help, new RegExp(`skills ${name}\\b`), `${name} has its help`);
    assert.equal(typeof viaLiteral.parse, "function");
    assert.equal(typeof viaLiteral.run, "function");
  }
});
