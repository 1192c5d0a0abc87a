import assert from "node:assert/strict";
import { parseCommand } from "../../src/cli/args.ts";
import { UsageError } from "../../src/core/errors.ts";

const SPEC = {
  skill: { type: "string", multiple: true },
  name: { type: "string", short: "n" },
  yes: { type: "boolean", short: "y" },
} as const;

Deno.test("parseCommand reads long, short, grouped, repeated and = forms", () => {
  const { values, positionals } = parseCommand("add", [
    "owner/repo",
    "--skill",
    "a",
    "--skill=b",
    "-yv",
    "-n",
    "x",
    "--json",
  ], SPEC);
  assert.deepEqual(positionals, ["owner/repo"]);
  assert.deepEqual(values.skill, ["a", "b"]);
  assert.equal(values.name, "x");
  assert.equal(values.yes, true);
  assert.equal(values.verbose, true);
  assert.equal(values.json, true);
  assert.equal(values.help, undefined);
  assert.equal(parseCommand("add", ["-nfoo"], SPEC).values.name, "foo");
});

Deno.test("parseCommand treats everything after -- as positionals", () => {
  const { values, positionals } = parseCommand("add", ["--", "--yes", "-n"], SPEC);
  assert.deepEqual(positionals, ["--yes", "-n"]);
  assert.equal(values.yes, undefined);
});

Deno.test("parseCommand refuses bad input with a usage error naming the problem", () => {
  const cases: [string[], RegExp][] = [
    [["--frob"], /^Unknown option '--frob'$/],
    [["-q"], /^Unknown option '-q'$/],
    [["--yes=1"], /'--yes' does not take a value/],
    [["--name"], /'--name' needs a value/],
    [["--name", "--yes"], /'--name' needs a value, got the option '--yes'/],
    [["-n"], /'-n' needs a value/],
    [["--constructor"], /^Unknown option '--constructor'$/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => parseCommand("add", argv, SPEC), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, message);
      assert.match(error.hint ?? "", /skills add --help/);
      return true;
    });
  }
  assert.throws(
    () => parseCommand("list", ["extra"], {}, false),
    /Unexpected argument 'extra'/,
  );
});
