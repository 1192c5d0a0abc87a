/** The command specs: one declaration per command, from which parse, help and table derive. */
import assert from "node:assert/strict";
import { DEFAULT_MAX_STEPS } from "../../src/agent/chat/chat_loop.ts";
import { parseSpec } from "../../src/cli/args.ts";
import { COMMANDS, findCommand, MISTAKEN_COMMANDS } from "../../src/cli/registry/command_table.ts";
import { SPECS } from "../../src/cli/specs/all.ts";
import { chatSpec } from "../../src/cli/specs/chat.ts";
import { flagTable } from "../../src/cli/registry/command_table.ts";
import { type CommandSpec, COMMON_FLAGS, HELP_FLAG, renderHelp } from "../../src/cli/spec.ts";

Deno.test("command names and aliases are unique, and `install` is not one of them", () => {
  const words = SPECS.flatMap((s) => [s.name, ...s.aliases ?? []]);
  assert.equal(new Set(words).size, words.length, words.join(" "));
  for (const word of Object.keys(MISTAKEN_COMMANDS)) assert.equal(findCommand(word), undefined);
  assert.deepEqual(listAliases("list"), ["ls"]);
  assert.deepEqual(listAliases("remove"), ["rm", "uninstall"]);
});

const listAliases = (name: string) => [...COMMANDS[name]!.aliases];

Deno.test("each command module's help is rendered from its spec", async () => {
  for (const spec of SPECS) {
    const module = await COMMANDS[spec.name]!.load();
    assert.equal(module.help, renderHelp(spec), spec.name);
    // Every flag the spec declares is accepted by the module's parser.
    for (const [long, flag] of Object.entries(spec.flags)) {
      if (spec.name === "run" || long === "help") continue; // run needs <skill> <script>
      const argv = flag.type === "string" ? [`--${long}=x`] : [`--${long}`];
      try {
        module.parse(argv);
      } catch (error) {
        assert.doesNotMatch(String(error), /Unknown option/, `${spec.name} ${argv}`);
      }
    }
  }
});

Deno.test("each spec's usage line names its positionals", () => {
  for (const spec of SPECS) {
    for (const p of spec.positionals) {
      if (p.complete === "shell") continue; // completions spells out bash|zsh|fish
      assert.ok(
        spec.usage[0]!.includes(`<${p.name}>`) || spec.usage[0]!.includes(`[${p.name}`),
        `${spec.name}: ${p.name}`,
      );
    }
  }
});

Deno.test("chat's help states the chat loop's real default for --max-steps", () => {
  assert.match(renderHelp(chatSpec), new RegExp(`\\(default ${DEFAULT_MAX_STEPS}\\)`));
});

const DEMO = {
  name: "demo",
  order: 1,
  aliases: ["dm"],
  summary: "A demo",
  guide: "setup.md",
  usage: ["demo <skill> <script> [args...]", "demo --list"],
  description: "Does a demo.",
  optionsTitle: "Options (before <skill>)",
  flags: {
    timeout: { type: "string", value: "S", description: "Seconds\n(default 60)" },
    tag: { type: "string", multiple: true, value: "NAME", description: "A tag (repeatable)" },
    list: { type: "boolean", description: "List" },
    help: HELP_FLAG,
  },
  positionals: [
    { name: "skill", required: true, complete: "skill" },
    { name: "script", required: true, complete: "script" },
    { name: "args", variadic: true, raw: true, complete: "none" },
  ],
  sections: [
    { title: "Exit codes", text: "0 ok." },
    { title: "Examples", text: "\n  skills demo a b" },
    { title: "Before", text: "first.", beforeOptions: true },
  ],
} as const satisfies CommandSpec;

Deno.test("renderHelp() lays out usage, aliases, description, sections and the option table", () => {
  assert.equal(
    renderHelp(DEMO),
    `Usage: skills demo <skill> <script> [args...]
       skills demo --list
Alias: dm

Does a demo.

Before: first.

Options (before <skill>):
  --timeout S    Seconds
                 (default 60)
  --tag NAME     A tag (repeatable)
  --list         List
  -h, --help     Show this help

Exit codes: 0 ok.

Examples:
  skills demo a b
`,
  );
  // A label wider than `-v, --verbose` widens the column for every line.
  assert.deepEqual(
    flagTable({ "with-toolset": { description: "x" }, ...COMMON_FLAGS }).slice(
      0,
      2,
    ),
    [
      "  --with-toolset  x",
      "  -h, --help      Show this help",
    ],
  );
});

Deno.test("parseSpec() reads a spec's flags and keeps argv after a raw positional untouched", () => {
  const parsed = parseSpec(DEMO, ["--tag", "a", "-v", "k", "--tag=b", "s", "--tag", "c", "-h"]);
  assert.deepEqual(parsed.values.tag, ["a", "b"]);
  assert.equal(parsed.values.verbose, true);
  assert.equal(parsed.values.help, undefined);
  assert.deepEqual(parsed.positionals, ["k", "s"]);
  assert.deepEqual(parsed.rest, ["--tag", "c", "-h"]);
  assert.deepEqual(parseSpec(DEMO, ["--", "k", "s", "--", "-x"]).rest, ["--", "-x"]);
  assert.deepEqual(parseSpec(DEMO, ["k"]), { values: {}, positionals: ["k"], rest: [] });
  assert.throws(() => parseSpec(DEMO, ["--bogus", "k", "s"]), /Unknown option '--bogus'/);
});
