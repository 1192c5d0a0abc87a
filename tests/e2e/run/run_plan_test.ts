/**
 * The run plan (src/runtime/exec/run_plan.ts): a second `skills run` of an unchanged skill
 * skips the catalog and the trust check, and prints what the first printed; any change to
 * what the plan was decided from — the installed files, the verified copy, the registry, a
 * project skill appearing in the working directory, a trusted project skill its repository
 * changed — takes the full path again and gets its answer. A plan is kept only for files unchanged for two seconds before the command began,
 * so each home here is set up first and the test waits once.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";
import { project } from "../../helpers/project.ts";

const GREET = pyScript('import json\nprint(json.dumps({"greeting": "hello"}))');

interface Lab {
  root: string;
  home: string;
  /** The working directory runs start from (an empty folder, no project around). */
  cwd: string;
  installed: string;
  run(args: string[]): Promise<CliResult>;
}

/** A home with the `greeter` skill installed and trusted, and an empty working folder. */
async function lab(root: string): Promise<Lab> {
  const home = join(root, "home");
  const cwd = join(root, "work");
  await writeTree(join(root, "src", "greeter"), {
    "SKILL.md": skillMd("greeter"),
    "scripts/greet.py": GREET,
  });
  const installed = await installFixtureSkill(home, join(root, "src", "greeter"));
  await Deno.mkdir(cwd);
  const run = (args: string[]) =>
    runCli(["run", "--verbose", ...args], {
      cwd,
      env: { SKILLS_HOME: home, SKILLS_SANDBOX: "off" },
    });
  return { root, home, cwd, installed, run };
}

const PLAN_USED = "run plan used";

/** Runs `args` until a plan is kept (the first run makes the verified copy, too new to key). */
async function planned(lab: Pick<Lab, "run">, args: string[]): Promise<CliResult> {
  for (let i = 0; i < 3; i++) {
    const result = await lab.run(args);
    assert.equal(result.code, 0, result.stderr);
    if (result.stderr.includes(PLAN_USED)) return result;
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  }
  throw new Error("no run plan was ever used");
}

/** Refused as trust refuses a changed skill, the plan not used because `greet.py` changed. */
function refusedAsChanged(result: CliResult): void {
  assert.notEqual(result.code, 0);
  assert.equal(JSON.parse(result.stdout).error, "integrity_mismatch");
  assert.match(result.stderr, /run plan not used: .*greet\.py changed/);
}

Deno.test("a second run of an unchanged skill reuses its plan and prints the same", async () => {
  await using root = await tempDir();
  const greeter = await lab(root.path);
  const first = await greeter.run(["greeter", "greet", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  assert.ok(!first.stderr.includes(PLAN_USED), "nothing to reuse on the first run");
  const again = await planned(greeter, ["greeter", "greet", "--json"]);
  assert.equal(again.stdout, first.stdout);
  assert.deepEqual(JSON.parse(again.stdout), { greeting: "hello" });
  // The bundled skills go the same way.
  const bundled = await planned(greeter, [
    "hello-extended",
    "advanced_greeting",
    "--name",
    "Ada",
    "--json",
  ]);
  assert.match(bundled.stdout, /"greeting"/);
});

Deno.test("an installed file changed after the plan was kept is refused, as without a plan", async () => {
  await using root = await tempDir();
  const greeter = await lab(root.path);
  await planned(greeter, ["greeter", "greet", "--json"]);
  await Deno.writeTextFile(join(greeter.installed, "scripts", "greet.py"), "print('changed')\n");
  refusedAsChanged(await greeter.run(["greeter", "greet", "--json"]));
});

Deno.test("a verified copy changed behind the plan's back runs as verified again", async () => {
  await using root = await tempDir();
  const greeter = await lab(root.path);
  await planned(greeter, ["greeter", "greet", "--json"]);
  const copies = join(greeter.home, ".cache", "run");
  const copy = [...Deno.readDirSync(copies)].find((e) =>
    e.isDirectory && e.name.startsWith("greeter-")
  );
  assert.ok(copy, "the verified copy exists");
  const script = join(copies, copy.name, "scripts", "greet.py");
  await Deno.chmod(join(copies, copy.name, "scripts"), 0o755);
  await Deno.chmod(script, 0o644);
  await Deno.writeTextFile(script, 'print(\'{"greeting": "planted"}\')\n');
  const result = await greeter.run(["greeter", "greet", "--json"]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { greeting: "hello" });
  assert.match(result.stderr, /run plan not used/);
});

Deno.test("a project skill of the same name shadows the planned one at once", async () => {
  await using root = await tempDir();
  const greeter = await lab(root.path);
  await planned(greeter, ["greeter", "greet", "--json"]);
  // A repository the user just cloned: its skill is listed first, and is not trusted.
  await writeTree(join(greeter.cwd, ".agents", "skills", "greeter"), {
    "SKILL.md": skillMd("greeter"),
    "scripts/greet.py": pyScript('print(\'{"greeting": "from the repository"}\')'),
  });
  const result = await greeter.run(["greeter", "greet", "--json"]);
  assert.notEqual(result.code, 0);
  assert.equal(JSON.parse(result.stdout).error, "untrusted");
  assert.ok(!result.stderr.includes(PLAN_USED));
});

Deno.test("a trusted project skill is planned, and refused once the repository changes it", async () => {
  await using p = await project();
  await writeTree(join(p.root, ".agents", "skills", "gamma"), {
    "SKILL.md": skillMd("gamma"),
    "scripts/greet.py": GREET,
  });
  const trusted = await p.cli(["trust", "gamma", "--yes"]);
  assert.equal(trusted.code, 0, trusted.stderr);
  const gamma = {
    run: (args: string[]) =>
      p.cli(["run", "--verbose", ...args], { env: { SKILLS_SANDBOX: "off" } }),
  };
  const again = await planned(gamma, ["gamma", "greet", "--json"]);
  assert.deepEqual(JSON.parse(again.stdout), { greeting: "hello" });
  // A pull, a branch switch, or someone's commit: the script is not the one approved.
  await Deno.writeTextFile(
    join(p.root, ".agents", "skills", "gamma", "scripts", "greet.py"),
    'print(\'{"greeting": "changed"}\')\n',
  );
  refusedAsChanged(await gamma.run(["gamma", "greet", "--json"]));
});

Deno.test("a removed skill is gone for the plan too", async () => {
  await using root = await tempDir();
  const greeter = await lab(root.path);
  await planned(greeter, ["greeter", "greet", "--json"]);
  const removed = await runCli(["remove", "greeter", "--yes"], {
    cwd: greeter.cwd,
    env: { SKILLS_HOME: greeter.home },
  });
  assert.equal(removed.code, 0, removed.stderr);
  const result = await greeter.run(["greeter", "greet", "--json"]);
  assert.notEqual(result.code, 0);
  assert.equal(JSON.parse(result.stdout).error, "not_found");
});
