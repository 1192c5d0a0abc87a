/**
 * Value parsers on a command's spec (src/cli/args.ts): a flag's value reaches the command
 * parsed and typed (the options type is inferred from the spec), and a bad value is the
 * command's own usage error, whatever the flag's position.
 */

import assert from "node:assert/strict";
import { UsageError } from "../../src/core/errors.ts";
import type { CommandSpec } from "../../src/cli/spec.ts";
import { defineCommand, keyValue, number, oneOf } from "../../src/cli/args.ts";
import { parse as parseChat } from "../../src/cli/commands/chat.ts";
import { parse as parseMcp } from "../../src/cli/commands/mcp.ts";
import { parse as parseCall } from "../../src/cli/commands/call.ts";
import { parse as parseLint } from "../../src/cli/commands/lint.ts";

const bad = (text: string) => new UsageError(`Bad '${text}'`, "hint");

const demoSpec = {
  name: "demo",
  order: 1,
  summary: "A demo",
  guide: "setup.md",
  usage: ["demo"],
  description: "Demo.",
  flags: {
    level: {
      type: "string",
      description: "l",
      parse: number({ integer: true, min: 1, max: 9, invalid: bad }),
    },
    mode: { type: "string", description: "m", parse: oneOf(["fast", "safe"], bad) },
    set: { type: "string", multiple: true, description: "s", parse: keyValue(/^[A-Z]+$/, bad) },
  },
  positionals: [],
} as const satisfies CommandSpec;

const demo = defineCommand(demoSpec, ({ values, common }) => ({
  ...common,
  level: values.level ?? 5,
  mode: values.mode ?? "safe",
  set: values.set ?? [],
}));

Deno.test("a flag's value parser gives the command a typed value", () => {
  const options = demo.parse(["--level", "7", "--mode=fast", "--set", "A=1", "--set", "B"]);
  // These annotations are the point: the options type is inferred from the spec.
  const level: number = options.level;
  const mode: "fast" | "safe" = options.mode;
  const set: string[] = options.set;
  assert.deepEqual({ level, mode, set }, { level: 7, mode: "fast", set: ["A=1", "B"] });
  assert.deepEqual(demo.parse([]).level, 5);
});

Deno.test("a bad value is the parser's usage error", () => {
  for (
    const argv of [["--level", "0"], ["--level", "2.5"], ["--level", "x"], ["--mode", "slow"], [
      "--set",
      "a=1",
    ]]
  ) {
    assert.throws(
      () => demo.parse(argv),
      (e) => e instanceof UsageError && /^Bad '/.test(e.message),
    );
  }
  // An unknown option is reported before a bad value, wherever each stands.
  assert.throws(() => demo.parse(["--level", "0", "--nope"]), /Unknown option '--nope'/);
});

Deno.test("chat's --max-steps and mcp's --session-timeout arrive as numbers", () => {
  assert.equal(parseChat(["--max-steps", "20"]).maxSteps, 20);
  assert.equal(parseChat([]).maxSteps, 12);
  assert.throws(() => parseChat(["--max-steps", "1001"]), /Invalid --max-steps '1001'/);
  assert.throws(() => parseChat(["--max-steps", "+3"]), /Invalid --max-steps '\+3'/);
  const mcp = parseMcp(["--http", "127.0.0.1:0", "--session-timeout", "2.5", "--skills", "a"]);
  assert.deepEqual([mcp.sessionTimeoutSeconds, mcp.skills], [2.5, "a"]);
  assert.equal(parseMcp([]).sessionTimeoutSeconds, 1800);
});

Deno.test("call's and lint's --timeout keep their ranges and messages", () => {
  assert.equal(parseCall(["k", "t", "--timeout", "3600"]).timeoutSeconds, 3600);
  assert.throws(
    () => parseCall(["k", "t", "--timeout", "3601"]),
    /^UsageError: Invalid --timeout '3601' \(seconds, 0 < S ≤ 3600\)/,
  );
  assert.equal(parseLint(["."]).timeoutSeconds, 10);
  assert.equal(parseLint([".", "--timeout", "0.5"]).timeoutSeconds, 0.5);
  assert.throws(
    () => parseLint([".", "--timeout", "0"]),
    /Invalid --timeout '0' \(seconds, 0 < S ≤ 600\)/,
  );
});
