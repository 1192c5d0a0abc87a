import assert from "node:assert/strict";
import {
  allowedToolsEnabled,
  BASELINE_TOOLS,
  decidePolicy,
  isToolAllowed,
  matchesAllowlist,
} from "../../../src/agent/surface/allowed_tools.ts";

const KNOWN = [
  ...BASELINE_TOOLS,
  "hello_extended__greet_in_language",
  "hello_extended__greet_multiple",
  "limited__ping",
];

Deno.test("matchesAllowlist() supports exact names and *, ? and [] globs", () => {
  const cases: [string, string[], boolean][] = [
    ["limited__ping", ["limited__ping"], true],
    ["limited__ping", ["limited__pin"], false],
    ["limited__ping", ["limited__*"], true],
    ["limited__ping", ["limited__p?ng"], true],
    ["limited__ping", ["limited__[pq]ing"], true],
    ["limited__ping", ["other__*"], false],
    ["hello_extended__greet_multiple", ["hello_extended.greet_multiple"], true],
    ["hello_extended__greet_multiple", ["hello-extended.greet_*"], true],
    ["hello_extended__greet_multiple", ["hello_extended_greet_multiple"], false],
  ];
  for (const [tool, patterns, expected] of cases) {
    assert.equal(matchesAllowlist(tool, patterns), expected, `${tool} vs ${patterns}`);
  }
});

Deno.test("decidePolicy() enforces an allowlist that matches a non-baseline tool", () => {
  const decision = decidePolicy("limited", ["limited__*", "Read"], KNOWN);
  assert.deepEqual(decision, { policy: { skill: "limited", patterns: ["limited__*", "Read"] } });
});

Deno.test("decidePolicy() ignores an allowlist matching only baseline tools, with a warning", () => {
  for (const patterns of [["script_run"], ["Bash(git:*)", "Read"], ["activate_*"]]) {
    const decision = decidePolicy("kalshi-markets", patterns, KNOWN);
    assert.equal(decision.policy, null);
    assert.match(decision.warning ?? "", /Ignoring allowed-tools of skill 'kalshi-markets'/);
  }
});

Deno.test("decidePolicy() clears the policy for a skill without allowed-tools (last activation wins)", () => {
  assert.deepEqual(decidePolicy("plain", undefined, KNOWN), { policy: null });
  assert.deepEqual(decidePolicy("plain", ["  ", ""], KNOWN), { policy: null });
});

Deno.test("isToolAllowed() always allows the five skill tools", () => {
  const policy = { skill: "limited", patterns: ["limited__*"] };
  for (const tool of BASELINE_TOOLS) assert.ok(isToolAllowed(policy, tool));
  assert.ok(isToolAllowed(policy, "limited__ping"));
  assert.ok(!isToolAllowed(policy, "hello_extended__greet_in_language"));
  assert.ok(isToolAllowed(null, "hello_extended__greet_in_language"));
});

Deno.test("allowedToolsEnabled() is off unless explicitly on", () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ["", false],
    ["off", false],
    ["nonsense", false],
    ["on", true],
    ["ON", true],
    ["true", true],
    ["1", true],
  ];
  for (const [value, expected] of cases) assert.equal(allowedToolsEnabled(value), expected);
});
