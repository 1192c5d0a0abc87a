/**
 * Crash consistency, the remove phase: `skills remove` SIGKILLed at 18 random points (the
 * add and update phases are crash_add_test.ts and crash_update_test.ts;
 * tests/helpers/crash.ts says what each run asserts).
 */

import { crashPhaseTest, ensureInstalled } from "../../helpers/crash.ts";

crashPhaseTest({
  phase: "remove",
  prepare: (ws, name) => ensureInstalled(ws, name),
  command: (_ws, name) => ["remove", name, "--yes"],
  // Remove is short: about 1 kill in 18 lands inside it (add and update carry the 5).
  minInterrupted: 0,
});
