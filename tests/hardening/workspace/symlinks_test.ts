/**
 * Issue 23, item 10: docs/security.md and behaviour agree on symlinks inside a skill. A skill holds
 * none: one pointing inside the skill is refused by `validate` and by `add` (from a git
 * repository and from a folder) exactly like one pointing out of it, and nothing is
 * installed. (Before, `validate` called an inside link "ignored" while `add` failed on it.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";

const CASES: [string, string][] = [
  ["inside the skill", "references/guide.md"],
  ["out of it", "/etc/hostname"],
];
for (const [label, target] of CASES) {
  Deno.test(`a symlink ${label} makes the skill invalid, and add installs nothing`, async () => {
    await using tmp = await tempDir();
    const repo = await createRepo(tmp.path, "linked", {
      ...skillFiles("linked"),
      "references/guide.md": "the guide\n",
    });
    await Deno.symlink(target, join(repo.work, "GUIDE.md"));
    await repo.commit({}, "a symlink");
    const home = join(tmp.path, "home");
    const validated = await runCli(["validate", repo.work], { env: { SKILLS_HOME: home } });
    assert.equal(validated.code, 1, validated.stdout);
    assert.match(validated.stdout, /GUIDE\.md: error: symlink GUIDE\.md .*refused/);
    for (const source of [repo.url, repo.work]) {
      const added = await runCli(["add", source, "--yes"], { env: { SKILLS_HOME: home } });
      assert.notEqual(added.code, 0, added.stdout);
      assert.match(added.stderr, /symlink GUIDE\.md .*refused/);
      await assert.rejects(Deno.lstat(join(home, "linked")), Deno.errors.NotFound, source);
    }
  });
}
