/** Runs the stdlib-only Python unit tests (tests/python) under `deno test`. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("python unit tests for the bundled skills pass", async () => {
  const output = await new Deno.Command("python3", {
    args: ["-m", "unittest", "discover", "-s", "tests/python", "-t", "."],
    cwd: ROOT,
    env: { PATH: Deno.env.get("PATH") ?? "", PYTHONDONTWRITEBYTECODE: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const report = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, report);
  assert.match(report, /Ran [1-9]\d* tests?/);
  assert.match(report, /\nOK/);
});
