/**
 * The trust workflow (runtime/workflows/trust.ts) with an in-memory asker: what the user is
 * shown and asked (the files' digest, the scope), what a yes records and a no leaves alone,
 * and what is refused before any question.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type TrustAsker,
  type TrustQuestion,
  trustWorkflow,
} from "../../../src/runtime/workflows/trust.ts";
import { untrustWorkflow } from "../../../src/runtime/workflows/untrust.ts";
import { bench, coded, projectTrustOf, registryOf } from "../../helpers/workflows.ts";

/** An asker that answers `yes` and keeps every question it was asked. */
function answering(yes: boolean): TrustAsker & { asked: TrustQuestion[] } {
  const asked: TrustQuestion[] = [];
  return { asked, approve: (q) => (asked.push(q), Promise.resolve(yes)) };
}

Deno.test("trustWorkflow asks about an untrusted installed skill with its digest, and records that digest", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await untrustWorkflow({ ...b.request, name: "alpha" }, {});
  const no = answering(false);
  await assert.rejects(trustWorkflow({ ...b.request, name: "alpha" }, no), coded("cancelled"));
  assert.equal((await registryOf(b.home)).skills[0]?.trusted, false, "a no records nothing");

  const yes = answering(true);
  const outcome = await trustWorkflow({ ...b.request, name: "alpha" }, yes);
  const [question] = yes.asked;
  assert.equal(question?.scope, "user");
  if (question?.scope !== "user" || outcome.scope !== "user") return;
  assert.equal(question.entry.name_canonical, "alpha");
  assert.equal(question.inspected.manifest?.description, "The alpha skill, for tests.");
  assert.equal(outcome.changed, true);
  const [entry] = (await registryOf(b.home)).skills;
  assert.deepEqual([entry?.trusted, entry?.trusted_digest], [true, question.digest]);

  // Trusted with these very files already: nothing is asked, nothing written.
  const again = answering(true);
  const same = await trustWorkflow({ ...b.request, name: "alpha" }, again);
  assert.deepEqual([again.asked, same.scope === "user" && same.changed], [[], false]);
});

Deno.test("trustWorkflow of a name both scopes hold asks about the project's skill, or the user's when asked", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await b.add("project", ["alpha"]);
  await untrustWorkflow({ ...b.request, name: "alpha" }, {});
  await untrustWorkflow({ ...b.request, name: "alpha", scope: "user" }, {});

  const yes = answering(true);
  const outcome = await trustWorkflow({ ...b.request, name: "alpha" }, yes);
  assert.deepEqual(yes.asked.map((q) => q.scope), ["project"]);
  assert.equal(outcome.scope, "project");
  const approved = (await projectTrustOf(b.home))[b.root]?.[".agents/skills/alpha"];
  assert.ok(outcome.scope === "project" && approved?.digest === outcome.review.digest);
  assert.equal((await registryOf(b.home)).skills[0]?.trusted, false, "the user's is left alone");

  const user = answering(true);
  await trustWorkflow({ ...b.request, name: "alpha", scope: "user" }, user);
  assert.deepEqual(user.asked.map((q) => q.scope), ["user"]);
  assert.equal((await registryOf(b.home)).skills[0]?.trusted, true);
});

Deno.test("trustWorkflow refuses a broken skill before asking; a bundled one is trusted without a question", async () => {
  await using b = await bench();
  await b.add("user", ["beta"]);
  await Deno.writeTextFile(
    join(b.home, "beta", "SKILL.md"),
    "---\nname: beta\n---\nno description\n",
  );
  const asker = answering(true);
  await assert.rejects(
    trustWorkflow({ ...b.request, name: "beta" }, asker),
    coded("invalid_manifest"),
  );
  const bundled = await trustWorkflow({ ...b.request, name: "hello-extended" }, asker);
  assert.deepEqual(bundled, { scope: "bundled", name: "hello-extended" });
  await assert.rejects(
    trustWorkflow({ ...b.request, name: "beta", scope: "project" }, asker),
    coded("not_found"),
  );
  assert.deepEqual(asker.asked, []);
});
