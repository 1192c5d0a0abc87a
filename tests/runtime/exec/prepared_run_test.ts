/**
 * What a run costs the user's project before it starts (issue 46): in the OS sandbox the
 * workspace is not walked by the run's preparation — the sandbox's own secret search is the
 * one pass over it, and the diff comes from the overlay — while policy mode still takes the
 * walk its receipt compares with the one after the run.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { prepareRun } from "../../../src/runtime/exec/script_service.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

/** Counts the listings of folders under `root` while `body` runs. */
async function listingsUnder(root: string, body: () => Promise<unknown>): Promise<number> {
  const original = Deno.readDirSync;
  let count = 0;
  Deno.readDirSync = (path: string | URL) => {
    if (String(path).startsWith(root)) count++;
    return original(path);
  };
  try {
    await body();
  } finally {
    Deno.readDirSync = original;
  }
  return count;
}

async function project(root: string): Promise<void> {
  for (let d = 0; d < 5; d++) {
    await Deno.mkdir(join(root, `pkg${d}`, "src"), { recursive: true });
    await Deno.writeTextFile(join(root, `pkg${d}`, "src", "a.ts"), "export {};\n");
  }
}

for (const [mode, walks] of [["required", false], ["off", true]] as const) {
  Deno.test({
    name: `prepareRun() in ${
      mode === "off" ? "policy mode walks" : "the OS sandbox does not walk"
    } a writable workspace before the run`,
    ...(mode === "required" ? needsSandbox : {}),
    async fn() {
      await using home = await tempDir();
      await using work = await tempDir();
      await installRunnerSkill(home.path, "runner-lab");
      await project(work.path);
      const catalog = await loadCatalog(home.path);
      const deps = {
        home: home.path,
        cwd: work.path,
        env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", SKILLS_SANDBOX: mode },
        warn: () => {},
      };
      let prepared: Awaited<ReturnType<typeof prepareRun>> | undefined;
      const listed = await listingsUnder(work.path, async () => {
        prepared = await prepareRun(catalog, "hello-extended", "advanced_greeting", [], deps);
      });
      assert.equal(prepared!.sandbox === undefined, mode === "off");
      assert.equal(prepared!.receipt.scan !== undefined, walks);
      if (walks) assert.ok(listed >= 11, `the walk lists every folder (${listed})`);
      else assert.equal(listed, 0, "no folder of the workspace listed before the launch");
    },
  });
}
