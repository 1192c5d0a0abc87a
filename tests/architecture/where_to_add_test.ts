/**
 * ARCHITECTURE.md's "Where to add" rows, tried as the next maintainer would: a command
 * (`home`), a script language (`perl`) and an agent (`example-agent`) are written into a
 * temporary copy of the tree, `deno task gen` runs there, and the gate a change must pass
 * for them — `deno check` of the program and the scripts, the rendering checks
 * (tests/docs/reference_test.ts) and the house rules (house_test.ts) — passes with no other
 * file touched by hand. The hand-written files of each row are counted against the target
 * of two; every other file that changed is one `deno task gen` writes.
 *
 * Only what the gate reads is copied (src/, scripts/, skills/, docs/, the configuration and
 * the two tests with their helpers), and the three additions share one copy and one gate.
 */

import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { SKIP_SLOW } from "../helpers/quick.ts";

/** What is copied: the gate's inputs. */
const COPIED = [
  "src",
  "scripts",
  "skills",
  "docs",
  "deno.json",
  "deno.lock",
  "mod.ts",
  "ARCHITECTURE.md",
  "README.md",
  "tests/helpers",
  "tests/cli/help_snapshots",
  "tests/docs/reference_test.ts",
  "tests/architecture/house_test.ts",
];

/** Files `deno task gen` writes (deno.json's gen task), as path prefixes. */
const GENERATED = [
  "src/generated/",
  "src/cli/specs/all.ts",
  "src/cli/command_table/command_index.ts",
  "src/cli/commands/all.ts",
  "docs/",
  "ARCHITECTURE.md",
  "deno.json",
  "tests/cli/help_snapshots/",
];

function copyTree(from: string, to: string): void {
  const info = Deno.statSync(from);
  if (info.isFile) {
    Deno.mkdirSync(dirname(to), { recursive: true });
    Deno.copyFileSync(from, to);
    return;
  }
  for (const entry of Deno.readDirSync(from)) {
    copyTree(join(from, entry.name), join(to, entry.name));
  }
}

/** Every file of the copy with its text, to tell afterwards what changed. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else files.set(relative(root, path), Deno.readTextFileSync(path));
    }
  };
  walk(root);
  return files;
}

async function deno(cwd: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { ok: out.success, output: decode(out.stdout) + decode(out.stderr) };
}

/** Runs deno with `args` in the copy `cwd` and fails with what it printed unless it passes. */
async function denoPasses(cwd: string, args: string[]): Promise<void> {
  const run = await deno(cwd, args);
  assert.ok(run.ok, run.output);
}

/** `text` with `row` inserted before the line that closes the table `marker` opens. */
function addRow(text: string, marker: string, close: string, row: string): string {
  const start = text.indexOf(marker);
  assert.ok(start >= 0, marker);
  const end = text.indexOf(close, start);
  assert.ok(end >= 0, close);
  return `${text.slice(0, end)}${row}${text.slice(end)}`;
}

/** Each row's hand-written files: path → how the maintainer writes it. */
const ADDITIONS: Record<string, Record<string, (text: string) => string>> = {
  "a command": {
    "src/cli/specs/home.ts": () =>
      `/** \`skills home\` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const homeSpec = {
  name: "home",
  order: 95,
  summary: "Print the folder skills keeps its registry in",
  guide: "setup.md",
  usage: ["home [--json]"],
  description: "Print $SKILLS_HOME: where the registry and the installed skills live.",
  flags: { json: jsonFlag("One JSON document: the folder"), help: HELP_FLAG },
  positionals: [],
} as const satisfies CommandSpec;
`,
    "src/cli/commands/home.ts": () =>
      `/** \`skills home\`: where $SKILLS_HOME is. */

import type { Context } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { homeSpec } from "../specs/home.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(homeSpec, ({ common }) => common);

export function run(options: OptionsOf<typeof parse>, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  if (options.json) writeJson(ctx, { home });
  else ctx.stdout.write(\`\${home}\\n\`);
  return Promise.resolve(0);
}
`,
  },
  "a script language": {
    "src/core/scripts/script_language.ts": (text) =>
      addRow(
        text,
        "export const LANGUAGES = {",
        "} as const satisfies",
        `  perl: {
    extensions: ["pl"],
    shebang: ["perl"],
    runners: [{ program: "perl", args: [] }],
    label: "perl",
    install: "Install Perl",
  },
`,
      ),
  },
  "an agent": {
    "src/core/agents.ts": (text) =>
      addRow(
        text,
        "const AGENTS = {",
        "} as const satisfies",
        `  "example-agent": {
    label: "Example Agent",
    project: ".example-agent/skills",
    user: "~/.example-agent/skills",
    detect: "~/.example-agent",
    docs: "https://example.com/docs/skills",
  },
`,
      ),
  },
};

Deno.test({
  name:
    "where to add: a command, a script language and an agent, each in at most two hand-written files",
  // Over a minute alone (a copy of the repository, gen and type checks in it): the whole of
  // test:quick's budget; deno task test and the gate run it.
  ignore: SKIP_SLOW,
  async fn() {
    const root = Deno.makeTempDirSync({ prefix: "where-to-add-" });
    try {
      for (const path of COPIED) copyTree(join(REPO_ROOT, path), join(root, path));
      const before = snapshot(root);

      // A spec without its module is refused by the registry's generator.
      const [spec, module] = Object.entries(ADDITIONS["a command"]!);
      Deno.writeTextFileSync(join(root, spec![0]), spec![1](""));
      const half = await deno(root, ["task", "gen"]);
      assert.ok(!half.ok, "gen refuses a spec without its command module");
      assert.match(half.output, /has no command module src\/cli\/commands\/home\.ts/);
      Deno.writeTextFileSync(join(root, module![0]), module![1](""));

      const written = new Map<string, number>();
      for (const [row, files] of Object.entries(ADDITIONS)) {
        for (const [path, write] of Object.entries(files)) {
          const file = join(root, path);
          let text = "";
          try {
            text = Deno.readTextFileSync(file);
          } catch { /* a new file */ }
          Deno.writeTextFileSync(file, write(text));
        }
        written.set(row, Object.keys(files).length);
      }

      await denoPasses(root, ["task", "gen"]);
      await denoPasses(root, ["check", "src/main.ts", "src/binary.ts", "mod.ts", "scripts/"]);
      await denoPasses(root, [
        "test",
        "-A",
        "--no-check",
        "tests/docs/reference_test.ts",
        "tests/architecture/house_test.ts",
      ]);

      // Every changed file is a hand-written one of the additions, or one gen writes.
      const after = snapshot(root);
      const handWritten = new Set(Object.values(ADDITIONS).flatMap((f) => Object.keys(f)));
      const changed = [...after].filter(([path, text]) => before.get(path) !== text)
        .map(([path]) => path).filter((path) => !path.startsWith("src/generated/"));
      const byHand = changed.filter((path) => handWritten.has(path));
      const byGen = changed.filter((path) => !handWritten.has(path));
      assert.deepEqual(byHand.sort(), [...handWritten].sort());
      assert.deepEqual(
        byGen.filter((path) => !GENERATED.some((prefix) => path.startsWith(prefix))),
        [],
      );
      // What gen rendered from the three tables.
      assert.ok(after.get("tests/cli/help_snapshots/home.txt")?.includes("skills home"));
      assert.match(after.get("docs/reference.md")!, /## `skills home`/);
      assert.match(after.get("deno.json")!, /--allow-run=[\w,.-]*\bperl\b/);
      assert.match(after.get("docs/setup.md")!, /--allow-run=[\w,.-]*\bperl\b/);
      assert.match(after.get("tests/cli/help_snapshots/link.txt")!, /example-agent/);
      assert.match(after.get("docs/project-skills.md")!, /Example Agent/);

      // The counts ARCHITECTURE.md's rows promise: at most two hand-written files each.
      assert.deepEqual(Object.fromEntries(written), {
        "a command": 2,
        "a script language": 1,
        "an agent": 1,
      });
    } finally {
      Deno.removeSync(root, { recursive: true });
    }
  },
});
