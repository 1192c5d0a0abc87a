/**
 * `skills add --project` SIGKILLed at random points: afterwards the next project command
 * (which first rolls back what the dead one left) finds the lockfile and the folders of
 * `.agents/skills` in agreement — every locked skill in place with its locked files, no
 * folder the lockfile does not record — and the lockfile always parses (never torn).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, multiSkillFiles } from "../../fixtures/git_repos.ts";
import { killAfter, spawnCli } from "../../helpers/cli.ts";
import { project } from "../../helpers/project.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { parseLockfileText } from "../../../src/core/records/lockfile.ts";

const RUNS = 12;
const NAMES = Array.from({ length: 6 }, (_, i) => `crash-${i}`);

Deno.test("SIGKILL during add --project never leaves the lockfile and .agents/skills disagreeing", {
  ignore: SKIP_SLOW,
}, async () => {
  let interrupted = 0;
  for (let run = 0; run < RUNS; run++) {
    await using p = await project();
    const repo = await createRepo(p.dir, "upstream", multiSkillFiles(NAMES));
    const child = spawnCli(["add", repo.url, "--project", "--skill", "*", "--yes"], {
      cwd: p.root,
      env: { SKILLS_HOME: p.home, HOME: p.dir, GIT_CONFIG_GLOBAL: "/dev/null" },
      stdout: "null",
      stderr: "null",
    });
    await killAfter(child, 80 + Math.floor(Math.random() * 420));
    const staging = join(p.root, ".agents", ".staging");
    if (await Deno.stat(staging).catch(() => null)) interrupted++;
    const lockText = await Deno.readTextFile(join(p.root, "skills-lock.json")).catch(() => null);
    if (lockText !== null) assert.ok(parseLockfileText(lockText).ok, `run ${run}: torn lockfile`);

    const folders = async () =>
      (await Array.fromAsync(Deno.readDir(join(p.root, ".agents", "skills"))).catch(() => []))
        .map((e) => e.name).sort();
    if (lockText === null) {
      // Nothing committed: the next project command leaves no skill folder behind.
      await p.cli(["install", "--frozen"]);
      assert.deepEqual(await folders(), [], `run ${run}: folders without a lockfile`);
      continue;
    }
    const verify = await p.cli(["install", "--frozen", "--json"]);
    assert.equal(verify.code, 0, `run ${run}: ${verify.stdout}${verify.stderr}`);
    const doc = JSON.parse(verify.stdout);
    assert.deepEqual(doc.restored, [], `run ${run}: a locked skill was missing`);
    assert.deepEqual(await folders(), Object.keys((await p.lock()).skills).sort());
    // What stays in staging is at most a folder killed before it had an owner (cleared once
    // its grace period is over): never a journal that was not acted on.
    for (const entry of await Array.fromAsync(Deno.readDir(staging)).catch(() => [])) {
      for (const file of ["journal.json", "project-intent.json"]) {
        const journal = join(staging, entry.name, file);
        assert.equal(await Deno.stat(journal).catch(() => null), null, `run ${run}: ${entry.name}`);
      }
    }
  }
  console.log(`${interrupted} of ${RUNS} kills landed mid-change`);
});
