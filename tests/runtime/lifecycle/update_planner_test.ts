/**
 * The update planner both scopes share (issue 25): a skill's own folder decides, one fetch
 * per remote and ref serves every skill of a command, and a change frees the fetches no
 * skill still needs. Real repositories in a temp dir, a real Change.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseSource } from "../../../src/core/sources/sources.ts";
import { resolveParsed } from "../../../src/runtime/lifecycle/resolve_source.ts";
import { beginChange } from "../../../src/runtime/lifecycle/change.ts";
import { assessSkill, type TrackedSkill } from "../../../src/runtime/lifecycle/update_planner.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import { createRepo, multiSkillFiles } from "../../fixtures/git_repos.ts";
import { tempDir } from "../../helpers/cli.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

Deno.test("assessSkill() tells a changed skill from one whose repository moved, reading one shared fetch", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", multiSkillFiles(["alpha", "beta"]));
  const first = await repo.head();
  // What each folder held at the first commit, as a scope would have recorded it.
  const digests = new Map<string, string>();
  for (const name of ["alpha", "beta"]) {
    digests.set(name, await computeDigest(join(repo.work, "skills", name)));
  }
  const latest = await repo.commit({ "skills/beta/notes.md": "new\n" });
  const progress: string[] = [];
  const home = join(tmp.path, "home");
  await using change = await beginChange({ kind: "user", home }, {
    env: ENV,
    progress: (line) => progress.push(line),
  });
  const tracked = (name: string): TrackedSkill => ({
    name,
    scope: "user",
    source: resolveParsed(parseSource(repo.url)),
    subpath: `skills/${name}`,
    branch: "main",
    tag: null,
    ref: null,
    commit: first,
    digest: digests.get(name)!,
  });
  const options = { digestOf: computeDigest };
  const alpha = await assessSkill(tracked("alpha"), change, options);
  const beta = await assessSkill(tracked("beta"), change, options);
  assert.equal(alpha.status, "moved");
  assert.equal(beta.status, "changed");
  assert.equal(alpha.latest, latest);
  assert.equal(beta.latest, latest);
  assert.deepEqual(progress.filter((l) => l.startsWith("Fetching")), [`Fetching ${repo.url} ...`]);
  assert.deepEqual(progress.filter((l) => l.startsWith("Checking")), [`Checking ${repo.url} ...`]);

  // Up to date: the branch still points at the recorded commit, so nothing is fetched.
  const now = await assessSkill({ ...tracked("alpha"), commit: latest }, change, options);
  assert.equal(now.status, "up_to_date");
  // Pinned: left alone without asking the remote.
  const pinned = await assessSkill(
    { ...tracked("alpha"), branch: null, ref: first },
    change,
    options,
  );
  assert.equal(pinned.status, "pinned");

  // Freed when no skill still to come needs that remote; the next one fetches again.
  assert.ok(beta.status === "changed");
  const root = beta.found.fetched.root;
  change.releaseShared(new Set([repo.url]));
  assert.ok(await Deno.stat(root), "still needed: kept");
  change.releaseShared(new Set());
  assert.equal(await Deno.stat(root).catch(() => null), null);
  await assessSkill(tracked("alpha"), change, options);
  assert.equal(progress.filter((l) => l.startsWith("Fetching")).length, 2);
});
