/**
 * Receipts that tell the truth (issue 40, items 10–13), through the real CLI: a project
 * skill run from the project root reports none of its own files; a run that changed nothing
 * prints no receipt line, with --json too; the receipt's `env` names exactly the variables
 * the script received; a change deeper than any walk went is reported; a file name full of
 * escape sequences reaches the terminal inert.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { project } from "../../helpers/project.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

const SKILL_MD = `---
name: env-lab
description: Prints the names of its environment, or writes where it is told.
---

# Env lab
`;

const ENV_PY = `# /// script
# dependencies = []
# ///
# The environment as the process started with it (Python itself may add LC_CTYPE later).
import json
with open("/proc/self/environ", "rb") as f:
    names = [entry.split(b"=", 1)[0].decode() for entry in f.read().split(b"\\0") if entry]
print(json.dumps(sorted(names)))
`;

const PWD_PY = `# /// script
# dependencies = []
# ///
import json, os
print(json.dumps({"PWD": os.environ.get("PWD"), "cwd": os.getcwd()}))
`;

const WRITE_PY = `# /// script
# dependencies = []
# ///
import json, os, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
open(path, "w").write("x\\n")
print(json.dumps({"wrote": path}))
`;

async function envLab() {
  const p = await project();
  const dir = join(p.root, ".agents/skills/env-lab");
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), SKILL_MD);
  await Deno.writeTextFile(join(dir, "scripts/names.py"), ENV_PY);
  await Deno.writeTextFile(join(dir, "scripts/write.py"), WRITE_PY);
  await Deno.writeTextFile(join(dir, "scripts/pwd.py"), PWD_PY);
  await Deno.chmod(p.root, 0o755);
  const trusted = await p.cli(["trust", "env-lab", "--yes"], { cwd: p.root });
  assert.equal(trusted.code, 0, trusted.stderr);
  return p;
}

/** A PATH holding only the system's programs (Debian's python3 among them). */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

function receiptLine(stderr: string): string | undefined {
  return stderr.split("\n").find((line) => line.startsWith("receipt: "));
}

Deno.test(
  "a project skill run from the project root: no phantom files, no receipt when nothing changed",
  needsSandbox,
  async () => {
    await using p = await envLab();
    for (const args of [["env-lab", "names"], ["env-lab", "names", "--json"]]) {
      const result = await p.cli(["run", ...args], { cwd: p.root });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(receiptLine(result.stderr), undefined, `${args.join(" ")}: ${result.stderr}`);
    }
  },
);

Deno.test(
  "the receipt's env names exactly the variables the script received",
  needsSandbox,
  async () => {
    await using p = await envLab();
    // The system's python3, not a version manager's: a pyenv shim found first on PATH sets
    // its own variables (PYENV_VERSION, SHLVL, ...) on the way to the interpreter, which are
    // the shim's and not a variable skills passed.
    const result = await p.cli(["run", "-v", "env-lab", "names", "--json"], {
      cwd: p.root,
      env: { PATH: SYSTEM_PATH },
    });
    assert.equal(result.code, 0, result.stderr);
    const received: string[] = JSON.parse(result.stdout);
    const receipt = JSON.parse(receiptLine(result.stderr)!.slice(9));
    assert.deepEqual(receipt.env, received);
    for (
      const name of ["PWD", "SKILLS_CALLER_DIR", "SKILLS_WORK_DIR", "TMPDIR", "XDG_CACHE_HOME"]
    ) {
      assert.ok(receipt.env.includes(name), name);
    }
    assert.deepEqual(receipt.files.created, [], "the skill's own files are not the run's");
    // PWD, one of them, names the workspace the script starts in.
    const pwd = await p.cli(["run", "env-lab", "pwd", "--json"], { cwd: p.root });
    const root = await Deno.realPath(p.root);
    assert.deepEqual(JSON.parse(pwd.stdout), { PWD: root, cwd: root });
  },
);

Deno.test(
  "a change deeper than six folders is reported; an escape sequence in a name is inert",
  needsSandbox,
  async () => {
    await using p = await envLab();
    const deep = "out/a/b/c/d/e/f/benchmark.json";
    const result = await p.cli(["run", "env-lab", "write", deep], { cwd: p.root });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^receipt: env-lab\/write exit 0 in \d+ ms; 1 created \(out\/a\/b\/c\/d\/e\/f\/benchmark\.json\)$/m,
    );
    const hostile = "paint\u001b[2J\u001b[31mred.txt";
    const painted = await p.cli(["run", "env-lab", "write", hostile], { cwd: p.root });
    assert.equal(painted.code, 0, painted.stderr);
    assert.ok(!painted.stderr.includes("\u001b"), "no escape sequence reaches the terminal");
    assert.match(painted.stderr, /1 created \(paint\\x1b\[2J\\x1b\[31mred\.txt\)/);
  },
);
