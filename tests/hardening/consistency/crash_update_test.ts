/**
 * Crash consistency, the update phase: `skills update` SIGKILLed at 18 random points, each
 * after a new commit upstream (the add and remove phases are crash_add_test.ts and
 * crash_remove_test.ts; tests/helpers/crash.ts says what each run asserts).
 */

import { crashPhaseTest, ensureInstalled } from "../../helpers/crash.ts";

crashPhaseTest({
  phase: "update",
  beforeMeasure: (ws, first) => ws.repo.commit({ [`skills/${first}/extra.md`]: "v2\n" }),
  prepare: async (ws, name, i) => {
    await ensureInstalled(ws, name);
    await ws.repo.commit({ [`skills/${name}/notes-${i}.md`]: `update ${i}\n` });
  },
  command: (_ws, name) => ["update", name, "--yes"],
  minInterrupted: 2,
});
