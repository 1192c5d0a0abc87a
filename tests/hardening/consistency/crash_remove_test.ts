/**
 * Crash consistency, the remove phase: `skills remove` SIGKILLed at 18 random points (the
 * add and update phases are crash_add_test.ts and crash_update_test.ts;
 * tests/helpers/crash.ts says what each run asserts).
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
  "SIGKILL at random points during remove never leaves an inconsistent home",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir();
    const ws = await crashWorkspace(dir.path, "remove");
    await crashCli(ws, ["add", ws.repo.url, "--skill", CRASH_NAMES[0]!, "--yes"]);
    const removeTime = await timed(() => crashCli(ws, ["remove", CRASH_NAMES[0]!, "--yes"]));
    let runs = 0;
    for (let i = 0; i < RUNS_PER_PHASE; i++) {
      const name = CRASH_NAMES[i % CRASH_NAMES.length]!;
      await ensureInstalled(ws, name);
      await killDuring(ws, ["remove", name, "--yes"], removeTime * ws.random() * 1.1);
      await assertRecovers(ws, `remove run ${i}`);
      runs++;
    }
    assert.equal(runs, RUNS_PER_PHASE);
    console.log(`remove: ${ws.interrupted} of ${runs} kills landed mid-change`);
    await assertFinallyConsistent(ws);
  },
);
