/**
 * `git replace` in a repository used as a source: `refs/replace/*` swaps one object for
 * another in every git command that honours it, so a repository read in place could let an
 * old signed commit stand in for an unsigned one at its tip, or give a signed commit a hostile
 * tree. Every git call of the CLI runs with `GIT_NO_REPLACE_OBJECTS=1`: what is verified and
 * read is the object whose hash was asked for.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { sshKeyPair as keypair } from "../../helpers/ssh_keys.ts";
import { readTree, writeSkillMd } from "../../helpers/tree.ts";

const signWith = (key: string) => ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}.pub`];

function writeSkill(dir: string, body: string): Promise<void> {
  return writeSkillMd(dir, "name: gsk\ndescription: A signed skill.", `# gsk\n\n${body}\n`);
}

async function signedRepository(dir: string, key: string): Promise<string> {
  await writeSkill(dir, "Signed body.");
  await git(dir, ["init", "--quiet", dir]);
  await git(dir, ["add", "-A"]);
  await git(dir, [...signWith(key), "commit", "-qS", "-m", "signed by alice"]);
  return await git(dir, ["rev-parse", "HEAD"]);
}

Deno.test("git replace: a signed commit replacing an unsigned tip does not make the tip signed", async () => {
  await using tmp = await tempDir();
  const alice = await keypair(tmp.path, "alice");
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "allowed_signers"), alice.line);
  const repo = join(tmp.path, "repo");
  const signed = await signedRepository(repo, alice.key);
  await writeSkill(repo, "Hostile body, never signed.");
  await git(repo, ["commit", "-qam", "unsigned"]);
  const unsigned = await git(repo, ["rev-parse", "HEAD"]);
  await git(repo, ["replace", unsigned, signed]);

  const out = await runCli(["add", `file://${repo}`, "--yes"], {
    env: { SKILLS_HOME: home, HOME: tmp.path },
  });
  assert.equal(out.code, 1, out.stdout + out.stderr);
  assert.match(out.stderr, /its commit is not signed/);
  assert.deepEqual(await readTree(join(home, "gsk")), new Map(), "nothing installed");
});

Deno.test("git replace: a signed commit's tree replaced by a hostile one installs the signed files", async () => {
  await using tmp = await tempDir();
  const alice = await keypair(tmp.path, "alice");
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "allowed_signers"), alice.line);
  const repo = join(tmp.path, "repo");
  await signedRepository(repo, alice.key);
  await writeSkill(repo, "Hostile body, never signed.");
  await git(repo, ["add", "-A"]);
  const hostileTree = await git(repo, ["write-tree"]);
  const signedTree = await git(repo, ["rev-parse", "HEAD^{tree}"]);
  await git(repo, ["replace", "-f", signedTree, hostileTree]);
  await git(repo, ["checkout", "--quiet", "--", "."]);

  const out = await runCli(["add", `file://${repo}`, "--yes"], {
    env: { SKILLS_HOME: home, HOME: tmp.path },
  });
  assert.equal(out.code, 0, out.stderr);
  const installed = await Deno.readTextFile(join(home, "gsk", "SKILL.md"));
  assert.match(installed, /Signed body\./);
  assert.doesNotMatch(installed, /Hostile/);
  const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
  assert.deepEqual(entry.signed, { by: "alice@example.com", format: "ssh" });
});
