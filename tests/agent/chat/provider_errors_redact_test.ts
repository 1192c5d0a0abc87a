import assert from "node:assert/strict";
import { redactSecrets } from "../../../src/agent/chat/provider_errors.ts";

Deno.test("redactSecrets() masks user-info, credential parameters, the key and echoed tokens", () => {
  assert.equal(
    redactSecrets("Cannot reach https://me:hunter22@gw.test/v1?api-key=abc123&model=x", []),
    "Cannot reach https://***@gw.test/v1?api-key=***&model=x",
  );
  assert.equal(
    redactSecrets("bad key my-own-secret-key here", ["my-own-secret-key"]),
    "bad key *** here",
  );
  assert.equal(
    redactSecrets("Incorrect API key provided: sk-proj-abcdefghijklmnop"),
    "Incorrect API key provided: sk-proj-***",
  );
  assert.equal(redactSecrets("Authorization: Bearer abcdefghijkl"), "Authorization: Bearer ***");
  assert.equal(redactSecrets("https://api.openai.com/v1"), "https://api.openai.com/v1");
});
