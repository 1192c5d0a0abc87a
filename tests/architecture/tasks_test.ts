/**
 * The gate's tasks (deno.json): `deno task ok` writes the generated modules once, not once per
 * task it runs (each `deno task X` inside a command is a run of its own, with X's
 * dependencies); `deno task test` runs every folder of tests/; `test:quick` runs unit folders
 * only, each of them a folder that exists.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

interface Task {
  command?: string;
  dependencies?: string[];
}

const TASKS: Record<string, Task> = JSON.parse(
  Deno.readTextFileSync(join(REPO_ROOT, "deno.json")),
).tasks;

/**
 * How many times running `name` runs `target`: once through its dependencies however many
 * lead there (one `deno task` run runs each task once), plus once per nested `deno task` of
 * its command (quoted text, such as a message, is no command).
 */
export function runsOf(tasks: Record<string, Task>, name: string, target: string): number {
  if (name === target) return 1;
  const task = tasks[name];
  if (task === undefined) return 0;
  const command = (task.command ?? "").replace(/"(?:[^"\\]|\\.)*"/g, "");
  const nested = [...command.matchAll(/\bdeno task ([\w:-]+)/g)].map((m) => m[1]!);
  const viaDependencies = (task.dependencies ?? []).some((d) => runsOf(tasks, d, target) > 0);
  return (viaDependencies ? 1 : 0) +
    nested.reduce((n, child) => n + runsOf(tasks, child, target), 0);
}

const folders = (command: string) => command.split(/\s+/).filter((w) => w.startsWith("tests/"));

Deno.test("deno task ok, test and check each write the generated modules (gen:bundled) once", () => {
  for (const task of ["ok", "test", "check", "test:quick"]) {
    assert.equal(runsOf(TASKS, task, "gen:bundled"), 1, task);
  }
});

Deno.test("deno task test runs every test of tests/; test:quick only unit folders that exist", () => {
  assert.equal(runsOf(TASKS, "test", "test:run"), 1);
  assert.ok(folders(TASKS["test:run"]!.command!).includes("tests/"));
  const quick = folders(TASKS["test:quick"]!.command!);
  assert.ok(quick.length > 0);
  for (const folder of quick) {
    assert.ok(!/^tests\/(e2e|hardening)\//.test(folder), folder);
    assert.ok(Deno.statSync(join(REPO_ROOT, folder)).isDirectory, folder);
  }
});

Deno.test("runsOf counts a nested deno task as a run of its own", () => {
  const tasks: Record<string, Task> = {
    gen: { command: "gen" },
    check: { command: "deno check", dependencies: ["gen"] },
    test: { command: "deno test", dependencies: ["gen"] },
    ok: { command: "deno task check && deno task test", dependencies: ["gen"] },
    quiet: { command: 'echo "not a deno task check" && deno test', dependencies: ["gen", "check"] },
  };
  assert.equal(runsOf(tasks, "ok", "gen"), 3);
  assert.equal(runsOf(tasks, "test", "gen"), 1);
  assert.equal(runsOf(tasks, "quiet", "gen"), 1);
});
