/**
 * A forge's browser URL of a folder on a branch whose name has slashes
 * (`…/-/tree/release/2.0/skills/alpha`, GitHub's `…/tree/feature/x/…` alike): the path is
 * read with its first segment as the ref, and when the repository has no such ref, split at
 * the longest branch or tag it starts with, as the forge itself reads it. Served over HTTPS
 * by the real `git http-backend`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, multiSkillFiles, skillFiles } from "../../fixtures/git_repos.ts";
import { startGitHttpsServer } from "../../fixtures/git_https_server.ts";
import { userHome } from "../../helpers/user_home.ts";

Deno.test("a browser URL of a branch with slashes installs from that branch and folder", async () => {
  await using ws = await userHome();
  const served = join(ws.dir.path, "served");
  const repo = await createRepo(join(served, "group"), "collection", multiSkillFiles(["alpha"]));
  await repo.checkout("release/2.0", true);
  const release = await repo.commit(skillFiles("alpha", "skills/alpha", "version: 2.0.0\n"));
  await repo.checkout("main");
  const server = await startGitHttpsServer(served, ws.dir.path);
  try {
    const env = { GIT_SSL_CAINFO: server.caFile };
    const page = `${server.origin}/group/collection/-`;

    const tree = await ws.cli(["add", `${page}/tree/release/2.0/skills/alpha`, "--yes"], { env });
    assert.equal(tree.code, 0, tree.stderr);
    // Announced with the ref and path as given (where the ref ends is known once fetched).
    assert.match(
      tree.stderr,
      /^Cloning \S+\/group\/collection\.git \(release\/2\.0\/skills\/alpha\) \.\.\.$/m,
    );
    const entry = (await ws.registry())!.skills.find((s) => s.name_canonical === "alpha")!;
    assert.equal(entry.branch, "release/2.0");
    assert.equal(entry.commit_sha, release);
    assert.equal(entry.source.subpath, "skills/alpha");
    assert.match(await Deno.readTextFile(join(ws.home, "alpha", "SKILL.md")), /version: 2\.0\.0/);
    assert.equal((await ws.cli(["remove", "alpha", "--yes"])).code, 0);

    // A file's URL names its folder, the same way.
    const blob = await ws.cli(
      ["add", `${page}/blob/release/2.0/skills/alpha/SKILL.md`, "--yes"],
      { env },
    );
    assert.equal(blob.code, 0, blob.stderr);
    assert.equal((await ws.registry())!.skills[0]!.branch, "release/2.0");

    // Gitea's, Forgejo's and Codeberg's page of the same folder.
    assert.equal((await ws.cli(["remove", "alpha", "--yes"])).code, 0);
    const gitea = await ws.cli(
      ["add", `${server.origin}/group/collection/src/branch/release/2.0/skills/alpha`, "--yes"],
      { env },
    );
    assert.equal(gitea.code, 0, gitea.stderr);
    assert.equal((await ws.registry())!.skills[0]!.branch, "release/2.0");

    // A path that fits no ref keeps the first reading's error, and leaves nothing behind.
    const none = await ws.cli(["add", `${page}/tree/nightly/x/skills/alpha`, "--yes"], { env });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /ref 'nightly' not found/);
    const staged = await Array.fromAsync(Deno.readDir(join(ws.home, ".staging"))).catch(() => []);
    assert.deepEqual(staged, []);
  } finally {
    await server.close();
  }
});
