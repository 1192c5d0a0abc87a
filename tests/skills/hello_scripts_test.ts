/** Runs the hello-extended advanced_greeting.py script with plain python3. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runPython } from "../helpers/python.ts";
import { SKIP_SLOW } from "../helpers/quick.ts";

const SCRIPT = fileURLToPath(
  new URL("../../skills/core/hello-extended/scripts/advanced_greeting.py", import.meta.url),
);

function greet(...args: string[]) {
  return runPython([SCRIPT, ...args]);
}

Deno.test("advanced_greeting.py --help shows usage and exits 0", async () => {
  const run = await greet("--help");
  assert.equal(run.code, 0);
  assert.match(run.stdout, /usage/i);
  assert.match(run.stdout, /--style \{casual,enthusiastic,formal\}/);
});

Deno.test("advanced_greeting.py greets in each style", async () => {
  const expected: Record<string, string> = {
    formal: "Good day, Ada. It is a pleasure to make your acquaintance.\n",
    casual: "Hey, Ada! How's it going?\n",
    enthusiastic: "Hello, Ada!!! It is AMAZING to see you!\n",
  };
  for (const [style, text] of Object.entries(expected)) {
    const run = await greet("--name", "Ada", "--style", style);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, text);
  }
  assert.equal((await greet("--name", "Ada")).stdout, expected.casual, "casual is the default");
});

Deno.test("advanced_greeting.py --json prints exactly the documented object", async () => {
  const run = await greet("--name", "Grace", "--style", "formal", "--json");
  assert.equal(run.code, 0);
  assert.deepEqual(JSON.parse(run.stdout), {
    greeting: "Good day, Grace. It is a pleasure to make your acquaintance.",
    name: "Grace",
    style: "formal",
    time_aware: false,
  });
});

Deno.test("advanced_greeting.py --time-aware picks the salutation from the hour", {
  ignore: SKIP_SLOW,
}, async () => {
  const cases: [string, string][] = [["8", "morning"], ["13", "afternoon"], ["21", "evening"], [
    "3",
    "evening",
  ]];
  for (const [hour, period] of cases) {
    const run = await greet("--name", "Ada", "--time-aware", "--hour", hour, "--json");
    const body = JSON.parse(run.stdout);
    assert.equal(body.greeting, `Good ${period}, Ada! How's it going?`);
    assert.equal(body.time_aware, true);
  }
  const now = JSON.parse((await greet("--name", "Ada", "--time-aware", "--json")).stdout);
  assert.match(now.greeting, /^Good (morning|afternoon|evening), Ada/);
});

Deno.test("advanced_greeting.py fails without --name", async () => {
  const run = await greet("--style", "formal");
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /--name/);
  const json = await greet("--json");
  assert.notEqual(json.code, 0);
  assert.match(JSON.parse(json.stdout).error, /--name/);
});

Deno.test("advanced_greeting.py rejects a blank name and an unknown style", async () => {
  const blank = await greet("--name", "  ", "--json");
  assert.equal(blank.code, 1);
  assert.deepEqual(JSON.parse(blank.stdout), { error: "--name must not be empty" });
  const style = await greet("--name", "Ada", "--style", "rude");
  assert.notEqual(style.code, 0);
  assert.match(style.stderr, /invalid choice/);
});
