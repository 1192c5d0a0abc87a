/**
 * Projects the real vercel-labs `skills` CLI (1.7.4, scripts/peer_cli.ts) set up, in our
 * hands: its install leaves `metadata.json` out while its `computedHash` covers the source,
 * so `install --frozen` checks what each tool's hash covers; and a lockfile holding twin
 * names (`my-tool` and `my_tool`, which the peer installs side by side) gets the naming rule
 * of `add`: the twins refused by name, everything else restored, no crash.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, fixtureGitEnv, git, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { peer } from "../../helpers/peer.ts";
import { project } from "../../helpers/project.ts";

/** Commits the project as it is (its .agents/skills too: the team layout) or its lockfile. */
/** The peer CLI adds every skill of `url` to the project, for codex. */
async function peerAddsAll(p: { root: string; dir: string }, url: string): Promise<void> {
  const added = await peer(p.root, p.dir, ["add", url, "--skill", "*", "--agent", "codex", "-y"]);
  assert.equal(added.code, 0, added.text);
}

async function commitProject(root: string, dir: string, paths: string[]): Promise<void> {
  const env = fixtureGitEnv(dir);
  await git(root, ["add", ...paths], env);
  await git(root, ["commit", "--quiet", "-m", "skills"], env);
}

Deno.test("install --frozen accepts skills the peer installed without their metadata.json; install pins them as they are", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", {
    "README.md": "# skills\n",
    ...skillFiles("alpha", "skills/alpha"),
    "skills/alpha/metadata.json": '{"version": "1.0.0", "organization": "example"}\n',
    "skills/alpha/rules/metadata.json": '{"nested": true}\n',
    "skills/alpha/rules/one.md": "# Rule one\n",
    ...skillFiles("beta", "skills/beta"),
  });
  await peerAddsAll(p, repo.url);
  await assert.rejects(Deno.stat(join(p.root, ".agents", "skills", "alpha", "metadata.json")));
  await commitProject(p.root, p.dir, ["skills-lock.json", ".agents"]);

  const frozen = await p.cli(["install", "--frozen"]);
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  assert.doesNotMatch(frozen.stdout + frozen.stderr, /differ|changed/);

  // Converted, the entry describes the files on disk: the next frozen run and check agree.
  const converted = await p.cli(["install"]);
  assert.equal(converted.code, 0, converted.stdout + converted.stderr);
  const alpha = (await p.lock()).skills.alpha!;
  assert.deepEqual(Object.keys(alpha.files).sort(), [
    "SKILL.md",
    "rules/one.md",
    "scripts/hello.py",
  ]);
  const again = await p.cli(["install", "--frozen"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);

  // A real change to an installed file is still a difference.
  await Deno.writeTextFile(
    join(p.root, ".agents", "skills", "beta", "SKILL.md"),
    skillMd("beta", "Edited."),
  );
  const edited = await p.cli(["install", "--frozen"]);
  assert.equal(edited.code, 1, edited.stdout + edited.stderr);
  assert.match(edited.stdout + edited.stderr, /beta/);
});

Deno.test("a peer lockfile with twin names: the twins are refused by name, the rest restored, the file kept", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", {
    "README.md": "# skills\n",
    "skills/my-tool/SKILL.md": skillMd("my-tool", "The first tool."),
    "skills/my_tool/SKILL.md": skillMd("my_tool", "The second tool."),
    ...skillFiles("other", "skills/other"),
  });
  await peerAddsAll(p, repo.url);
  const written = await Deno.readTextFile(join(p.root, "skills-lock.json"));
  assert.deepEqual(Object.keys(JSON.parse(written).skills).sort(), ["my-tool", "my_tool", "other"]);
  await commitProject(p.root, p.dir, ["skills-lock.json"]);
  const clone = join(p.dir, "clone");
  await git(p.dir, ["clone", "--quiet", p.root, clone], fixtureGitEnv(p.dir));

  const frozen = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(frozen.code, 1, frozen.stdout + frozen.stderr);
  assert.match(
    frozen.stdout,
    /my_tool: not installed: 'my-tool' would be installed under the same name 'my-tool'/,
  );
  assert.doesNotMatch(frozen.stdout + frozen.stderr, /Unexpected error|^\s+at /m);
  await assert.rejects(Deno.stat(join(clone, ".agents")), Deno.errors.NotFound);

  const installed = await p.cli(["install"], { cwd: clone });
  assert.equal(installed.code, 0, installed.stdout + installed.stderr);
  assert.doesNotMatch(installed.stdout + installed.stderr, /Unexpected error|^\s+at /m);
  assert.match(
    installed.stdout,
    /my-tool: not installed: 'my_tool' would be installed under the same name/,
  );
  const folders = [...Deno.readDirSync(join(clone, ".agents", "skills"))].map((e) => e.name);
  assert.deepEqual(folders, ["other"]);
  assert.equal(
    await Deno.readTextFile(join(clone, "skills-lock.json")),
    written,
    "the lockfile keeps the twins as the peer wrote them",
  );
});
