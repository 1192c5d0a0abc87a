/**
 * scripts/test_run.ts, the runner of `deno task test:run` and `test:quick`: the tests' folders
 * live in one scratch folder, `tempDir()` leaves them to it, and the runner removes it once at
 * the end, passing deno test's exit code on, pass or fail.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../helpers/cli.ts";

const PROBE = `
import { tempDir } from ${JSON.stringify(join(REPO_ROOT, "tests/helpers/cli.ts"))};
Deno.test("probe", async () => {
  const scratch = Deno.env.get("SKILLS_TEST_SCRATCH") ?? "";
  let path = "";
  {
    await using dir = await tempDir();
    path = dir.path;
    Deno.mkdirSync(path + "/sealed/inner", { recursive: true });
    Deno.chmodSync(path + "/sealed", 0o555);
  }
  let left = true;
  try { Deno.statSync(path); } catch { left = false; }
  const mode = scratch === "" ? 0 : Deno.statSync(scratch).mode! & 0o7777;
  console.log(JSON.stringify({ scratch, tmpdir: Deno.env.get("TMPDIR"), path, left, mode }));
  if (Deno.env.get("PROBE_FAIL") === "1") throw new Error("asked to fail");
});
`;

interface ProbeRun {
  code: number;
  report: { scratch: string; tmpdir: string; path: string; left: boolean; mode: number };
}

async function probe(dir: string, runner: boolean, fail: boolean): Promise<ProbeRun> {
  const file = join(dir, "probe_test.ts");
  await Deno.writeTextFile(file, PROBE);
  const args = runner
    ? ["run", "--allow-all", join(REPO_ROOT, "scripts/test_run.ts"), "--allow-all", "--no-check"]
    : ["test", "--allow-all", "--no-check"];
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...args, file],
    cwd: dir,
    env: { PROBE_FAIL: fail ? "1" : "0", SKILLS_TEST_SCRATCH: "", TMPDIR: dir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const line = text.split("\n").find((l) => l.startsWith('{"scratch"'));
  assert.ok(line !== undefined, text + new TextDecoder().decode(out.stderr));
  return { code: out.code, report: JSON.parse(line) };
}

const exists = (path: string) => {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
};

Deno.test("the test runner keeps the tests' folders in one scratch folder and removes it at the end, pass or fail", async () => {
  await using dir = await tempDir();
  for (const fail of [false, true]) {
    const { code, report } = await probe(dir.path, true, fail);
    assert.equal(code, fail ? 1 : 0);
    // Every temporary folder of the run is inside the scratch folder, itself in TMPDIR.
    assert.ok(report.scratch.startsWith(`${dir.path}/skills-test-run-`), report.scratch);
    assert.equal(report.tmpdir, report.scratch);
    // Open to every user as /tmp is (sticky): the tests that run as an ordinary user reach it.
    assert.equal(report.mode, 0o1777);
    assert.ok(report.path.startsWith(`${report.scratch}/`), report.path);
    // tempDir() left its folder for the run's removal, which took it, sealed folder and all.
    assert.equal(report.left, true);
    assert.equal(exists(report.scratch), false, report.scratch);
  }
});

Deno.test("outside the test runner, tempDir() removes its folder at the end of its scope", async () => {
  await using dir = await tempDir();
  const { code, report } = await probe(dir.path, false, false);
  assert.equal(code, 0);
  assert.equal(report.scratch, "");
  assert.equal(report.left, false);
});
