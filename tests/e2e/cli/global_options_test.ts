/**
 * The command line around the commands, end to end: global options before the command
 * name, aliases, and the hints for unknown commands.
 */

import assert from "node:assert/strict";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";

Deno.test("skills --json list prints the document skills list --json prints", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path, AGENT_SKILLS: "kalshi-markets" };
  const after = await runCli(["list", "--json"], { env });
  const before = await runCli(["--json", "list"], { env });
  assert.equal(after.code, 0, after.stderr);
  assert.equal(before.code, 0, before.stderr);
  assert.equal(before.stdout, after.stdout);
  assert.equal(before.stderr, after.stderr);
  assert.ok(JSON.parse(before.stdout).skills.length >= 2, before.stdout);
});

Deno.test("skills --verbose check logs debug lines; skills check does not", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const verbose = await runCli(["--verbose", "check"], { env });
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stderr, /^debug: home .*registry\.json\)$/m);
  assert.match(verbose.stderr, /^debug: git: /m);
  const quiet = await runCli(["check"], { env });
  assert.doesNotMatch(quiet.stderr, /debug:/);
  assert.equal(quiet.stdout, verbose.stdout);
});

Deno.test("global options before `run` are run's own; after <script> they are the script's", async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const env = { SKILLS_HOME: home.path };
  const before = await runCli(["--verbose", "--json", "run", "runner-lab", "echo_args", "a"], {
    env,
  });
  assert.equal(before.code, 0, before.stderr);
  assert.match(before.stderr, /^debug: run runner-lab\/echo_args\.py: /m);
  const own = await runCli(["run", "--verbose", "--json", "runner-lab", "echo_args", "a"], { env });
  assert.equal(before.stdout, own.stdout); // JSON mode hands the script --json itself
  assert.deepEqual(JSON.parse(before.stdout).args, ["a", "--json"]);
  const after = await runCli(["run", "runner-lab", "echo_args", "--verbose", "--json"], { env });
  assert.equal(after.code, 0, after.stderr);
  assert.doesNotMatch(after.stderr, /debug:/);
  assert.deepEqual(JSON.parse(after.stdout).args, ["--verbose", "--json"]);
});

Deno.test("skills --help <command> shows that command's help", async () => {
  const viaGlobal = await runCli(["--help", "list"]);
  const viaCommand = await runCli(["list", "--help"]);
  assert.equal(viaGlobal.code, 0);
  assert.equal(viaGlobal.stdout, viaCommand.stdout);
  assert.match(viaGlobal.stdout, /^Usage: skills list/);
});

Deno.test("skills ls and skills rm are list and remove", async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const env = { SKILLS_HOME: home.path };
  const list = await runCli(["list", "--json"], { env });
  const ls = await runCli(["ls", "--json"], { env });
  assert.equal(ls.code, 0, ls.stderr);
  assert.equal(ls.stdout, list.stdout);
  const rm = await runCli(["rm", "runner-lab", "--yes", "--json"], { env });
  assert.equal(rm.code, 0, rm.stderr);
  assert.deepEqual(JSON.parse(rm.stdout).removed, ["runner-lab"]);
  const names = JSON.parse((await runCli(["ls", "--json"], { env })).stdout).skills.map((
    s: { canonical: string },
  ) => s.canonical);
  assert.ok(!names.includes("runner-lab"), names.join(" "));
  const help = await runCli(["uninstall", "--help"]);
  assert.match(help.stdout, /^Usage: skills remove .*\nAliases: rm, uninstall\n/);
});

Deno.test("skills install <source> is refused with a pointer to skills add (exit 2)", async () => {
  // `skills install` restores a project's lockfile (issue 17); with a source it is a usage
  // error that still points to `skills add`.
  const result = await runCli(["install", "owner/repo"]);
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.equal(
    result.stderr,
    "error: `skills install` restores the project's skills-lock.json; it takes no source\n" +
      "hint: Did you mean `skills add owner/repo`? (add --project records it in the lockfile)\n",
  );
});

Deno.test("a mistyped command gets the nearest command as a hint; a stranger word gets --help", async () => {
  const typo = await runCli(["upate", "--all"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /^hint: Did you mean `skills update`\?$/m);
  const json = await runCli(["--json", "lsit"]);
  assert.equal(json.code, 2);
  assert.deepEqual(JSON.parse(json.stdout), {
    success: false,
    error: "usage",
    message: "Unknown command 'lsit'\nDid you mean `skills list`?",
  });
  const stranger = await runCli(["frobnicate"]);
  assert.equal(stranger.code, 2);
  assert.match(stranger.stderr, /^hint: Run `skills --help` to see the commands$/m);
});
