import assert from "node:assert/strict";
import { refusedConnectionHint } from "../../../src/runtime/exec/prepared_run.ts";
import type { RunReceipt } from "../../../src/runtime/exec/receipt.ts";

function receipt(refused: { target: string; reason: string }[]): RunReceipt {
  return { network: { connected: [], refused } } as unknown as RunReceipt;
}

Deno.test("refusedConnectionHint() names the grant that would work, never the one just refused", () => {
  const metadata = refusedConnectionHint(receipt([{
    target: "meta.corp:80",
    reason:
      "resolves to 169.254.169.254, which is not a public address but a link-local or cloud metadata one: only a grant naming that address reaches it (--allow-net 169.254.169.254:80)",
  }]))!;
  assert.match(
    metadata,
    /run it with --allow-net 169\.254\.169\.254:80 or set SKILLS_ALLOW_NET=169\.254\.169\.254:80$/,
  );
  assert.doesNotMatch(metadata, /--allow-net meta\.corp/);
  const plain = refusedConnectionHint(receipt([{
    target: "api.example.com:443",
    reason: "not in the skill's permissions.network",
  }]))!;
  assert.match(
    plain,
    /run it with --allow-net api\.example\.com:443 or set SKILLS_ALLOW_NET=api\.example\.com:443$/,
  );
  assert.equal(refusedConnectionHint(receipt([])), undefined);
});
