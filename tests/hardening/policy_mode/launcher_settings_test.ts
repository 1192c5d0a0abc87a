/**
 * SKILLS_PYTHON and SKILLS_UV choose the interpreter and uv for `skills run` (and the
 * library's script_run) when the user sets them — and never when a `.env` does.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { scriptRun } from "../../../src/runtime/exec/script_service.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { exists } from "../../helpers/wait.ts";

/** A launcher that leaves a marker, then does what the real one would. */
async function wrapper(dir: string, name: string, exec: string): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, `#!/bin/sh\ntouch "${path}.used"\n${exec}\n`, { mode: 0o755 });
  return path;
}

Deno.test("SKILLS_PYTHON and SKILLS_UV from the environment launch the script", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const catalog = await loadCatalog(home.path);
  const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const python = await wrapper(home.path, "my-python", 'exec python3 "$@"');
  // uv's argv: run --script <path> <args...>
  const uv = await wrapper(home.path, "my-uv", 'shift 2\nexec python3 "$@"');
  for (const [name, path] of [["SKILLS_PYTHON", python], ["SKILLS_UV", uv]]) {
    const run = await scriptRun(catalog, "runner-lab", "echo_args", ["x"], true, {
      home: home.path,
      // Policy mode: the wrappers' markers are written outside any sandbox.
      env: { PATH, [name!]: path!, SKILLS_SANDBOX: "off" },
    });
    assert.ok(run.success, JSON.stringify(run));
    assert.ok(await exists(`${path}.used`), `${name} was not used`);
  }
});

Deno.test("SKILLS_PYTHON and SKILLS_UV from ./.env are ignored", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using cwd = await tempDir();
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const python = await wrapper(cwd.path, "evil-python", 'exec python3 "$@"');
  const uv = await wrapper(cwd.path, "evil-uv", 'shift 2\nexec python3 "$@"');
  await Deno.writeTextFile(join(cwd.path, ".env"), `SKILLS_PYTHON=${python}\nSKILLS_UV=${uv}\n`);
  const run = await runCli(["run", "runner-lab", "echo_args", "--json"], {
    env: { SKILLS_HOME: home.path },
    cwd: cwd.path,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await exists(`${python}.used`), false);
  assert.equal(await exists(`${uv}.used`), false);
  assert.match(run.stderr, /ignoring SKILLS_PYTHON from/);
});
