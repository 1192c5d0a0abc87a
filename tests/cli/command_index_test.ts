/**
 * The command registry (src/cli/specs/all.ts, registry/command_index.ts, commands/all.ts) is
 * generated from the spec files by scripts/gen_commands.ts: start-up reads the names,
 * aliases and summaries of command_index.ts instead of loading every spec. These tests fail
 * when a file is stale (`deno task gen` rewrites them) and show the generator refusing a
 * spec without its command module.
 */

import { join } from "node:path";
import { COMMAND_INDEX } from "../../src/cli/registry/command_index.ts";
import { COMMAND_MODULES } from "../../src/cli/commands/all.ts";
import { SPECS } from "../../src/cli/specs/all.ts";
import { findSpecs, renderRegistry } from "../../scripts/gen_commands.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import assert from "node:assert/strict";

Deno.test("the generated registry is what the spec files say", async () => {
  for (const [path, text] of await renderRegistry()) {
    assert.equal(
      Deno.readTextFileSync(join(REPO_ROOT, path)),
      text,
      `${path} is stale: run \`deno task gen\``,
    );
  }
  assert.deepEqual(
    COMMAND_INDEX,
    SPECS.map((s) => ({ name: s.name, aliases: s.aliases ?? [], summary: s.summary })),
  );
  assert.deepEqual(Object.keys(COMMAND_MODULES), SPECS.map((s) => s.name));
});

Deno.test("a spec file without its command module is refused by the generator", async () => {
  const cli = Deno.makeTempDirSync();
  try {
    Deno.mkdirSync(join(cli, "specs"));
    Deno.mkdirSync(join(cli, "commands"));
    const specOf = (name: string, order: number) =>
      `export const ${name}Spec = { name: "${name}", order: ${order}, summary: "s", usage: [], ` +
      `description: "", flags: {}, positionals: [] };\n`;
    Deno.writeTextFileSync(join(cli, "specs", "hello.ts"), specOf("hello", 1));
    Deno.writeTextFileSync(join(cli, "commands", "hello.ts"), "export {};\n");
    assert.deepEqual((await findSpecs(cli)).map((f) => f.spec.name), ["hello"]);

    Deno.writeTextFileSync(join(cli, "specs", "orphan.ts"), specOf("orphan", 2));
    await assert.rejects(() => findSpecs(cli), /orphan\.ts has no command module/);
    Deno.writeTextFileSync(join(cli, "commands", "orphan.ts"), "export {};\n");
    Deno.writeTextFileSync(
      join(cli, "specs", "misnamed.ts"),
      specOf("other", 3).replace("otherSpec", "misnamedSpec"),
    );
    Deno.writeTextFileSync(join(cli, "commands", "misnamed.ts"), "export {};\n");
    await assert.rejects(() => findSpecs(cli), /misnamed\.ts declares the command 'other'/);
  } finally {
    Deno.removeSync(cli, { recursive: true });
  }
});
