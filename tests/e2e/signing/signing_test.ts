/**
 * The signer policy end to end, with real keys (`ssh-keygen`), a real registry (Debian's
 * docker-registry, which has no referrers API, so the `sha256-<hex>.sig` tag carries the
 * signature) and real git repositories: the right signature is accepted and recorded, a wrong
 * key, an unsigned artifact or commit refused with nothing installed; a project's
 * `.agents/allowed_signers` applies to its skills, in `add --project` and `install --frozen`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { sshKeyPair as keypair } from "../../helpers/ssh_keys.ts";
import { startRegistry } from "../../helpers/oci_registry.ts";
import { project } from "../../helpers/project.ts";
import { readTree, writeSkillMd } from "../../helpers/tree.ts";

function writeSkill(dir: string, name: string, body = "Hello."): Promise<void> {
  return writeSkillMd(dir, `name: ${name}\ndescription: A signed skill.`, `# ${name}\n\n${body}\n`);
}

/** Two signers' key pairs in `dir`: alice (the one a policy lists) and mallory. */
async function aliceAndMallory(dir: string) {
  return { alice: await keypair(dir, "alice"), mallory: await keypair(dir, "mallory") };
}

Deno.test("publish --sign and add under $SKILLS_HOME/allowed_signers: the right signer is accepted and recorded; a wrong key and an unsigned artifact are refused with nothing installed", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const { alice, mallory } = await aliceAndMallory(tmp.path);
    const home = join(tmp.path, "home");
    await Deno.mkdir(home);
    await Deno.writeTextFile(join(home, "allowed_signers"), alice.line);
    const env = { SKILLS_HOME: home, HOME: tmp.path };
    await writeSkill(join(tmp.path, "good"), "good");
    await writeSkill(join(tmp.path, "evil"), "evil");
    await writeSkill(join(tmp.path, "plain"), "plain");

    const signed = await runCli([
      "publish",
      join(tmp.path, "good"),
      `oci://${registry.host}/team/good:v1`,
      "--sign",
      alice.key,
      "--json",
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    const published = JSON.parse(signed.stdout);
    // docker-registry 2.8 has no referrers API: the signature went to the fallback tag.
    assert.equal(published.signature.via, "tag");
    const hex = published.digest.slice("sha256:".length);
    const tagged = await fetch(
      `http://${registry.host}/v2/team/good/manifests/sha256-${hex}.sig`,
      { headers: { Accept: "application/vnd.oci.image.manifest.v1+json" } },
    ).then((r) => r.json());
    assert.equal(tagged.subject.digest, published.digest);
    assert.equal(tagged.artifactType, "application/vnd.agentskills.signature.ssh.v1");

    const wrong = await runCli([
      "publish",
      join(tmp.path, "evil"),
      `oci://${registry.host}/team/evil:v1`,
      "--sign",
      mallory.key,
    ]);
    assert.equal(wrong.code, 0, wrong.stderr);
    const unsigned = await runCli([
      "publish",
      join(tmp.path, "plain"),
      `oci://${registry.host}/team/plain:v1`,
    ]);
    assert.equal(unsigned.code, 0, unsigned.stderr);

    const before = await readTree(home);
    const refusedWrong = await runCli(["add", `oci://${registry.host}/team/evil:v1`, "--yes"], {
      env,
    });
    assert.equal(refusedWrong.code, 1);
    assert.match(refusedWrong.stderr, /its signer is not in the allowed signers/);
    const refusedPlain = await runCli(["add", `oci://${registry.host}/team/plain:v1`, "--yes"], {
      env,
    });
    assert.equal(refusedPlain.code, 1);
    assert.match(refusedPlain.stderr, /it is not signed/);
    assert.match(refusedPlain.stderr, /nothing was installed/);
    assert.deepEqual(await readTree(home), before, "nothing installed");

    const accepted = await runCli(["add", `oci://${registry.host}/team/good:v1`, "--yes"], {
      env,
    });
    assert.equal(accepted.code, 0, accepted.stderr);
    const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
    assert.deepEqual(entry.signed, { by: "alice@example.com", format: "ssh" });
    const info = await runCli(["info", "good"], { env });
    assert.match(info.stdout, /^Manifest +sha256:[0-9a-f]{64}$/m);
    assert.match(info.stdout, /^Signed by +alice@example\.com$/m);
    const infoJson = JSON.parse((await runCli(["info", "good", "--json"], { env })).stdout);
    assert.equal(infoJson.signed_by, "alice@example.com");

    // Without a policy, an unsigned artifact installs as before.
    const free = await runCli(["add", `oci://${registry.host}/team/plain:v1`, "--yes"], {
      env: { SKILLS_HOME: join(tmp.path, "free"), HOME: tmp.path },
    });
    assert.equal(free.code, 0, free.stderr);
  } finally {
    await registry.close();
  }
});

Deno.test("a project's .agents/allowed_signers applies to add --project and install --frozen; the lockfile records who signed", async () => {
  const registry = await startRegistry();
  await using p = await project();
  try {
    const { alice, mallory } = await aliceAndMallory(p.dir);
    await Deno.mkdir(join(p.root, ".agents"), { recursive: true });
    await Deno.writeTextFile(join(p.root, ".agents", "allowed_signers"), alice.line);
    await writeSkill(join(p.dir, "demo"), "demo");
    const ref = `oci://${registry.host}/team/demo:v1`;
    const pub = await runCli(["publish", join(p.dir, "demo"), ref, "--sign", alice.key]);
    assert.equal(pub.code, 0, pub.stderr);

    const add = await p.cli(["add", ref, "--project", "--yes"]);
    assert.equal(add.code, 0, add.stderr);
    const lock = await p.lock();
    assert.deepEqual((lock.skills.demo as unknown as { signed: unknown }).signed, {
      by: "alice@example.com",
      format: "ssh",
    });
    await git(p.root, ["add", "-A"]);
    await git(p.root, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "skills"]);

    // The same digest signed by mallory only: a fresh clone under the policy refuses it.
    const clone = join(p.dir, "clone");
    await git(p.dir, ["clone", "--quiet", p.root, clone]);
    await Deno.remove(join(clone, ".agents", "skills", "demo"), { recursive: true });
    const ok = await p.cli(["install", "--frozen"], { cwd: clone });
    assert.equal(ok.code, 0, ok.stderr);

    await Deno.writeTextFile(join(clone, ".agents", "allowed_signers"), mallory.line);
    await Deno.remove(join(clone, ".agents", "skills", "demo"), { recursive: true });
    const refused = await p.cli(["install", "--frozen"], { cwd: clone });
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stdout + refused.stderr, /its signer is not in the allowed signers/);
    assert.deepEqual(await readTree(join(clone, ".agents", "skills")), new Map());
  } finally {
    await registry.close();
  }
});

Deno.test("git sources under the policy: a commit signed by an allowed key installs, an unsigned one is refused, and the repository's own gpg config is ignored", async () => {
  await using tmp = await tempDir();
  const { alice, mallory } = await aliceAndMallory(tmp.path);
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "allowed_signers"), alice.line);
  const env = { SKILLS_HOME: home, HOME: tmp.path };
  const sign = (key: string) => ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}.pub`];

  const repo = join(tmp.path, "repo");
  await writeSkill(repo, "gsk");
  await git(tmp.path, ["init", "--quiet", repo]);
  await git(repo, ["add", "-A"]);
  await git(repo, [...sign(alice.key), "commit", "-qS", "-m", "signed by alice"]);
  const signed = await runCli(["add", `file://${repo}`, "--yes"], { env });
  assert.equal(signed.code, 0, signed.stderr);
  const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
  assert.deepEqual(entry.signed, { by: "alice@example.com", format: "ssh" });

  // An unsigned commit on top: update refuses it and keeps the signed version.
  await writeSkill(repo, "gsk", "Changed without a signature.");
  await git(repo, ["commit", "-qam", "unsigned"]);
  const before = await readTree(home);
  const update = await runCli(["update", "gsk", "--yes"], { env });
  assert.equal(update.code, 1, update.stdout);
  assert.match(update.stderr, /its commit is not signed/);
  assert.deepEqual(await readTree(home), before);

  // The repository names its own allowed signers (mallory) and signs with mallory: ignored.
  const hostile = join(tmp.path, "hostile");
  await writeSkill(hostile, "hostile");
  await git(tmp.path, ["init", "--quiet", hostile]);
  await Deno.writeTextFile(join(hostile, "signers"), mallory.line);
  await git(hostile, ["config", "gpg.ssh.allowedSignersFile", join(hostile, "signers")]);
  await git(hostile, ["add", "-A"]);
  await git(hostile, [...sign(mallory.key), "commit", "-qS", "-m", "signed by mallory"]);
  const refused = await runCli(["add", `file://${hostile}`, "--yes"], { env });
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, /its signer is not in the allowed signers|not signed/);
  assert.deepEqual(await readTree(home), before, "nothing installed");
});
