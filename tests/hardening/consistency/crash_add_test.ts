/**
 * Crash consistency, the add phase: `skills add` SIGKILLed at 18 random points (the update
 * and remove phases are crash_update_test.ts and crash_remove_test.ts; tests/helpers/crash.ts
 * says what each run asserts).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertFinallyConsistent,
  assertRecovers,
  CRASH_NAMES,
  crashCli,
  crashWorkspace,
  killDuring,
  RUNS_PER_PHASE,
  timed,
} from "../../helpers/crash.ts";
import { exists } from "../../helpers/wait.ts";
import { tempDir } from "../../helpers/cli.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test(
  "SIGKILL at random points during add never leaves an inconsistent home",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir();
    const ws = await crashWorkspace(dir.path, "add");
    const addTime = await timed(() =>
      crashCli(ws, ["add", ws.repo.url, "--skill", CRASH_NAMES[0]!, "--yes"])
    );
    let runs = 0;
    for (let i = 0; i < RUNS_PER_PHASE; i++) {
      const name = CRASH_NAMES[i % CRASH_NAMES.length]!;
      if (await exists(join(ws.home, name))) await crashCli(ws, ["remove", name, "--yes"]);
      await killDuring(
        ws,
        ["add", ws.repo.url, "--skill", name, "--yes"],
        addTime * ws.random() * 1.1,
      );
      await assertRecovers(ws, `add run ${i}`);
      runs++;
    }
    assert.equal(runs, RUNS_PER_PHASE);
    // The single test asked 5 of 54 kills to land mid-change: add 3, update 2 (see crash.ts).
    console.log(`add: ${ws.interrupted} of ${runs} kills landed mid-change`);
    assert.ok(ws.interrupted >= 3, `only ${ws.interrupted} kills landed mid-change`);
    await assertFinallyConsistent(ws);
  },
);
