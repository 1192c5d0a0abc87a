import assert from "node:assert/strict";
import {
  compactReceipt,
  ReceiptCollector,
  receiptLine,
} from "../../../src/runtime/exec/receipt.ts";

const collector = () =>
  new ReceiptCollector({
    skill: "demo",
    script: "build",
    digest: null,
    sandbox: "bubblewrap",
    env: ["PATH", "HOME"],
    workspace: { writable: true },
  }, undefined);

Deno.test("a receipt for a model leaves out what is empty, and keeps what happened", () => {
  const quiet = compactReceipt(collector().finish(0, 12, undefined));
  assert.deepEqual(quiet, {
    skill: "demo",
    script: "build",
    digest: null,
    sandbox: "bubblewrap",
    env: ["HOME", "PATH"],
    exit_code: 0,
    duration_ms: 12,
    workspace: { writable: true },
  });
  const busy = collector();
  busy.denied("evil.example:443", "not in the skill's permissions.network");
  const receipt = busy.finish(1, 40, {
    created: ["out.zip"],
    changed: [],
    deleted: [],
    quarantined: [],
    incomplete: false,
  });
  const compact = compactReceipt(receipt) as {
    files: Record<string, unknown>;
    network: Record<string, unknown>;
  };
  assert.deepEqual(compact.files, {
    created: ["out.zip"],
    counts: { created: 1, changed: 0, deleted: 0 },
  });
  assert.deepEqual(compact.network, {
    refused: [{ target: "evil.example:443", reason: "not in the skill's permissions.network" }],
  });
  assert.equal(
    receiptLine(receipt),
    "receipt: demo/build exit 1 in 40 ms; 1 created (out.zip); refused evil.example:443",
  );
});
