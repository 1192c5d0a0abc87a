/**
 * The install workflow (runtime/workflows/install.ts) over a project's real lockfile and a
 * real repository: what a user finds restored, trusted or held back, and that `--frozen`
 * writes nothing unless everything agrees. Nothing is asked; the asker only hears notes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { installWorkflow } from "../../../src/runtime/workflows/install.ts";
import { untrustWorkflow } from "../../../src/runtime/workflows/untrust.ts";
import { bench, coded, projectTrustOf } from "../../helpers/workflows.ts";

const OPTIONS = { frozen: false, force: false, trust: false };

Deno.test("installWorkflow restores a missing locked skill, says it is untrusted, and trusts on request", async () => {
  await using b = await bench();
  await b.add("project", ["alpha", "beta"]);
  await untrustWorkflow({ ...b.request, name: "alpha" }, {});
  const alpha = join(b.root, ".agents", "skills", "alpha");
  await Deno.remove(alpha, { recursive: true });

  const outcome = await installWorkflow({ ...b.request, ...OPTIONS }, {});
  assert.deepEqual([outcome.report.restored, outcome.report.present], [["alpha"], ["beta"]]);
  assert.deepEqual([outcome.blocking, outcome.untrusted, outcome.trusted], [[], ["alpha"], []]);
  assert.equal(outcome.lockfile, join(b.root, "skills-lock.json"));
  assert.ok((await Deno.stat(join(alpha, "SKILL.md"))).isFile);

  const trusting = await installWorkflow({ ...b.request, ...OPTIONS, trust: true }, {});
  assert.deepEqual([trusting.report.restored, trusting.trusted], [[], ["alpha", "beta"]]);
  const approved = Object.keys((await projectTrustOf(b.home))[b.root] ?? {}).sort();
  assert.deepEqual(approved, [".agents/skills/alpha", ".agents/skills/beta"]);
});

Deno.test("installWorkflow under --frozen writes nothing when a folder differs from the lockfile", async () => {
  await using b = await bench();
  await b.add("project", ["alpha", "beta"]);
  const alpha = join(b.root, ".agents", "skills", "alpha");
  await Deno.remove(alpha, { recursive: true });
  const guide = join(b.root, ".agents", "skills", "beta", "references", "guide.md");
  await Deno.writeTextFile(guide, "# edited by hand\n");

  const outcome = await installWorkflow({ ...b.request, ...OPTIONS, frozen: true }, {});
  assert.deepEqual(outcome.blocking.map((m) => m.skill), ["beta"]);
  assert.deepEqual(outcome.report.restored, []);
  await assert.rejects(Deno.stat(alpha), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(guide), "# edited by hand\n");
});

Deno.test("installWorkflow without a lockfile is not_found", async () => {
  await using b = await bench();
  await assert.rejects(installWorkflow({ ...b.request, ...OPTIONS }, {}), coded("not_found"));
});
