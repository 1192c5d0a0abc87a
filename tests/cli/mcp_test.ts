/** `skills mcp` argument parsing (pure). */
import assert from "node:assert/strict";
import { UsageError } from "../../src/core/errors.ts";
import { parse } from "../../src/cli/commands/mcp.ts";

Deno.test("mcp parse() reads --skills and leaves it undefined without", () => {
  assert.equal(parse([]).skills, undefined);
  assert.equal(parse(["--skills", "a,b"]).skills, "a,b");
  assert.equal(parse(["--skills=all"]).skills, "all");
  assert.equal(parse(["-v"]).verbose, true);
});

for (
  const [argv, message] of [
    [["serve"], /Unexpected argument 'serve'/],
    [["--skills"], /--skills/],
    [["--port", "1"], /--port/],
  ] as const
) {
  Deno.test(`mcp parse() rejects ${JSON.stringify(argv)} with a usage error`, () => {
    assert.throws(() => parse(argv), (e) => e instanceof UsageError && message.test(e.message));
  });
}
