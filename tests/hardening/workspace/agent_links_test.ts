/**
 * Issue 23, item 1: `skills link` never writes through a symlink a cloned repository ships.
 * A project whose `.claude` (or `.claude/skills`) links to the user's global `~/.claude` gets
 * neither the link nor, with `--copy`, the skill's files there: the command refuses, naming
 * the component, and the global folder stays empty.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { project } from "../../helpers/project.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";

for (const planted of [".claude", ".claude/skills"]) {
  for (const copy of [false, true]) {
    Deno.test(`link${copy ? " --copy" : ""} refuses a project whose ${planted} is a symlink out of it`, async () => {
      await using p = await project();
      const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));
      const add = await p.cli(["add", repo.url, "--project", "--yes"]);
      assert.equal(add.code, 0, add.stderr);
      // The user's global Claude folder, and the repository's link to it.
      const global = join(p.dir, ".claude-global");
      await Deno.mkdir(join(global, "skills"), { recursive: true });
      const linkAt = join(p.root, ...planted.split("/"));
      await Deno.mkdir(join(linkAt, ".."), { recursive: true });
      await Deno.symlink(planted === ".claude" ? global : join(global, "skills"), linkAt);

      const args = ["link", "alpha", "--agent", "claude-code", ...(copy ? ["--copy"] : [])];
      const link = await p.cli(args);
      assert.notEqual(link.code, 0, link.stdout);
      assert.match(
        link.stdout + link.stderr,
        new RegExp(`${planted.replace(".", "\\.")} is a symlink \\(to [^)]+\\) in the project`),
      );
      assert.deepEqual([...Deno.readDirSync(join(global, "skills"))], [], "nothing written there");
    });
  }
}

Deno.test("link --global still follows the user's own links inside their home", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));
  assert.equal((await p.cli(["add", repo.url, "--yes"])).code, 0);
  // $HOME is p.dir: ~/.codeium/windsurf (Windsurf reads ~/.codeium/windsurf/skills) is the
  // user's own link to a folder of their dotfiles, in their home.
  const dotfiles = join(p.dir, "dotfiles", "windsurf");
  await Deno.mkdir(dotfiles, { recursive: true });
  await Deno.mkdir(join(p.dir, ".codeium"), { recursive: true });
  await Deno.symlink(dotfiles, join(p.dir, ".codeium", "windsurf"));
  const link = await p.cli(["link", "alpha", "--agent", "windsurf", "--global"]);
  assert.equal(link.code, 0, link.stdout + link.stderr);
  assert.ok(Deno.lstatSync(join(dotfiles, "skills", "alpha")).isSymlink);
});
