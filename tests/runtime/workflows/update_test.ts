/**
 * The update workflow (runtime/workflows/update.ts) over a real repository that moves, with
 * an in-memory asker: which skills of which scope are asked about and in which order, what a
 * yes installs and records, what a no, a dry run or local changes leave as they were.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type UpdateAsker,
  type UpdateRequest,
  updateWorkflow,
} from "../../../src/runtime/workflows/update.ts";
import { bench, coded, registryOf } from "../../helpers/workflows.ts";

/** Says yes to the names in `accept`; keeps what it was shown, asked and told, in order. */
function answering(accept: readonly string[]) {
  const told: string[] = [];
  const asker: UpdateAsker = {
    preview: (plan) => void told.push(`preview ${plan.scope} ${plan.canonical}`),
    confirm: (
      plan,
    ) => (told.push(`ask ${plan.canonical}`), Promise.resolve(accept.includes(plan.canonical))),
    settled: (o) => void told.push(`${o.name} ${o.status}`),
  };
  return { asker, told };
}

const ALL = {
  names: [],
  all: true,
  dryRun: false,
  force: false,
  ref: undefined,
  allowRisky: false,
  allowUnsigned: false,
  acceptSignerChange: false,
} satisfies Partial<UpdateRequest>;

/** The commit skills-lock.json records for beta. */
const lockedCommit = async (root: string) =>
  JSON.parse(await Deno.readTextFile(join(root, "skills-lock.json"))).skills.beta.commit;
/** The commit the registry records for the one installed skill. */
const installedCommit = async (home: string) =>
  ((await registryOf(home)).skills[0] as unknown as { commit_sha: string }).commit_sha;

Deno.test("updateWorkflow asks about the project's skills then the user's, and records what was accepted", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await b.add("project", ["beta"]);
  const old = await b.repo.head();
  const head = await b.repo.commit({
    "skills/alpha/references/guide.md": "# alpha, revised\n",
    "skills/beta/references/guide.md": "# beta, revised\n",
  });

  const dry = answering(["alpha", "beta"]);
  const previewed = await updateWorkflow({ ...b.request, ...ALL, dryRun: true }, dry.asker);
  assert.deepEqual(previewed.map((o) => o.status), ["would_update", "would_update"]);
  assert.deepEqual(dry.told, ["beta would_update", "alpha would_update"], "a dry run asks nothing");
  assert.deepEqual([await lockedCommit(b.root), await installedCommit(b.home)], [old, old]);

  const { asker, told } = answering(["beta"]);
  const outcomes = await updateWorkflow({ ...b.request, ...ALL }, asker);
  assert.deepEqual(told, [
    "preview project beta",
    "ask beta",
    "beta updated",
    "preview user alpha",
    "ask alpha",
    "alpha declined",
  ]);
  assert.deepEqual(outcomes.map((o) => [o.name, o.status]), [["beta", "updated"], [
    "alpha",
    "declined",
  ]]);
  assert.deepEqual([await lockedCommit(b.root), await installedCommit(b.home)], [head, old]);
  assert.equal(
    await Deno.readTextFile(join(b.root, ".agents", "skills", "beta", "references", "guide.md")),
    "# beta, revised\n",
  );
});

Deno.test("updateWorkflow refuses to discard local changes unless forced, and then asks", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  const head = await b.repo.commit({ "skills/alpha/references/guide.md": "# alpha, revised\n" });
  const edited = join(b.home, "alpha", "references", "guide.md");
  await Deno.writeTextFile(edited, "# my own notes\n");
  const { asker, told } = answering(["alpha"]);
  await assert.rejects(
    updateWorkflow({ ...b.request, ...ALL, names: ["alpha"], all: false }, asker),
    coded("conflict"),
  );
  assert.deepEqual(told, []);
  assert.equal(await Deno.readTextFile(edited), "# my own notes\n");

  const forced = await updateWorkflow(
    { ...b.request, ...ALL, names: ["alpha"], all: false, force: true },
    asker,
  );
  assert.deepEqual(forced.map((o) => o.status), ["updated"]);
  assert.deepEqual(told, ["preview user alpha", "ask alpha", "alpha updated"]);
  assert.equal(await Deno.readTextFile(edited), "# alpha, revised\n");
  assert.equal(await installedCommit(b.home), head);
});

Deno.test("updateWorkflow asked of the project alone refuses a name only the user has", async () => {
  await using b = await bench();
  await b.add("user", ["alpha"]);
  await b.add("project", ["beta"]);
  const { asker, told } = answering(["alpha"]);
  await assert.rejects(
    updateWorkflow({ ...b.request, ...ALL, names: ["alpha"], all: false, scope: "project" }, asker),
    coded("not_found"),
  );
  assert.deepEqual(told, []);
  // Nothing moved upstream: up to date, and nothing asked.
  const same = await updateWorkflow({ ...b.request, ...ALL, scope: "project" }, asker);
  assert.deepEqual(same.map((o) => [o.name, o.status]), [["beta", "up_to_date"]]);
});
