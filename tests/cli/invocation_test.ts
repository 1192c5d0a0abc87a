/** `readInvocation()`: global options before the command, aliases, help, typos (pure). */
import assert from "node:assert/strict";
import { COMMAND_INDEX } from "../../src/cli/registry/command_index.ts";
import {
  editDistance,
  readInvocation,
  suggestCommands,
} from "../../src/cli/registry/command_table.ts";
import type { UsageError } from "../../src/core/errors.ts";

/** The command an argv runs and the arguments it hands to that command's parse(). */
function command(argv: string[]): [string, string[]] {
  const invocation = readInvocation(argv);
  assert.equal(invocation.kind, "command", argv.join(" "));
  if (invocation.kind !== "command") throw new Error("unreachable");
  return [invocation.entry.name, invocation.argv];
}

Deno.test("readInvocation() hands global options before the command to the command", () => {
  const cases: [string[], [string, string[]]][] = [
    [["list", "--json"], ["list", ["--json"]]],
    [["--json", "list"], ["list", ["--json"]]],
    [["--verbose", "check"], ["check", ["--verbose"]]],
    [["-v", "--no-color", "info", "x"], ["info", ["-v", "--no-color", "x"]]],
    [["--help", "list"], ["list", ["--help"]]],
    [["-h", "remove"], ["remove", ["-h"]]],
    // Before `run` they are run's own; after <script> they stay the script's.
    [["--json", "run", "k", "s", "--verbose"], ["run", ["--json", "k", "s", "--verbose"]]],
  ];
  for (const [argv, expected] of cases) assert.deepEqual(command(argv), expected, argv.join(" "));
});

Deno.test("readInvocation() resolves aliases to their command", () => {
  assert.deepEqual(command(["ls"]), ["list", []]);
  assert.deepEqual(command(["rm", "a", "--yes"]), ["remove", ["a", "--yes"]]);
  assert.deepEqual(command(["--json", "uninstall", "a"]), ["remove", ["--json", "a"]]);
  const help = readInvocation(["help", "rm"]);
  assert.ok(help.kind === "command-help" && help.entry.name === "remove");
});

Deno.test("readInvocation() answers help and version before any command", () => {
  assert.deepEqual(readInvocation([]), { kind: "top-help", bare: true });
  assert.deepEqual(readInvocation(["--json"]), { kind: "top-help", bare: true });
  assert.deepEqual(readInvocation(["--help"]), { kind: "top-help", bare: false });
  assert.deepEqual(readInvocation(["-h", "--verbose"]), { kind: "top-help", bare: false });
  assert.deepEqual(readInvocation(["help"]), { kind: "top-help", bare: false });
  assert.deepEqual(readInvocation(["help", "nope"]), { kind: "top-help", bare: false });
  assert.deepEqual(readInvocation(["--help", "nope"]), { kind: "top-help", bare: false });
  assert.deepEqual(readInvocation(["--version"]), { kind: "version" });
  assert.deepEqual(readInvocation(["--json", "-V", "list"]), { kind: "version" });
});

/** The usage error an argv is refused with. */
function refusal(argv: string[]): UsageError {
  const invocation = readInvocation(argv);
  assert.equal(invocation.kind, "unknown", argv.join(" "));
  if (invocation.kind !== "unknown") throw new Error("unreachable");
  assert.equal(invocation.error.exitCode, 2);
  return invocation.error;
}

Deno.test("readInvocation() refuses unknown commands with the likeliest one as the hint", () => {
  const cases: [string[], string, string][] = [
    [["lsit"], "Unknown command 'lsit'", "Did you mean `skills list`?"],
    [["upate", "--all"], "Unknown command 'upate'", "Did you mean `skills update`?"],
    [["--json", "chek"], "Unknown command 'chek'", "Did you mean `skills check`?"],
    [["comp", "bash"], "Unknown command 'comp'", "Did you mean `skills completions`?"],
    [["frobnicate"], "Unknown command 'frobnicate'", "Run `skills --help` to see the commands"],
    [["constructor"], "Unknown command 'constructor'", "Run `skills --help` to see the commands"],
  ];
  for (const [argv, message, hint] of cases) {
    const error = refusal(argv);
    assert.equal(error.message, message);
    assert.equal(error.hint, hint);
  }
});

Deno.test("readInvocation() refuses an option before the command that is not global", () => {
  for (const argv of [["--yes", "remove", "a"], ["-y", "list"], ["--", "list"], ["-hv", "list"]]) {
    const error = refusal(argv);
    assert.equal(error.message, `Unknown option '${argv[0]}'`);
    assert.match(error.hint ?? "", /skills --help/);
  }
});

Deno.test("editDistance() counts insertions, deletions, substitutions and transpositions", () => {
  assert.equal(editDistance("list", "list"), 0);
  assert.equal(editDistance("lsit", "list"), 1);
  assert.equal(editDistance("upate", "update"), 1);
  assert.equal(editDistance("chekc", "check"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("suggestCommands() names each command once, nearest first, by name or alias", () => {
  assert.deepEqual(suggestCommands("lst", COMMAND_INDEX), ["list"]); // list and ls are both 1 away
  assert.deepEqual(suggestCommands("sl", COMMAND_INDEX), ["ls"]);
  assert.deepEqual(suggestCommands("rn", COMMAND_INDEX), ["run", "rm"]);
  assert.deepEqual(suggestCommands("Trsut", COMMAND_INDEX), ["trust"]);
  assert.deepEqual(suggestCommands("unistall", COMMAND_INDEX), ["uninstall", "install"]);
  assert.deepEqual(suggestCommands("zzzz", COMMAND_INDEX), []);
});
