/**
 * How `skills run` reads what it is given, as real skills need it: a script at the skill
 * root by its file name, `./` and all, or its name alone (obra's
 * `systematic-debugging/find-polluter.sh`); a script's own `--json PATH` option (Trail of
 * Bits' `collect.py nodeapp --json out/findings.json`) is not JSON mode, while a bare
 * trailing `--json` is, and `--` passes everything through; a launcher beside the script it
 * starts (Microsoft's `cs-agent-test.sh` and `.cjs`, Morningstar's `export_report.py` and
 * `.mjs`) installs, each called by its file name; and a piped stdin reaches the script, bounded.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { SANDBOX_MODES } from "../../helpers/sandbox.ts";
import { writeTree } from "../../helpers/tree.ts";

const COLLECT = `import argparse, json, pathlib
parser = argparse.ArgumentParser()
parser.add_argument("target")
parser.add_argument("--json", metavar="PATH", help="write the findings as JSON to PATH")
args = parser.parse_args()
if args.json:
    out = pathlib.Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"target": args.target, "findings": []}))
    print("wrote", out)
else:
    print("findings for", args.target)
`;

const READ_STDIN = `import json, sys
data = sys.stdin.buffer.read()
if "--json" in sys.argv[1:]:
    print(json.dumps({"bytes": len(data), "text": data[:64].decode(errors="replace")}))
else:
    print("read %d bytes: %s" % (len(data), data[:64].decode(errors="replace").strip()))
`;

async function formsLab() {
  const dir = await tempDir("skills-forms-");
  const home = join(dir.path, "skills-home");
  const work = join(dir.path, "work");
  const source = join(dir.path, "forms-lab");
  await writeTree(source, {
    "SKILL.md": "---\nname: forms-lab\ndescription: Scripts at the root and in scripts/, " +
      "for the run-forms tests.\n---\n\nRun `./find-polluter.sh <pattern>`.\n",
    "find-polluter.sh": '#!/usr/bin/env bash\necho "polluter $#: $*"\n',
    "scripts/collect.py": COLLECT,
    "scripts/read_stdin.py": READ_STDIN,
    "scripts/argv.py": "import sys\nprint('argv:', sys.argv[1:])\n",
  });
  await Deno.mkdir(work);
  await Deno.chmod(work, 0o755);
  await installFixtureSkill(home, source);
  const run = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
    runCli(["run", "forms-lab", ...args], {
      env: { SKILLS_HOME: home, ...env },
      cwd: work,
      ...(stdin === undefined ? {} : { stdin }),
    });
  return { dir, work, run, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

function ok(result: CliResult): string {
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

Deno.test("a script at the skill root runs as NAME.sh, ./NAME.sh and NAME", async () => {
  await using lab = await formsLab();
  const env = { SKILLS_SANDBOX: "off" };
  assert.equal(ok(await lab.run(["find-polluter.sh", "a", "b"], env)), "polluter 2: a b\n");
  assert.equal(ok(await lab.run(["./find-polluter.sh", "x"], env)), "polluter 1: x\n");
  assert.equal(ok(await lab.run(["find-polluter"], env)), "polluter 0: \n");
  assert.equal(ok(await lab.run(["Find_Polluter", "y"], env)), "polluter 1: y\n");
  // A name no file has is still not found, with where to look.
  const missing = await lab.run(["./nothing.sh"], env);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Script '\.\/nothing\.sh' not found in skill 'forms-lab'/);
});

Deno.test("a launcher and the script it starts share a name: the skill installs, each runs by its file name", async () => {
  await using dir = await tempDir("skills-launcher-");
  const source = join(dir.path, "launcher-lab");
  await writeTree(source, {
    "SKILL.md": "---\nname: launcher-lab\ndescription: A launcher beside the script it starts, " +
      "for the run-forms tests.\n---\n\nRun `sh scripts/report.sh <target>`.\n",
    "scripts/report.py": "import sys\nprint('report of', ' '.join(sys.argv[1:]))\n",
    "scripts/report.sh": '#!/bin/sh\nexec python3 "$(dirname "$0")/report.py" "$@"\n',
  });
  const env = { SKILLS_HOME: join(dir.path, "home"), SKILLS_SANDBOX: "off" };
  const cli = (args: string[]) => runCli(args, { env, cwd: dir.path });
  const added = await cli(["add", source, "--yes"]);
  assert.equal(added.code, 0, added.stderr);
  const listed = JSON.parse(ok(await cli(["scripts", "launcher-lab", "--json"])));
  assert.deepEqual(listed["launcher-lab"].map((s: { name: string }) => s.name), [
    "report.py",
    "report.sh",
  ]);
  assert.equal(ok(await cli(["run", "launcher-lab", "report.sh", "app"])), "report of app\n");
  assert.equal(ok(await cli(["run", "launcher-lab", "scripts/report.py", "x"])), "report of x\n");
  // The shared name is neither, and the answer names what to call instead.
  const bare = await cli(["run", "launcher-lab", "report"]);
  assert.equal(bare.code, 1);
  assert.match(bare.stderr, /Its scripts: report\.py, report\.sh\./);
});

Deno.test("a script's own --json PATH is its option; a bare --json is JSON mode; -- passes through", async () => {
  await using lab = await formsLab();
  const env = { SKILLS_SANDBOX: "off" };
  const collected = await lab.run(["collect", "nodeapp", "--json", "out/findings.json"], env);
  assert.equal(ok(collected), "wrote out/findings.json\n");
  assert.doesNotMatch(collected.stderr, /parse_error/);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(lab.work, "out", "findings.json"))), {
    target: "nodeapp",
    findings: [],
  });
  // A bare trailing --json is still JSON mode: one JSON document on stdout.
  assert.deepEqual(JSON.parse(ok(await lab.run(["read_stdin", "--json"], env, "hi"))), {
    bytes: 2,
    text: "hi",
  });
  // After --, nothing is read: the script gets --json as typed, and its text output stands.
  assert.equal(ok(await lab.run(["argv", "--", "--json"], env)), "argv: ['--json']\n");
  assert.equal(ok(await lab.run(["argv", "a", "--", "--help"], env)), "argv: ['a', '--help']\n");
});

for (const [label, mode, where] of SANDBOX_MODES) {
  Deno.test(`${label}: a piped stdin reaches the script`, where, async () => {
    await using lab = await formsLab();
    const env = { SKILLS_SANDBOX: mode };
    assert.equal(
      ok(await lab.run(["read_stdin"], env, "goal: make the tests pass\n")),
      "read 26 bytes: goal: make the tests pass\n",
    );
    // No stdin given (the tests' /dev/null): the script reads nothing and is not held up.
    assert.equal(ok(await lab.run(["read_stdin"], env)), "read 0 bytes: \n");
  });
}

Deno.test("a piped stdin is bounded at 16 MiB, and the cut is said", async () => {
  await using lab = await formsLab();
  const max = 16 * 1024 * 1024;
  const result = await lab.run(["read_stdin"], { SKILLS_SANDBOX: "off" }, "x".repeat(max + 4096));
  assert.match(ok(result), new RegExp(`^read ${max} bytes`));
  assert.match(result.stderr, /warning: stdin cut at 16777216 bytes/);
});
