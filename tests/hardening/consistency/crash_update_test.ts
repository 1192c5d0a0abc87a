/**
 * Crash consistency, the update phase: `skills update` SIGKILLed at 18 random points, each
 * after a new commit upstream (the add and remove phases are crash_add_test.ts and
 * crash_remove_test.ts; tests/helpers/crash.ts says what each run asserts).
 */

import assert from "node:assert/strict";
import {
  assertFinallyConsistent,
  assertRecovers,
  CRASH_NAMES,
  crashCli,
  crashWorkspace,
  ensureInstalled,
  killDuring,
  RUNS_PER_PHASE,
  timed,
} from "../../helpers/crash.ts";
import { tempDir } from "../../helpers/cli.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test(
  "SIGKILL at random points during update never leaves an inconsistent home",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir();
    const ws = await crashWorkspace(dir.path, "update");
    await crashCli(ws, ["add", ws.repo.url, "--skill", CRASH_NAMES[0]!, "--yes"]);
    await ws.repo.commit({ [`skills/${CRASH_NAMES[0]}/extra.md`]: "v2\n" });
    const updateTime = await timed(() => crashCli(ws, ["update", CRASH_NAMES[0]!, "--yes"]));
    let runs = 0;
    for (let i = 0; i < RUNS_PER_PHASE; i++) {
      const name = CRASH_NAMES[i % CRASH_NAMES.length]!;
      await ensureInstalled(ws, name);
      await ws.repo.commit({ [`skills/${name}/notes-${i}.md`]: `update ${i}\n` });
      await killDuring(ws, ["update", name, "--yes"], updateTime * ws.random() * 1.1);
      await assertRecovers(ws, `update run ${i}`);
      runs++;
    }
    assert.equal(runs, RUNS_PER_PHASE);
    // The single test asked 5 of 54 kills to land mid-change: add 3, update 2 (see crash.ts).
    console.log(`update: ${ws.interrupted} of ${runs} kills landed mid-change`);
    assert.ok(ws.interrupted >= 2, `only ${ws.interrupted} kills landed mid-change`);
    await assertFinallyConsistent(ws);
  },
);
