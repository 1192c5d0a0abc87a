/**
 * `skills check` and `skills list` tell a skill that cannot run from one that can: files
 * changed since they were trusted (skills run → integrity_mismatch) and a toolset that
 * fails to import are shown with the reason and the fix, and the doctor exits 1.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { installFixtureSkill, installRunnerSkill } from "../../helpers/install_fixture.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("a skill edited after it was trusted is ✗ in check, 'changed' in list, with the fix", async () => {
  await using home = await tempDir();
  const installed = await installRunnerSkill(home.path, "runner-lab");
  const env = { SKILLS_HOME: home.path };
  const before = await runCli(["check"], { env });
  assert.equal(before.code, 0, before.stdout + before.stderr);

  await Deno.writeTextFile(join(installed, "scripts", "echo_args.py"), "print('tampered')\n");
  const run = await runCli(["run", "runner-lab", "echo_args", "--json"], { env });
  assert.equal(JSON.parse(run.stdout).error, "integrity_mismatch");

  const check = await runCli(["check"], { env });
  assert.equal(check.code, 1);
  assert.match(
    check.stdout,
    /✗ runner-lab \(inactive\) - files changed since it was trusted; review it \(skills info runner-lab\), then run `skills trust runner-lab`/,
  );
  const json = JSON.parse((await runCli(["check", "--json"], { env })).stdout);
  assert.equal(json.healthy, false);
  const lab = json.skills.find((s: { name: string }) => s.name === "runner-lab");
  assert.equal(lab.status, "modified");
  assert.match(lab.fix, /skills trust runner-lab/);

  const list = JSON.parse((await runCli(["list", "--json"], { env })).stdout);
  const row = list.skills.find((s: { name: string }) => s.name === "runner-lab");
  assert.equal(row.state, "modified");
  assert.equal(row.state_reason, "files changed since it was trusted");
  const table = await runCli(["list"], { env });
  assert.match(table.stdout, /^runner-lab\s.*\schanged\s/m);
  const bundled = list.skills.find((s: { name: string }) => s.name === "kalshi-markets");
  assert.equal(bundled.state, "ok");

  const trust = await runCli(["trust", "runner-lab", "--yes"], { env });
  assert.equal(trust.code, 0, trust.stderr);
  assert.equal((await runCli(["check"], { env })).code, 0, "trusting again heals it");
});

/**
 * runner-lab installed in a scratch home and settled (listings then keep its digests), with
 * its state in `list --json`, twice "ok" before the test changes anything.
 */
async function settledRunnerLab(home: string) {
  const installed = await installRunnerSkill(home, "runner-lab");
  const env = { SKILLS_HOME: home };
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const state = async () => {
    const list = JSON.parse((await runCli(["list", "--json"], { env })).stdout);
    return list.skills.find((s: { name: string }) => s.name === "runner-lab").state;
  };
  assert.equal(await state(), "ok");
  assert.equal(await state(), "ok", "answered from the listing's digests and stat keys");
  return { installed, env, state };
}

Deno.test("list reports a skill edited after a listing recorded its digest as modified, and run refuses it", async () => {
  await using home = await tempDir();
  const { installed, env, state } = await settledRunnerLab(home.path);

  const script = join(installed, "scripts", "echo_args.py");
  const original = await Deno.readTextFile(script);
  // Same size, other bytes.
  await Deno.writeTextFile(script, original.replace(/./, (c) => c === "#" ? "x" : "#"));
  assert.equal(await state(), "modified");
  const run = await runCli(["run", "runner-lab", "echo_args", "--json"], { env });
  assert.equal(JSON.parse(run.stdout).error, "integrity_mismatch");
});

Deno.test("list tells an edit that keeps the size and the mtime, and a same-size replacement, as modified", async () => {
  await using home = await tempDir();
  const { installed, env, state } = await settledRunnerLab(home.path);

  // One byte changed in place, the size kept and the mtime put back (`touch -d`): only the
  // change time, which no user can set, tells.
  const script = join(installed, "scripts", "echo_args.py");
  const before = await Deno.stat(script);
  const original = await Deno.readTextFile(script);
  const file = await Deno.open(script, { write: true });
  await file.write(new TextEncoder().encode(original[0] === "#" ? "x" : "#"));
  file.close();
  const touch = await new Deno.Command("touch", {
    args: ["-d", before.mtime!.toISOString(), script],
  }).output();
  assert.ok(touch.success);
  const after = await Deno.stat(script);
  assert.equal(after.size, before.size);
  assert.equal(after.mtime!.getTime(), before.mtime!.getTime());
  assert.equal(await state(), "modified");

  const trust = await runCli(["trust", "runner-lab", "--yes"], { env });
  assert.equal(trust.code, 0, trust.stderr);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  assert.equal(await state(), "ok");
  assert.equal(await state(), "ok");

  // Another file of the same size and mtime moved over it: a new inode.
  const trusted = await Deno.readTextFile(script);
  const mtime = (await Deno.stat(script)).mtime!;
  const other = join(home.path, "other.py");
  await Deno.writeTextFile(other, trusted.replace(/./, (c) => c === "#" ? "x" : "#"));
  await Deno.utime(other, mtime, mtime);
  await Deno.rename(other, script);
  assert.equal((await Deno.stat(script)).size, trusted.length);
  assert.equal(await state(), "modified");
  const run = await runCli(["run", "runner-lab", "echo_args", "--json"], { env });
  assert.equal(JSON.parse(run.stdout).error, "integrity_mismatch");
});

Deno.test("a skill whose toolset fails to import is ! in check with the import error", async () => {
  await using home = await tempDir();
  await using source = await tempDir();
  const dir = join(source.path, "broken-tools");
  await writeTree(dir, {
    "SKILL.md": "---\nname: broken-tools\ndescription: A skill whose toolset cannot import.\n" +
      "toolsets: [toolsets.calc:Calc]\n---\n\n# Broken tools\n",
    "toolsets/calc.py":
      "import not_installed_anywhere_xyz\n\nclass Calc:\n    def add(self, a: int) -> int:\n        return a\n",
  });
  await installFixtureSkill(home.path, dir);
  const env = { SKILLS_HOME: home.path };
  const check = await runCli(["check"], { env });
  assert.equal(check.code, 1, check.stdout);
  assert.match(
    check.stdout,
    /! broken-tools \(inactive\) - toolset failed to load: toolsets\.calc:Calc: ModuleNotFoundError: No module named 'not_installed_anywhere_xyz'/,
  );
  const json = JSON.parse((await runCli(["check", "--json"], { env })).stdout);
  const skill = json.skills.find((s: { name: string }) => s.name === "broken-tools");
  assert.equal(skill.status, "toolset_error");
});
