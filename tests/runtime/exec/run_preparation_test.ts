/**
 * How `skills run` is prepared (runtime/exec/run_preparation.ts), over real scopes: the project's
 * skill of a name is the one that runs, trusted by this user or refused (an installed skill of
 * the same name never stands in), and a second run of the same script takes the plan the first
 * one kept (`--verbose` says so).
 */

import assert from "node:assert/strict";
import { runPreparation } from "../../../src/runtime/exec/run_preparation.ts";
import { untrustWorkflow } from "../../../src/runtime/workflows/untrust.ts";
import { bench, coded } from "../../helpers/workflows.ts";

Deno.test("runPreparation prepares the project's skill of a name, and refuses it once untrusted", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await b.add("project", ["alpha"]);
  const log: string[] = [];
  const deps = { ...b.request, log: (line: string) => void log.push(line) };
  const asked = { skill: "alpha", script: "hello", args: [], scriptHelp: false };
  // Files unchanged for two seconds before the command began: the plan may be kept.
  const startedAt = Date.now() + 3_000;
  const first = await (await runPreparation({ ...asked, startedAt }, deps)).prepare();
  assert.equal(first.skill.scope, "project");
  assert.equal(first.script.name, "hello");
  assert.ok(!log.some((l) => l.startsWith("run plan used")));

  const second = await (await runPreparation({ ...asked, startedAt }, deps)).prepare();
  assert.ok(log.some((l) => l.startsWith("run plan used")), log.join("\n"));
  assert.equal(second.skill.scope, "project");

  await untrustWorkflow({ ...b.request, name: "alpha" }, {});
  const untrusted = await runPreparation({ ...asked, startedAt: Date.now() }, deps);
  await assert.rejects(untrusted.prepare(), coded("untrusted"));
});
