/** The shared deadline of every polling loop in the tests. */
import assert from "node:assert/strict";
import { waitFor, WaitTimeout } from "./wait.ts";

Deno.test("waitFor() returns the predicate's first truthy value", async () => {
  let calls = 0;
  const value = await waitFor(() => ++calls >= 3 && `after ${calls}`, {
    what: "the third call",
    intervalMs: 1,
  });
  assert.equal(value, "after 3");
});

Deno.test("waitFor() gives up at its deadline, naming what it waited for", async () => {
  const started = performance.now();
  await assert.rejects(
    () =>
      waitFor(() => false, {
        what: "a pid file that never appears",
        timeoutMs: 100,
        detail: () => "output so far: nothing",
      }),
    (error: unknown) => {
      assert.ok(error instanceof WaitTimeout);
      assert.equal(
        error.message,
        "Timed out after 100 ms waiting for a pid file that never appears\noutput so far: nothing",
      );
      return true;
    },
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 100 && elapsed < 2_000, `took ${elapsed} ms`);
});
