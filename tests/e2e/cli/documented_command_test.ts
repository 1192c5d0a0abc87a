/**
 * docs/setup.md's command for running the bundle is the one users copy: with it, a machine
 * without uv must not get Deno's "Failed to resolve 'uv' for allow-run" on every call.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, BUNDLE_FLAGS, cliEntry, REPO_ROOT, tempDir } from "../../helpers/cli.ts";

Deno.test("docs/setup.md's bundle command runs silently where uv is not installed", async () => {
  const readme = await Deno.readTextFile(join(REPO_ROOT, "docs", "setup.md"));
  const documented = /`deno run ((?:--[a-z0-9-]+(?:=[^\s`]+)? )+)dist\/skills\.js`/.exec(readme);
  assert.ok(documented, "docs/setup.md documents how to run dist/skills.js");
  const flags = documented[1]!.trim().split(" ");
  assert.deepEqual(flags, BUNDLE_FLAGS, "the tests run the artifact exactly as documented");

  await using bin = await tempDir();
  // A PATH with git and python3 but no uv, as on a fresh machine.
  for (const tool of ["git", "python3"]) {
    const found = await new Deno.Command("sh", { args: ["-c", `command -v ${tool}`] }).output();
    const target = new TextDecoder().decode(found.stdout).trim();
    await Deno.symlink(target, join(bin.path, tool));
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, cliEntry(), "--version"],
    env: baseEnv({ PATH: bin.path }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0);
  assert.equal(new TextDecoder().decode(output.stderr), "");
  assert.match(new TextDecoder().decode(output.stdout), /^skills \d+\.\d+\.\d+/);
});
