/**
 * The add workflow below the CLI (runtime/workflows/add.ts) driven by an asker that is no
 * terminal, as the MCP server or the library would supply: it chooses, is shown each
 * summary, confirms or declines, and gets back what was done, for either scope.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { isSkillError } from "../../../src/core/errors.ts";
import { addWorkflow } from "../../../src/runtime/workflows/add.ts";
import type { AddAsker, AddReview } from "../../../src/runtime/workflows/add_steps.ts";
import { tempDir } from "../../helpers/cli.ts";
import { skillMd } from "../../fixtures/git_repos.ts";
import { bench } from "../../helpers/workflows.ts";

async function fixture(path: string) {
  const home = join(path, "home");
  const root = join(path, "app");
  const vendor = join(path, "vendor");
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  for (const name of ["alpha", "beta"]) {
    await Deno.mkdir(join(vendor, "skills", name), { recursive: true });
    await Deno.writeTextFile(join(vendor, "skills", name, "SKILL.md"), skillMd(name));
  }
  return { home, root, vendor };
}

/** An asker that records what it was told and says yes to the names in `accept`. */
function recordingAsker(accept: readonly string[], choose?: AddAsker["choose"]) {
  const reviews: AddReview[] = [];
  const asked: string[] = [];
  const asker: AddAsker = {
    ...(choose === undefined ? {} : { choose }),
    review: (review) => void reviews.push(review),
    confirm: (review) => {
      asked.push(review.plan.canonical);
      return Promise.resolve(accept.includes(review.plan.canonical));
    },
  };
  return { asker, reviews, asked };
}

const OPTIONS = { list: false, plan: {}, agents: [], env: {} };

Deno.test("addWorkflow installs what its asker chose and confirmed into $SKILLS_HOME", async () => {
  await using tmp = await tempDir();
  const { home, root, vendor } = await fixture(tmp.path);
  const source = { source: vendor, refs: {}, skills: [] };
  const { asker, reviews, asked } = recordingAsker(
    ["beta"],
    (candidates) => Promise.resolve(candidates.filter((c) => c.canonical === "beta")),
  );
  const outcome = await addWorkflow(
    { ...OPTIONS, ...source, home, cwd: root, scope: "user" },
    asker,
  );
  assert.equal(outcome.kind, "user");
  if (outcome.kind !== "user") return;
  assert.deepEqual(outcome.installed.map((p) => p.canonical), ["beta"]);
  assert.deepEqual([outcome.already, outcome.refused], [[], []]);
  assert.deepEqual(reviews.map((r) => [r.scope, r.plan.canonical]), [["user", "beta"]]);
  assert.deepEqual(asked, ["beta"]);
  assert.ok((await Deno.stat(join(home, "beta", "SKILL.md"))).isFile);
  await assert.rejects(Deno.stat(join(home, "alpha")), Deno.errors.NotFound);
});

Deno.test("addWorkflow into a project commits only what was confirmed, and nothing when all is declined", async () => {
  await using tmp = await tempDir();
  const { home, root, vendor } = await fixture(tmp.path);
  const options = {
    ...OPTIONS,
    source: vendor,
    refs: {},
    skills: ["*"],
    home,
    cwd: root,
    scope: "project",
  } as const;
  const { asker, reviews, asked } = recordingAsker(["alpha"]);
  const outcome = await addWorkflow(options, asker);
  assert.equal(outcome.kind, "project");
  if (outcome.kind !== "project") return;
  assert.equal(outcome.lockfile, join(root, "skills-lock.json"));
  assert.deepEqual(outcome.installed.map((p) => p.canonical), ["alpha"]);
  assert.deepEqual(asked, ["alpha", "beta"]);
  assert.ok(reviews.every((r) => r.scope === "project"));
  const lock = JSON.parse(await Deno.readTextFile(outcome.lockfile));
  assert.deepEqual(Object.keys(lock.skills), ["alpha"]);

  const declining = recordingAsker([]);
  await assert.rejects(
    addWorkflow(options, declining.asker),
    (error) => isSkillError(error) && error.code === "cancelled",
  );
  // alpha is there already: only beta was asked about, and declined.
  assert.deepEqual(declining.asked, ["beta"]);
  const after = JSON.parse(await Deno.readTextFile(outcome.lockfile));
  assert.deepEqual(Object.keys(after.skills), ["alpha"]);
});

Deno.test("addWorkflow --list from a real repository shows its skills, asks nothing and installs nothing", async () => {
  await using b = await bench();
  const { asker, asked } = recordingAsker(["alpha", "beta"]);
  const request = { ...b.request, ...OPTIONS, source: b.repo.url, refs: {}, skills: [] };
  const outcome = await addWorkflow({ ...request, list: true }, asker);
  assert.equal(outcome.kind, "list");
  if (outcome.kind !== "list") return;
  assert.deepEqual(outcome.candidates.map((c) => c.canonical).sort(), ["alpha", "beta"]);
  assert.equal(outcome.fetched.commit?.sha, await b.repo.head());
  assert.deepEqual(asked, []);
  await assert.rejects(Deno.stat(join(b.home, "registry.json")), Deno.errors.NotFound);

  // Installed once, the same skill is "already installed" the second time: not asked again.
  await addWorkflow({ ...request, skills: ["alpha"], scope: "user" }, asker);
  const again = await addWorkflow({ ...request, skills: ["alpha"], scope: "user" }, asker);
  assert.deepEqual(asked, ["alpha"]);
  assert.ok(again.kind === "user" && again.installed.length === 0 && again.already.length === 1);
});
