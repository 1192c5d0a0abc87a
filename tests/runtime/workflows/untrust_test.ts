/**
 * The untrust workflow (runtime/workflows/untrust.ts) with an in-memory asker: which scope's
 * trust a name withdraws (a project skill wins unless the user's scope is asked), what is
 * refused, and that the skill stays installed, only no longer trusted.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { untrustWorkflow } from "../../../src/runtime/workflows/untrust.ts";
import type { ScopeChoice } from "../../../src/runtime/workflows/request.ts";
import { bench, coded, projectTrustOf, registryOf } from "../../helpers/workflows.ts";

Deno.test("untrustWorkflow withdraws an installed skill's trust; the skill stays, a second call changes nothing", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  const notes: string[] = [];
  const asker = { note: (text: string) => void notes.push(text) };
  const outcome = await untrustWorkflow({ ...b.request, name: "Alpha" }, asker);
  assert.deepEqual(outcome, { scope: "user", name: "alpha", changed: true });
  const [entry] = (await registryOf(b.home)).skills;
  assert.deepEqual([entry?.name_canonical, entry?.trusted], ["alpha", false]);
  assert.ok((await Deno.stat(join(b.home, "alpha", "SKILL.md"))).isFile);
  const again = await untrustWorkflow({ ...b.request, name: "alpha" }, asker);
  assert.deepEqual(again, { scope: "user", name: "alpha", changed: false });
  assert.deepEqual(notes, []);
});

Deno.test("untrustWorkflow of a name both scopes hold withdraws the project's approval, or the user's when asked", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await b.add("project", ["alpha"]);
  const approvals = async () => Object.keys((await projectTrustOf(b.home))[b.root] ?? {});
  assert.deepEqual(await approvals(), [".agents/skills/alpha"]);

  const project = await untrustWorkflow({ ...b.request, name: "alpha" }, {});
  assert.deepEqual(project, { scope: "project", name: "alpha", changed: true });
  assert.deepEqual(await approvals(), []);
  assert.equal((await registryOf(b.home)).skills[0]?.trusted, true, "the user's stays trusted");
  assert.ok((await Deno.stat(join(b.root, ".agents", "skills", "alpha", "SKILL.md"))).isFile);

  const user = await untrustWorkflow({ ...b.request, name: "alpha", scope: "user" }, {});
  assert.deepEqual(user, { scope: "user", name: "alpha", changed: true });
  assert.equal((await registryOf(b.home)).skills[0]?.trusted, false);
});

Deno.test("untrustWorkflow refuses a bundled skill and a name no scope holds, writing nothing", async () => {
  await using b = await bench();
  await b.add("user", ["beta"]);
  const before = await Deno.readTextFile(join(b.home, "registry.json"));
  await assert.rejects(
    untrustWorkflow({ ...b.request, name: "hello-extended" }, {}),
    coded("permission_denied"),
  );
  await assert.rejects(untrustWorkflow({ ...b.request, name: "gamma" }, {}), coded("not_found"));
  // Asked of the project alone, an installed skill is not the project's.
  const projectOnly: ScopeChoice = "project";
  await assert.rejects(
    untrustWorkflow({ ...b.request, name: "Beta", scope: projectOnly }, {}),
    (error) => coded("not_found")(error) && /No project skill 'beta' here/.test(String(error)),
  );
  assert.equal(await Deno.readTextFile(join(b.home, "registry.json")), before);
});
