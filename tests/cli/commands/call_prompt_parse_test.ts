import assert from "node:assert/strict";
import { parse as parseCall, resolveMethod } from "../../../src/cli/commands/call.ts";
import { parse as parsePrompt } from "../../../src/cli/commands/prompt.ts";
import { UsageError } from "../../../src/core/errors.ts";

Deno.test("call parse() reads skill, tool, --input, --list and --timeout", () => {
  const cases: [string[], Record<string, unknown>][] = [
    [["hello-extended", "greet"], {
      skill: "hello-extended",
      tool: "greet",
      input: {},
      list: false,
    }],
    [["s", "t", "--input", '{"a":1}', "--json"], { input: { a: 1 }, json: true }],
    [["s", "t", "--input", "-"], { input: "stdin" }],
    [["s", "--list"], { skill: "s", tool: "", list: true }],
    [["s", "t", "--timeout", "2.5"], { timeoutSeconds: 2.5 }],
    [["--help"], { help: true }],
  ];
  for (const [argv, expected] of cases) {
    const options = parseCall(argv);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(options[key as keyof typeof options], value, `${argv.join(" ")}: ${key}`);
    }
  }
});

Deno.test("call parse() rejects bad invocations with usage errors", () => {
  const bad = [
    [],
    ["s"],
    ["s", "t", "extra"],
    ["s", "t", "--list"],
    ["s", "t", "--input", "[1]"],
    ["s", "t", "--input", "nope"],
    ["s", "t", "--timeout", "0"],
    ["s", "t", "--bogus"],
  ];
  for (const argv of bad) assert.throws(() => parseCall(argv), UsageError, argv.join(" "));
});

Deno.test("resolveMethod() accepts the method or the qualified tool name", () => {
  const methods = [{ name: "greet_in_language", description: "", inputSchema: {} }];
  const skill = { canonical: "hello-extended" };
  assert.equal(resolveMethod(skill, methods, "greet_in_language"), methods[0]);
  assert.equal(resolveMethod(skill, methods, "hello_extended__greet_in_language"), methods[0]);
  assert.equal(resolveMethod(skill, methods, "other__greet_in_language"), undefined);
});

Deno.test("prompt parse() reads --skills, --format and --no-location", () => {
  assert.deepEqual(parsePrompt([]), {
    help: false,
    json: false,
    verbose: false,
    skills: undefined,
    format: "xml",
    location: true,
  });
  const options = parsePrompt(["--skills", "a,b", "--format", "Markdown", "--no-location"]);
  assert.equal(options.skills, "a,b");
  assert.equal(options.format, "markdown");
  assert.equal(options.location, false);
  assert.equal(parsePrompt(["--format", "md"]).format, "markdown");
  assert.throws(() => parsePrompt(["--format", "yaml"]), UsageError);
  assert.throws(() => parsePrompt(["extra"]), UsageError);
});
