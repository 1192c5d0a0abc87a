/**
 * `skills publish --well-known DIR` against a real static server on loopback and the real
 * vercel-labs `skills` CLI: the index it writes is served as it is, both tools install the
 * same files from it, and each restores the other's skills-lock.json for those skills in a
 * fresh clone.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../helpers/cli.ts";
import { freshClone, peer } from "../../helpers/peer.ts";
import { project } from "../../helpers/project.ts";
import { serveFolder, sha256Digest } from "../../helpers/static_site.ts";
import { readTree, writeTree } from "../../helpers/tree.ts";

const skillMd = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill, served from a website.\n---\n# ${name}\n\nFollow the guide.\n`;

/** alpha is only its SKILL.md; beta has a script and a reference. */
async function writeSkills(dir: string): Promise<void> {
  await writeTree(dir, {
    "alpha/SKILL.md": skillMd("alpha"),
    "beta/SKILL.md": skillMd("beta"),
    "beta/references/guide.md": "The guide.\n",
    "beta/scripts/run.sh": "#!/bin/sh\necho beta\n",
  });
  await Deno.chmod(join(dir, "beta/scripts/run.sh"), 0o755);
}

Deno.test("publish --well-known writes an index a static server serves; ours and the peer install the same files from it", async () => {
  await using p = await project();
  await writeSkills(join(p.dir, "skills"));
  const site = join(p.dir, "site");
  const published = await runCli([
    "publish",
    "--well-known",
    site,
    join(p.dir, "skills"),
    "--json",
  ]);
  assert.equal(published.code, 0, published.stderr);
  const index = JSON.parse(
    await Deno.readTextFile(join(site, ".well-known/agent-skills/index.json")),
  );
  assert.equal(index.$schema, "https://schemas.agentskills.io/discovery/0.2.0/schema.json");
  assert.deepEqual(index.skills.map((s: { name: string; type: string }) => [s.name, s.type]), [
    ["alpha", "skill-md"],
    ["beta", "archive"],
  ]);
  const beta = await Deno.readFile(join(site, ".well-known/agent-skills/beta.tar.gz"));
  assert.equal(index.skills[1].digest, await sha256Digest(beta));
  // Publishing again gives the same bytes (a deterministic archive, the same digest).
  await runCli(["publish", "--well-known", site, join(p.dir, "skills")]);
  assert.deepEqual(await Deno.readFile(join(site, ".well-known/agent-skills/beta.tar.gz")), beta);

  await using server = serveFolder(site);
  const ours = await p.cli(["add", server.url, "--skill", "*", "--project", "--yes"]);
  assert.equal(ours.code, 0, ours.stderr);
  const theirsRoot = join(p.dir, "theirs");
  await Deno.mkdir(theirsRoot);
  const theirs = await peer(theirsRoot, p.dir, [
    "add",
    server.url,
    "--skill",
    "*",
    "--agent",
    "codex",
    "-y",
  ]);
  assert.equal(theirs.code, 0, theirs.text);
  for (const name of ["alpha", "beta"]) {
    assert.deepEqual(
      await readTree(join(theirsRoot, ".agents", "skills", name)),
      await readTree(join(p.root, ".agents", "skills", name)),
      `${name}: both tools installed the same files`,
    );
  }
  const peerLock = JSON.parse(await Deno.readTextFile(join(theirsRoot, "skills-lock.json")));
  assert.equal(peerLock.skills.beta.sourceType, "well-known");
  assert.equal(peerLock.skills.beta.wellKnownDigest, index.skills[1].digest);
  const ourLock = await p.lock();
  assert.equal(ourLock.skills.beta!.sourceType, "well-known");
  assert.equal(ourLock.skills.beta!.commit, index.skills[1].digest);
});

Deno.test("each tool restores the other's skills-lock.json for website skills in a fresh clone", async () => {
  await using p = await project();
  await writeSkills(join(p.dir, "skills"));
  const site = join(p.dir, "site");
  assert.equal((await runCli(["publish", "--well-known", site, join(p.dir, "skills")])).code, 0);
  await using server = serveFolder(site);

  // Ours wrote the lockfile; the peer restores it.
  const add = await p.cli(["add", server.url, "--skill", "*", "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const clone = await freshClone(p.root, p.dir);
  const restored = await peer(clone, p.dir, ["experimental_install"]);
  assert.equal(restored.code, 0, restored.text);
  for (const name of ["alpha", "beta"]) {
    assert.deepEqual(
      await readTree(join(clone, ".agents", "skills", name)),
      await readTree(join(p.root, ".agents", "skills", name)),
      `${name}: the peer restored our entry's files`,
    );
  }

  // The peer wrote the lockfile (it rewrote the entries it restored); ours restores it.
  await Deno.remove(join(clone, ".agents", "skills"), { recursive: true });
  const peerLock = JSON.parse(await Deno.readTextFile(join(clone, "skills-lock.json")));
  assert.equal(peerLock.skills.alpha.digest, undefined, "the peer's own entry");
  const frozen = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  for (const name of ["alpha", "beta"]) {
    assert.deepEqual(
      await readTree(join(clone, ".agents", "skills", name)),
      await readTree(join(p.root, ".agents", "skills", name)),
      `${name}: ours restored the peer's entry`,
    );
  }
});
