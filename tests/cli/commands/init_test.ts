/** `skills init` argument parsing (pure). */
import assert from "node:assert/strict";
import { UsageError } from "../../../src/core/errors.ts";
import { parse } from "../../../src/cli/commands/init.ts";

const ok: [string[], { name: string; dir: string | undefined; withToolset: boolean }][] = [
  [["demo"], { name: "demo", dir: undefined, withToolset: false }],
  [["demo", "--dir", "/tmp/x"], { name: "demo", dir: "/tmp/x", withToolset: false }],
  [["--with-toolset", "demo"], { name: "demo", dir: undefined, withToolset: true }],
  [["--dir=sub", "demo", "--with-toolset"], { name: "demo", dir: "sub", withToolset: true }],
];

for (const [argv, expected] of ok) {
  Deno.test(`init parse() reads ${JSON.stringify(argv)}`, () => {
    const options = parse(argv);
    assert.deepEqual(
      { name: options.name, dir: options.dir, withToolset: options.withToolset },
      expected,
    );
  });
}

const bad: [string[], RegExp][] = [
  [[], /Missing skill name/],
  [["a", "b"], /Expected one skill name, got 2/],
  [["demo", "--dir"], /--dir/],
  [["demo", "--dir", ""], /--dir must not be empty/],
  [["demo", "--force"], /--force/],
];

for (const [argv, message] of bad) {
  Deno.test(`init parse() rejects ${JSON.stringify(argv)} with a usage error`, () => {
    assert.throws(() => parse(argv), (e) => e instanceof UsageError && message.test(e.message));
  });
}

Deno.test("init parse() allows --help without a name", () => {
  assert.equal(parse(["--help"]).help, true);
});
