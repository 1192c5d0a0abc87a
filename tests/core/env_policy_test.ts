import assert from "node:assert/strict";
import { buildScriptEnv, envMatcher, isValidEnvPattern } from "../../src/core/env_policy.ts";

Deno.test("envMatcher() matches exact names and trailing-* prefixes", () => {
  const match = envMatcher(["KALSHI_API_KEY", "KALSHI_*", "OTHER"]);
  assert.ok(match("KALSHI_API_KEY"));
  assert.ok(match("KALSHI_API_BASE"));
  assert.ok(match("OTHER"));
  assert.ok(!match("OTHER_X"));
  assert.ok(!match("KALSH"));
  assert.ok(!match("OPENAI_API_KEY"));
});

Deno.test("isValidEnvPattern() refuses a bare * and odd characters", () => {
  for (const ok of ["A", "KALSHI_*", "_X1"]) assert.ok(isValidEnvPattern(ok), ok);
  for (const bad of ["*", "A*B", "1ABC", "A-B", "", "A B", "**"]) {
    assert.ok(!isValidEnvPattern(bad), bad);
  }
});

Deno.test("buildScriptEnv() forwards the base set and allowlisted variables only", () => {
  const source = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    KALSHI_API_BASE: "http://127.0.0.1:1",
    OPENAI_API_KEY: "sk-secret",
    AWS_SECRET_ACCESS_KEY: "aws-secret",
    SKILLS_API_KEY: "key",
  };
  const { env, denied } = buildScriptEnv(source, ["KALSHI_*"], [
    "KALSHI_API_KEY",
    "OPENAI_API_KEY",
  ]);
  assert.deepEqual(Object.keys(env).sort(), ["HOME", "KALSHI_API_BASE", "LANG", "LC_ALL", "PATH"]);
  assert.deepEqual(denied, ["OPENAI_API_KEY"]);
});
