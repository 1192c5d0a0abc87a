/**
 * A project's skills-lock.json as a team lives with it: committed, then cloned afresh (a
 * real `git clone` of the project in a temp dir). A file in vercel-labs' exact format —
 * version 1, `source`, `sourceType`, `ref`, `skillPath` present for one skill and absent for
 * another whose folder is not named like it, `computedHash` — restores in a fresh clone;
 * converted and committed, it restores pinned in the next fresh clone even after the source
 * moved on, and still reads as vercel-labs' CLI expects.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, fixtureGitEnv, git, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { type LockEntryShape, project } from "../../helpers/project.ts";
import { vercelHash } from "../../helpers/project.ts";

/** Commits the lockfile in `from` and clones `from` into a new folder of `dir`. */
async function commitAndClone(from: string, dir: string, name: string): Promise<string> {
  const env = fixtureGitEnv(dir);
  await git(from, ["add", "skills-lock.json"], env);
  await git(from, ["commit", "--quiet", "--allow-empty", "-m", "skills"], env);
  const clone = join(dir, name);
  await git(dir, ["clone", "--quiet", from, clone], env);
  return clone;
}

Deno.test("vercel-labs' lockfile (skillPath present and absent) restores in a fresh clone; converted and committed, the next fresh clone restores it pinned", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "agent-skills", {
    "README.md": "# skills\n",
    ...skillFiles("alpha", "skills/alpha"),
    // Named otherwise than its folder, as in vercel-labs/agent-skills.
    ...skillFiles("react-best-practices", "skills/react"),
  });
  const peerFormat = {
    version: 1,
    skills: {
      alpha: {
        source: repo.url,
        sourceType: "git",
        ref: "main",
        skillPath: "skills/alpha/SKILL.md",
        computedHash: await vercelHash(join(repo.work, "skills", "alpha")),
      },
      "react-best-practices": {
        source: repo.url,
        sourceType: "git",
        computedHash: await vercelHash(join(repo.work, "skills", "react")),
      },
    },
  };
  const peerText = JSON.stringify(peerFormat, null, 2) + "\n";
  await Deno.writeTextFile(join(p.root, "skills-lock.json"), peerText);
  const first = await commitAndClone(p.root, p.dir, "first");

  const frozen = await p.cli(["install", "--frozen"], { cwd: first });
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  assert.equal(await Deno.readTextFile(join(first, "skills-lock.json")), peerText);
  for (const [name, folder] of [["alpha", "alpha"], ["react-best-practices", "react"]]) {
    assert.deepEqual(
      await p.files(join(first, ".agents", "skills", name!)),
      await p.files(join(repo.work, "skills", folder!)),
      name,
    );
  }

  const convert = await p.cli(["install"], { cwd: first });
  assert.equal(convert.code, 0, convert.stdout + convert.stderr);
  const converted = JSON.parse(await Deno.readTextFile(join(first, "skills-lock.json")));
  const locked = converted.skills as Record<string, LockEntryShape>;
  const head = await repo.head();
  assert.equal(converted.version, 1, "still the peer's version");
  assert.equal(locked["react-best-practices"]!.skillPath, "skills/react/SKILL.md");
  for (const name of ["alpha", "react-best-practices"] as const) {
    assert.equal(locked[name]!.commit, head, name);
    assert.equal(locked[name]!.computedHash, peerFormat.skills[name].computedHash, name);
  }

  // The source moves on; a fresh clone of the converted project restores the locked commit.
  await repo.commit({ "skills/alpha/SKILL.md": skillMd("alpha", "Moved on upstream.") });
  const second = await commitAndClone(first, p.dir, "second");
  const pinned = await p.cli(["install", "--frozen"], { cwd: second });
  assert.equal(pinned.code, 0, pinned.stdout + pinned.stderr);
  assert.doesNotMatch(pinned.stderr, /resolved anew/);
  assert.match(
    (await p.files(join(second, ".agents", "skills", "alpha"))).get("SKILL.md")!,
    /The alpha skill, for tests\./,
    "the locked commit's files, not the branch's new tip",
  );
});
