/** `deno task test:quick` skips the slow tests locally, never in CI. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.ts";
import { skipsSlowTests } from "./quick.ts";

Deno.test("skipsSlowTests() holds for SKILLS_TEST_QUICK=1 only, and never where CI is set", () => {
  assert.equal(skipsSlowTests({}), false);
  assert.equal(skipsSlowTests({ SKILLS_TEST_QUICK: "1" }), true);
  assert.equal(skipsSlowTests({ SKILLS_TEST_QUICK: "" }), false);
  assert.equal(skipsSlowTests({ SKILLS_TEST_QUICK: "1", CI: "true" }), false);
  assert.equal(skipsSlowTests({ SKILLS_TEST_QUICK: "1", CI: "1" }), false);
  assert.equal(skipsSlowTests({ SKILLS_TEST_QUICK: "1", CI: "" }), true);
});

Deno.test("deno task test:quick refuses to run where CI is set", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", join(REPO_ROOT, "deno.json"), "test:quick"],
    env: { CI: "true", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 1, stderr);
  assert.match(stderr, /test:quick is for local runs/);
  assert.equal(new TextDecoder().decode(output.stdout), "", "no test ran");
});
