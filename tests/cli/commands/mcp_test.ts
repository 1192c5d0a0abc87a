/** `skills mcp` argument parsing (pure). */
import assert from "node:assert/strict";
import { UsageError } from "../../../src/core/errors.ts";
import { parse } from "../../../src/cli/commands/mcp.ts";

Deno.test("mcp parse() reads --skills and leaves it undefined without", () => {
  assert.equal(parse([]).skills, undefined);
  assert.equal(parse(["--skills", "a,b"]).skills, "a,b");
  assert.equal(parse(["--skills=all"]).skills, "all");
  assert.equal(parse(["-v"]).verbose, true);
});

Deno.test("mcp parse() reads --http and --session-timeout (seconds, default 1800)", () => {
  assert.equal(parse([]).http, undefined);
  const http = parse(["--http", "127.0.0.1:0", "--session-timeout", "2.5"]);
  assert.equal(http.http, "127.0.0.1:0");
  assert.equal(http.sessionTimeoutSeconds, 2.5);
  assert.equal(parse(["--http", "[::1]:8080"]).sessionTimeoutSeconds, 1800);
});

for (
  const [argv, message] of [
    [["serve"], /Unexpected argument 'serve'/],
    [["--skills"], /--skills/],
    [["--port", "1"], /--port/],
    [["--session-timeout", "5"], /applies to --http only/],
    [["--http", "127.0.0.1:0", "--session-timeout", "0"], /Invalid --session-timeout '0'/],
    [["--http", "127.0.0.1:0", "--session-timeout", "soon"], /Invalid --session-timeout/],
  ] as const
) {
  Deno.test(`mcp parse() rejects ${JSON.stringify(argv)} with a usage error`, () => {
    assert.throws(() => parse(argv), (e) => e instanceof UsageError && message.test(e.message));
  });
}
