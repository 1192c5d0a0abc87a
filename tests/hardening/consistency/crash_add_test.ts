/**
 * Crash consistency, the add phase: `skills add` SIGKILLed at 18 random points (the update
 * and remove phases are crash_update_test.ts and crash_remove_test.ts; tests/helpers/crash.ts
 * says what each run asserts).
 */

import { join } from "node:path";
import { crashCli, crashPhaseTest } from "../../helpers/crash.ts";
import { exists } from "../../helpers/wait.ts";

crashPhaseTest({
  phase: "add",
  prepare: async (ws, name) => {
    if (await exists(join(ws.home, name))) await crashCli(ws, ["remove", name, "--yes"]);
  },
  command: (ws, name) => ["add", ws.repo.url, "--skill", name, "--yes"],
  minInterrupted: 3,
});
