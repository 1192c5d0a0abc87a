/**
 * One set of runtime flags everywhere: the `skills` task, the `compile` task (baked into
 * the binary), docs/setup.md's `deno install` line and the end-to-end tests (which therefore
 * prove the binary's flags): the same permissions, and the same V8 flags.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { allowedPrograms } from "../../src/core/scripts/script_language.ts";
import { CLI_FLAGS, isRuntimeFlag, REPO_ROOT } from "../helpers/cli.ts";

function runtimeFlags(command: string): string[] {
  return command.split(/\s+/).filter(isRuntimeFlag).sort();
}

Deno.test("the skills task, the compile task, the install line and the e2e tests carry the same flags", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const expected = CLI_FLAGS.filter(isRuntimeFlag).sort();
  assert.deepEqual(runtimeFlags(config.tasks.skills.command), expected);
  assert.deepEqual(runtimeFlags(config.tasks.compile.command), expected);
  const setup = await Deno.readTextFile(join(REPO_ROOT, "docs", "setup.md"));
  const install = /^deno install (?:[^\n]*\\\n)*[^\n]*/m.exec(setup);
  assert.ok(install, "docs/setup.md has a deno install line");
  assert.deepEqual(runtimeFlags(install[0].replaceAll("\\\n", " ")), expected);
  assert.ok(!expected.includes("--allow-all") && !expected.includes("--allow-run"), "narrow flags");
  assert.ok(expected.includes(`--allow-run=${allowedPrograms().join(",")}`));
  assert.ok(
    expected.includes("--v8-flags=--no-regexp-tier-up"),
    "the audit's patterns compiled once (docs/setup.md, The binary)",
  );
});
