/**
 * Start-up stays lazy with a generated registry: `deno run src/main.ts` sees no command
 * module (they are imported by computed paths, see commands.ts), `skills list` loads only
 * its own command and spec, and src/binary.ts (the bundle's and the binary's entry) sees
 * every one, so both artifacts embed them all.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { SPECS } from "../../src/cli/specs/all.ts";
import { REPO_ROOT } from "../helpers/cli.ts";

/** The repository files in the static module graph of `entry` (as `deno info` walks it). */
async function localGraph(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", join(REPO_ROOT, entry)],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  return graph.modules.map((m) => m.specifier).filter((s) => s.startsWith("file://"))
    .map((s) => s.slice(`file://${REPO_ROOT}/`.length));
}

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
