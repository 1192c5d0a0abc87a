/**
 * One set of permission flags everywhere: the `skills` task, the `compile` task (baked
 * into the binary) and the end-to-end tests (which therefore prove the binary's flags).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { allowedPrograms } from "../../src/core/scripts/script_language.ts";
import { CLI_FLAGS, REPO_ROOT } from "../helpers/cli.ts";

function permissionFlags(command: string): string[] {
  return command.split(/\s+/).filter((part) => part.startsWith("--allow-")).sort();
}

Deno.test("the skills task, the compile task and the e2e tests carry the same permissions", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const expected = CLI_FLAGS.filter((f) => f.startsWith("--allow-")).sort();
  assert.deepEqual(permissionFlags(config.tasks.skills.command), expected);
  assert.deepEqual(permissionFlags(config.tasks.compile.command), expected);
  assert.ok(!expected.includes("--allow-all") && !expected.includes("--allow-run"), "narrow flags");
  assert.ok(expected.includes(`--allow-run=${allowedPrograms().join(",")}`));
});
