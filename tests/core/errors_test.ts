import assert from "node:assert/strict";
import {
  declined,
  ERROR_CODES,
  type ErrorCode,
  exitCodeFor,
  isErrorCode,
  SkillError,
  toolsetErrorCode,
  UsageError,
} from "../../src/core/errors.ts";
import { fail } from "../../src/core/envelope.ts";

Deno.test("exitCodeFor() maps every code to its documented exit status", () => {
  const special: Partial<Record<ErrorCode, number>> = {
    usage: 2,
    invalid_name: 2,
    args_too_large: 2,
    timeout: 124,
    cancelled: 130,
    policy_denied: 20,
    unsigned: 21,
    signature_invalid: 22,
    signer_not_allowed: 23,
    certificate_expired: 24,
    attestation_mismatch: 25,
  };
  for (const code of ERROR_CODES) {
    assert.equal(exitCodeFor(code), special[code] ?? 1, code);
  }
});

Deno.test("SkillError takes its exit status from the table unless the thrower overrides it", () => {
  assert.equal(new SkillError("timeout", "git clone timed out").exitCode, 124);
  assert.equal(new SkillError("cancelled", "Interrupted").exitCode, 130);
  assert.equal(new SkillError("args_too_large", "Too many arguments").exitCode, 2);
  assert.equal(new SkillError("not_found", "x").exitCode, 1);
  assert.equal(new UsageError("Missing skill name").exitCode, 2);
  assert.equal(new SkillError("cancelled", "Terminated", { exitCode: 143 }).exitCode, 143);
  // A declined prompt is `cancelled` for --json readers but exits 1: nothing was interrupted.
  const no = declined("Installation declined; nothing was installed");
  assert.deepEqual([no.code, no.exitCode, no.message], [
    "cancelled",
    1,
    "Installation declined; nothing was installed",
  ]);
});

Deno.test("the ErrorCode union is closed: a misspelt code fails the type check", () => {
  // @ts-expect-error: "tiemout" is not an ErrorCode
  new SkillError("tiemout", "x");
  // @ts-expect-error: envelopes take the same closed set
  fail("not_fund", "x");
  assert.equal(isErrorCode("tiemout"), false);
  assert.equal(isErrorCode("timeout"), true);
});

Deno.test("a toolset's own code passes through envelopes, marked as the toolset's", () => {
  const envelope = fail(toolsetErrorCode("unsupported_language"), "Language 'xx' is not supported");
  assert.equal(envelope.error, "unsupported_language");
  assert.equal(toolsetErrorCode("not_found"), "not_found");
});

Deno.test("every code the Python toolset host can emit is in the ErrorCode union", async () => {
  const source = await Deno.readTextFile(
    new URL("../../src/runtime/exec/toolset_host.py", import.meta.url),
  );
  // failure("code", ...), an envelope literal's "error": "code", and the default given to a
  // toolset envelope that has no code (envelope["error"] = "code").
  const emitted = new Set(
    [
      /\bfailure\(\s*"([^"]+)"/g,
      /"error":\s*"([^"]+)"/g,
      /\["error"\]\s*=\s*"([^"]+)"/g,
    ].flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!)),
  );
  // The host emits at least these four; finding fewer means the patterns went stale.
  for (const code of ["not_found", "invalid_arguments", "execution_failed", "parse_error"]) {
    assert.ok(emitted.has(code), `${code} not found in toolset_host.py`);
  }
  for (const code of emitted) assert.ok(isErrorCode(code), `${code} is missing from ErrorCode`);
  // A code passed in a variable would escape the patterns: outside its own definition,
  // failure() is only ever called with a literal.
  const computed = [...source.matchAll(/(?<!def )\bfailure\(\s*[^"\s]/g)];
  assert.deepEqual(computed.map((m) => m[0]), []);
});
