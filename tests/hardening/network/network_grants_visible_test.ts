/**
 * Issue 23, item 3: the hosts a skill may reach are shown where the user decides, and a
 * widened grant needs consent: `add`'s summary and `info` name them, `update`'s review flags a
 * change of `permissions.network` like one of `permissions.env`, and skills-lock.json records
 * them, so `install --frozen` refuses a SKILL.md asking more than the lockfile approved.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { project } from "../../helpers/project.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";

const NETWORK = "permissions:\n  network:\n    - api.example.com:443\n";

Deno.test("add's summary and info show the declared hosts; update flags a widened grant", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "netty", skillFiles("netty", "", NETWORK));
  const add = await p.cli(["add", repo.url, "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr, /Network: +api\.example\.com:443/);
  const info = await p.cli(["info", "netty"]);
  assert.match(info.stdout, /^Network +api\.example\.com:443$/m);
  const json = JSON.parse((await p.cli(["info", "netty", "--json"])).stdout);
  assert.deepEqual(json.permissions.network, ["api.example.com:443"]);

  await repo.commit({
    "SKILL.md": skillFiles("netty", "", "permissions:\n  network: true\n")["SKILL.md"]!,
  });
  const review = await p.cli(["update", "netty", "--dry-run"]);
  assert.match(
    review.stdout + review.stderr,
    /! permissions\.network: api\.example\.com:443 → any public host/,
  );
  assert.match(review.stdout + review.stderr, /review: .*permissions.* changed/);
});

Deno.test("skills-lock.json records the hosts; install --frozen refuses a SKILL.md asking more", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "netty", skillFiles("netty", "", NETWORK));
  const add = await p.cli(["add", repo.url, "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const lock = await p.lock();
  assert.deepEqual(lock.skills.netty!.permissions.network, ["api.example.com:443"]);

  // A lockfile that approves less than the skill asks (no network at all).
  const path = join(p.root, "skills-lock.json");
  const narrowed = JSON.parse(await Deno.readTextFile(path));
  narrowed.skills.netty.permissions.network = [];
  await Deno.writeTextFile(path, JSON.stringify(narrowed, null, 2));
  await Deno.remove(join(p.root, ".agents", "skills"), { recursive: true });
  const frozen = await p.cli(["install", "--frozen"]);
  assert.equal(frozen.code, 1, frozen.stdout);
  assert.match(
    frozen.stdout + frozen.stderr,
    /permissions\.network differ: skills-lock\.json approves \[\], SKILL\.md.* asks \[api\.example\.com:443\]/,
  );
  await assert.rejects(
    Deno.lstat(join(p.root, ".agents", "skills", "netty")),
    Deno.errors.NotFound,
  );
});
