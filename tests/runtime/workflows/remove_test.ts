/**
 * The remove workflow (runtime/workflows/remove.ts) with an in-memory asker: which scope a
 * name is removed from, what is asked about and in which order, what a no keeps, and what
 * is refused before anything goes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type Removal,
  type RemoveAsker,
  removeWorkflow,
} from "../../../src/runtime/workflows/remove.ts";
import { bench, coded, projectTrustOf, registryOf } from "../../helpers/workflows.ts";

/** Says yes to the names in `accept`; keeps what it was asked and told, in order. */
function answering(accept: readonly string[]) {
  const told: string[] = [];
  const nameOf = (r: Removal) => r.scope === "project" ? r.key : r.entry.name_canonical;
  const asker: RemoveAsker = {
    confirm: (
      r,
    ) => (told.push(`ask ${r.scope} ${nameOf(r)}`), Promise.resolve(accept.includes(nameOf(r)))),
    removed: (scope, done) => void told.push(`removed ${scope} ${done.removed.join(",")}`),
  };
  return { asker, told };
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("removeWorkflow removes a name both scopes hold from the project, and a user-only name from the home", async () => {
  await using b = await bench();
  await b.add("user", ["alpha", "beta"]);
  await b.add("project", ["alpha"]);
  const { asker, told } = answering(["alpha", "beta"]);
  const outcome = await removeWorkflow({ ...b.request, names: ["alpha", "beta"] }, asker);
  assert.deepEqual(told, [
    "ask project alpha",
    "removed project alpha",
    "ask user beta",
    "removed user beta",
  ]);
  assert.deepEqual(outcome.asked, 2);
  assert.equal(await exists(join(b.root, ".agents", "skills", "alpha")), false);
  const lock = JSON.parse(await Deno.readTextFile(join(b.root, "skills-lock.json")));
  assert.deepEqual(Object.keys(lock.skills), []);
  assert.deepEqual((await projectTrustOf(b.home))[b.root] ?? {}, {});
  // The user's alpha was not named for the user's scope: it stays; beta is gone.
  assert.deepEqual((await registryOf(b.home)).skills.map((e) => e.name_canonical), ["alpha"]);
  assert.equal(await exists(join(b.home, "beta")), false);
  assert.equal(await exists(join(b.home, "alpha", "SKILL.md")), true);
});

Deno.test("removeWorkflow keeps what the asker declined, and refuses when nothing was confirmed", async () => {
  await using b = await bench();
  await b.add("user", ["alpha", "beta"]);
  const registry = await Deno.readTextFile(join(b.home, "registry.json"));
  const none = answering([]);
  await assert.rejects(
    removeWorkflow({ ...b.request, names: ["alpha", "beta"] }, none.asker),
    coded("cancelled"),
  );
  assert.deepEqual(none.told, ["ask user alpha", "ask user beta"]);
  assert.equal(await Deno.readTextFile(join(b.home, "registry.json")), registry);

  const some = answering(["beta"]);
  const outcome = await removeWorkflow({ ...b.request, names: ["alpha", "beta"] }, some.asker);
  assert.deepEqual([outcome.user.removed, outcome.asked], [["beta"], 2]);
  assert.deepEqual((await registryOf(b.home)).skills.map((e) => e.name_canonical), ["alpha"]);
});

Deno.test("removeWorkflow asked of one scope refuses a name the other holds, before anything goes", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await b.add("project", ["beta"]);
  const { asker, told } = answering(["alpha", "beta"]);
  await assert.rejects(
    removeWorkflow({ ...b.request, names: ["beta", "alpha"], scope: "project" }, asker),
    coded("not_found"),
  );
  await assert.rejects(
    removeWorkflow({ ...b.request, names: ["beta"], scope: "user" }, asker),
    coded("not_found"),
  );
  assert.deepEqual(told, []);
  assert.equal(await exists(join(b.root, ".agents", "skills", "beta", "SKILL.md")), true);
  assert.deepEqual((await registryOf(b.home)).skills.map((e) => e.name_canonical), ["alpha"]);
});
