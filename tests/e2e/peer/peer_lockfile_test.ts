/**
 * One skills-lock.json, two tools — against the real vercel-labs `skills` CLI from npm
 * (scripts/peer_cli.ts installs it into a cache folder; .ci/run does so before the tests).
 * Everything is local: bare repositories reached by `file://` (or served over HTTPS on
 * loopback, where the peer can fetch a commit by its id), a project committed and cloned
 * afresh, no network.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { freshClone, peer } from "../../helpers/peer.ts";
import { createRepo, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { startGitHttpsServer } from "../../fixtures/git_https_server.ts";
import { type LockEntryShape, project } from "../../helpers/project.ts";

function collection(): Record<string, string> {
  return {
    "README.md": "# skills\n",
    ...skillFiles("alpha", "skills/alpha"),
    ...skillFiles("beta", "skills/beta"),
  };
}

/** Every file of a folder with its sha256, as a lock entry's `files` lists them. */
async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string, rel: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) await walk(join(at, entry.name), path);
      else {
        out[path] = createHash("sha256").update(await Deno.readFile(join(at, entry.name)))
          .digest("hex");
      }
    }
  };
  await walk(dir, "");
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

Deno.test("vercel-labs' skills CLI restores our skills-lock.json in a fresh clone, byte for byte; ours then reads the file it rewrote", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  const add = await p.cli([
    "add",
    repo.url,
    "--project",
    "--skill",
    "alpha",
    "--skill",
    "beta",
    "--yes",
  ]);
  assert.equal(add.code, 0, add.stderr);
  const ours = (await p.lock()).skills as Record<string, LockEntryShape>;
  const clone = await freshClone(p.root, p.dir);

  const restored = await peer(clone, p.dir, ["experimental_install"]);
  assert.equal(restored.code, 0, restored.text);
  assert.match(restored.text, /Restoring 2 skills from skills-lock\.json/);
  for (const name of ["alpha", "beta"]) {
    assert.deepEqual(
      await hashes(join(clone, ".agents", "skills", name)),
      ours[name]!.files,
      `${name}: the peer installed exactly the files we recorded`,
    );
  }
  // The peer rewrites each entry it restores with its own fields only.
  const rewritten = JSON.parse(await Deno.readTextFile(join(clone, "skills-lock.json")));
  assert.equal(rewritten.skills.alpha.commit, undefined);
  assert.equal(rewritten.skills.alpha.computedHash, ours.alpha!.computedHash);

  // Back in our hands: verified against its computedHash, then pinned again.
  const frozen = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  const convert = await p.cli(["install"], { cwd: clone });
  assert.equal(convert.code, 0, convert.stdout + convert.stderr);
  const back = JSON.parse(await Deno.readTextFile(join(clone, "skills-lock.json")));
  assert.equal(back.lockfileVersion, 2);
  for (const name of ["alpha", "beta"]) {
    assert.equal(back.skills[name].commit, ours[name]!.commit, name);
    assert.deepEqual(back.skills[name].files, ours[name]!.files, name);
  }
});

Deno.test("vercel-labs' `skills add` into our skills-lock.json keeps our entries; ours restores both in a fresh clone", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  const add = await p.cli(["add", repo.url, "--project", "--skill", "alpha", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const alpha = (await p.lock()).skills.alpha!;

  const theirs = await peer(p.root, p.dir, [
    "add",
    repo.url,
    "--skill",
    "beta",
    "--agent",
    "codex",
    "-y",
  ]);
  assert.equal(theirs.code, 0, theirs.text);
  const mixed = JSON.parse(await Deno.readTextFile(join(p.root, "skills-lock.json")));
  assert.deepEqual(mixed.skills.alpha, alpha, "the peer spreads our entry as it was");
  assert.equal(mixed.skills.beta.skillPath, "skills/beta/SKILL.md");
  const check = await p.cli(["check"]);
  assert.doesNotMatch(check.stdout + check.stderr, /not in skills-lock\.json/);
  // Our next change waits for `skills install` to pin what the peer wrote.
  const next = await p.cli(["add", repo.url, "--project", "--skill", "alpha", "--yes"]);
  assert.equal(next.code, 1, next.stdout + next.stderr);
  assert.match(next.stderr, /has entries vercel-labs' skills CLI wrote/);
  assert.match(next.stderr, /Run `skills install` first/);

  const clone = await freshClone(p.root, p.dir);
  const frozen = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  assert.match(frozen.stderr, /commit is resolved anew/);
  for (const name of ["alpha", "beta"]) {
    assert.ok(await Deno.stat(join(clone, ".agents", "skills", name, "SKILL.md")), name);
  }
  assert.deepEqual(await hashes(join(clone, ".agents", "skills", "alpha")), alpha.files);
});

Deno.test("vercel-labs' skills CLI installs the commit we locked, not where the branch moved since (a git server over HTTPS on loopback)", async () => {
  await using p = await project();
  const served = join(p.dir, "srv");
  await Deno.mkdir(served);
  const repo = await createRepo(served, "upstream", collection());
  const server = await startGitHttpsServer(served, p.dir);
  try {
    const url = `${server.origin}/upstream.git`;
    const env = { GIT_SSL_CAINFO: server.caFile };
    const add = await p.cli(["add", url, "--project", "--skill", "alpha", "--yes"], { env });
    assert.equal(add.code, 0, add.stderr);
    const locked = (await p.lock()).skills.alpha!;
    assert.equal(locked.ref, locked.commit, "the peer's ref names the locked commit");
    const clone = await freshClone(p.root, p.dir);
    await repo.commit({ "skills/alpha/SKILL.md": skillMd("alpha", "Moved on upstream.") });

    const restored = await peer(clone, p.dir, ["experimental_install"], env);
    assert.equal(restored.code, 0, restored.text);
    assert.deepEqual(await hashes(join(clone, ".agents", "skills", "alpha")), locked.files);
  } finally {
    await server.close();
  }
});
