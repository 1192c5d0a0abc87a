/**
 * `skills init` end to end (source or the bundle): the scaffold validates strictly,
 * installs with `skills add`, and its script runs with `skills run` at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";

Deno.test("skills init demo → validate --strict → add --yes → run demo demo --json", async () => {
  await using dir = await tempDir();
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const opts = { cwd: dir.path, env };

  const init = await runCli(["init", "demo"], opts);
  assert.equal(init.code, 0, init.stderr);
  assert.match(
    init.stdout,
    /^Created skill "demo" in .*\/demo\n {2}SKILL\.md\n {2}scripts\/demo\.py\n/,
  );
  assert.match(init.stderr, /skills add .*demo --yes/);

  const validate = await runCli(["validate", "--strict", "demo", "--json"], opts);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  const report = JSON.parse(validate.stdout);
  assert.equal(report.valid, true);
  assert.deepEqual(report.results[0].errors, []);
  assert.deepEqual(report.results[0].warnings, []);

  const add = await runCli(["add", "./demo", "--yes"], opts);
  assert.equal(add.code, 0, add.stdout + add.stderr);

  const run = await runCli(["run", "demo", "demo", "--name", "Ada", "--json"], opts);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { greeting: "Hello, Ada!", name: "Ada" });
});

Deno.test("skills init --with-toolset --dir scaffolds a strict-valid skill whose unittest and tool work", async () => {
  await using dir = await tempDir();
  const env = { SKILLS_HOME: join(dir.path, "home") };
  await Deno.mkdir(join(dir.path, "work"));

  const init = await runCli(
    ["init", "weather-report", "--with-toolset", "--dir", "work", "--json"],
    {
      cwd: dir.path,
      env,
    },
  );
  assert.equal(init.code, 0, init.stderr);
  const created = JSON.parse(init.stdout);
  const path = join(dir.path, "work", "weather-report");
  assert.equal(created.path, path);
  assert.equal(created.toolset, "toolsets.weather_report:WeatherReportTools");
  assert.equal(created.script, "weather_report");

  const validate = await runCli(["validate", "--strict", path], { cwd: dir.path, env });
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  assert.match(validate.stdout, /✓ weather-report .* 1 script, 1 toolset$/m);

  const unittest = await new Deno.Command("python3", {
    args: ["-m", "unittest", "discover", "-s", "tests"],
    cwd: path,
    env: { PATH: Deno.env.get("PATH") ?? "", PYTHONDONTWRITEBYTECODE: "1" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(unittest.stderr);
  assert.equal(unittest.code, 0, log);
  assert.match(log, /Ran 3 tests/);

  // metadata.toolsets is honoured: once installed, the toolset's tool answers.
  const add = await runCli(["add", path, "--yes"], { cwd: dir.path, env });
  assert.equal(add.code, 0, add.stdout + add.stderr);
  const call = await runCli(
    ["call", "weather-report", "greet", "--input", '{"name": "Ada", "excited": true}', "--json"],
    { cwd: dir.path, env },
  );
  assert.equal(call.code, 0, call.stdout + call.stderr);
  assert.deepEqual(JSON.parse(call.stdout), {
    success: true,
    result: "Hello, Ada!!!",
    message: "Greeted Ada",
  });
});

Deno.test("skills init refuses an existing directory (exit 1) and a bad name (exit 2)", async () => {
  await using dir = await tempDir();
  const opts = { cwd: dir.path, env: { SKILLS_HOME: join(dir.path, "home") } };
  await Deno.mkdir(join(dir.path, "demo"));

  const exists = await runCli(["init", "demo"], opts);
  assert.equal(exists.code, 1);
  assert.equal(exists.stdout, "");
  assert.match(exists.stderr, /^error: Cannot create skill "demo": .*demo already exists\nhint: /);

  const traversal = await runCli(["init", "../etc", "--json"], opts);
  assert.equal(traversal.code, 2);
  assert.equal(JSON.parse(traversal.stdout).error, "invalid_name");
  const entries = [];
  for await (const entry of Deno.readDir(dir.path)) entries.push(entry.name);
  assert.deepEqual(entries.sort(), ["demo"]);
});
