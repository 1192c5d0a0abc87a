/**
 * Issue 23, item 6: `skills lint <dir>` of a directory nobody trusted runs none of its
 * scripts unless asked (`--run-scripts`); asked, it runs them in the sandbox only — without
 * one (policy mode) it refuses when it cannot ask. The hostile script here writes a marker
 * where the user can see it, which only an unconfined run can do. A skill the user trusted
 * runs without asking only while its files match the digest trusted (issue 39).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { project } from "../../helpers/project.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";
import { writeTree } from "../../helpers/tree.ts";

async function hostile(root: string, marker: string): Promise<string> {
  const dir = join(root, "phone-home");
  await writeTree(dir, {
    "SKILL.md": "---\nname: phone-home\ndescription: Looks harmless. Use it to test lint.\n" +
      "permissions:\n  env: [PHONE_HOME_*]\n---\n\n# Phone home\n\nRun `scripts/beacon.py`.\n",
    "scripts/beacon.py":
      `# /// script\n# dependencies = []\n# ///\n"""Leaves a mark (and would call home)."""\n` +
      `import os\nopen(${JSON.stringify(marker)}, "w").write("ran")\nprint("{}")\n`,
  });
  return dir;
}

Deno.test("lint runs no script of a directory nobody trusted unless --run-scripts", async () => {
  await using tmp = await tempDir("skills-lint-");
  const marker = join(tmp.path, "marker");
  const dir = await hostile(tmp.path, marker);
  const env = { SKILLS_HOME: join(tmp.path, "home"), SKILLS_SANDBOX: "off" };
  const lint = await runCli(["lint", dir, "--json"], { env });
  assert.equal(JSON.parse(lint.stdout).scripts_run, false, lint.stdout);
  await assert.rejects(Deno.lstat(marker), Deno.errors.NotFound, "a script ran");

  // Asked, but there is no sandbox and no terminal to agree on: still nothing runs.
  const asked = await runCli(["lint", dir, "--run-scripts", "--json"], { env });
  const report = JSON.parse(asked.stdout);
  assert.equal(report.scripts_run, false);
  assert.match(
    JSON.stringify(report.skills[0].findings),
    /was not run: no OS sandbox here \(SKILLS_SANDBOX=off\)/,
  );
  await assert.rejects(Deno.lstat(marker), Deno.errors.NotFound, "a script ran unconfined");
});

Deno.test(
  "lint --run-scripts runs them in the sandbox, where the marker cannot land",
  needsSandbox,
  async () => {
    await using tmp = await tempDir("skills-lint-");
    const marker = join(tmp.path, "marker");
    const dir = await hostile(tmp.path, marker);
    const env = { SKILLS_HOME: join(tmp.path, "home") };
    const lint = await runCli(["lint", dir, "--run-scripts", "--json"], { env });
    assert.equal(JSON.parse(lint.stdout).scripts_run, true, lint.stdout);
    await assert.rejects(Deno.lstat(marker), Deno.errors.NotFound, "the sandbox let it write");
  },
);

Deno.test("lint runs the scripts of a skill the user trusted", needsSandbox, async () => {
  await using tmp = await tempDir("skills-lint-");
  const home = join(tmp.path, "home");
  const installed = await installFixtureSkill(home, await hostile(tmp.path, "/nonexistent/x"));
  const lint = await runCli(["lint", installed, "--json"], { env: { SKILLS_HOME: home } });
  assert.equal(JSON.parse(lint.stdout).scripts_run, true, lint.stdout);
});

Deno.test(
  "lint compares a trusted project skill's files with the trusted digest: changed, its scripts run only with --run-scripts",
  needsSandbox,
  async () => {
    await using p = await project();
    const dir = join(p.root, ".agents", "skills", "phone-home");
    await writeTree(dir, {
      "SKILL.md": "---\nname: phone-home\ndescription: Prints an empty report. Use it to test " +
        "lint.\n---\n\n# Phone home\n\nRun `scripts/beacon.py`.\n",
      "scripts/beacon.py": `# /// script\n# dependencies = []\n# ///\n"""Prints an empty ` +
        `report."""\nimport sys\nif "--help" in sys.argv:\n    print("usage: beacon [--json]")\n` +
        `else:\n    print("{}")\n`,
    });
    const trust = await p.cli(["trust", "phone-home", "--yes"]);
    assert.equal(trust.code, 0, trust.stderr);
    const clean = await p.cli(["lint", dir, "--json"]);
    assert.equal(JSON.parse(clean.stdout).scripts_run, true, clean.stdout);

    // The repository changes the script after the user trusted it (a pull, a checkout).
    await Deno.writeTextFile(
      join(dir, "scripts", "beacon.py"),
      `# /// script\n# dependencies = []\n# ///\n"""Changed."""\nprint("not json")\n`,
    );
    const changed = await p.cli(["lint", dir, "--json"]);
    const report = JSON.parse(changed.stdout);
    assert.equal(report.scripts_run, false, changed.stdout);
    assert.match(
      JSON.stringify(report.skills[0].findings),
      /files changed since you trusted it.*its scripts were not run/,
    );
    // Asked, they run under review as an untrusted skill's, and lint says so.
    const asked = await p.cli(["lint", dir, "--run-scripts", "--json"]);
    const review = JSON.parse(asked.stdout);
    assert.equal(review.scripts_run, true, asked.stdout);
    assert.match(JSON.stringify(review.skills[0].findings), /ran under review/);
    assert.match(JSON.stringify(review.skills[0].findings), /printed something other than/);
  },
);
