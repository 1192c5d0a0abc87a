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

Deno.test("a receipt for a model carries only what changed, and nothing after a quiet run", () => {
  assert.equal(compactReceipt(collector().finish(0, 12, undefined)), undefined);
  const busy = collector();
  busy.denied("evil.example:443", "not in the skill's permissions.network");
  const receipt = busy.finish(1, 40, {
    created: ["out.zip"],
    changed: [],
    deleted: [],
    quarantined: [],
    incomplete: false,
  });
  assert.deepEqual(compactReceipt(receipt), {
    files: { created: ["out.zip"] },
    network: {
      refused: [{ target: "evil.example:443", reason: "not in the skill's permissions.network" }],
    },
  });
  assert.equal(
    receiptLine(receipt),
    "receipt: demo/build exit 1 in 40 ms; 1 created (out.zip); refused evil.example:443",
  );
});
