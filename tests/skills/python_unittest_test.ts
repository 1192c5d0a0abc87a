/** Runs the stdlib-only Python unit tests (tests/python) under `deno test`. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runPython } from "../helpers/python.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("python unit tests for the bundled skills pass", async () => {
  const output = await runPython(["-m", "unittest", "discover", "-s", "tests/python", "-t", "."], {
    cwd: ROOT,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
  });
  const report = output.stderr;
  assert.equal(output.code, 0, report);
  assert.match(report, /Ran [1-9]\d* tests?/);
  assert.match(report, /\nOK/);
});
