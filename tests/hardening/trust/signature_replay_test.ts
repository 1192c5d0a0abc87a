/**
 * A signature is bound to where its artifact was published: the payload `publish --sign`
 * signs names the registry, repository and tag with the manifest digest, and `add` checks
 * them against what it pulls. With a real registry (Debian's docker-registry) and real SSH
 * keys: a signed artifact copied, with its signature, to another repository is refused; an
 * old signed version tagged anew is refused; the artifact where it was signed, by tag or by
 * digest, installs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { sshKeyPair as keypair } from "../../helpers/ssh_keys.ts";
import { copyManifest, startRegistry } from "../../helpers/oci_registry.ts";
import { readTree, writeSkillMd } from "../../helpers/tree.ts";

Deno.test("a signed artifact copied to another repository, or an old version re-tagged, is refused", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const alice = await keypair(tmp.path, "alice");
    const home = join(tmp.path, "home");
    await Deno.mkdir(home);
    await Deno.writeTextFile(join(home, "allowed_signers"), alice.line);
    const env = { SKILLS_HOME: home, HOME: tmp.path };
    const publish = async (body: string, tag: string) => {
      const dir = join(tmp.path, `good-${tag}`);
      await writeSkillMd(dir, "name: good\ndescription: A signed skill.", `# good\n\n${body}\n`);
      const out = await runCli([
        "publish",
        dir,
        `oci://${registry.host}/team/good:${tag}`,
        "--sign",
        alice.key,
        "--json",
      ]);
      assert.equal(out.code, 0, out.stderr);
      return JSON.parse(out.stdout).digest as string;
    };
    const v1 = await publish("Version one, with a known hole.", "v1");
    await publish("Version two, the fix.", "v2");

    // Copied with its signature to a repository the signer never published to.
    await copyManifest(registry.host, { repository: "team/good", reference: "v1" }, {
      repository: "evil/good",
      tag: "v1",
    });
    const sig = `sha256-${v1.slice("sha256:".length)}.sig`;
    await copyManifest(registry.host, { repository: "team/good", reference: sig }, {
      repository: "evil/good",
      tag: sig,
    });
    const before = await readTree(home);
    const copied = await runCli(["add", `oci://${registry.host}/evil/good:v1`, "--yes"], { env });
    assert.equal(copied.code, 1, copied.stdout);
    assert.match(
      copied.stderr,
      new RegExp(`signed for ${registry.host}/team/good, not ${registry.host}/evil/good`),
    );
    assert.match(copied.stderr, /nothing was installed/);
    assert.deepEqual(await readTree(home), before, "nothing installed");

    // The old signed version tagged v2 where the fix was published.
    await copyManifest(registry.host, { repository: "team/good", reference: v1 }, {
      repository: "team/good",
      tag: "v2",
    });
    const retagged = await runCli(["add", `oci://${registry.host}/team/good:v2`, "--yes"], {
      env,
    });
    assert.equal(retagged.code, 1, retagged.stdout);
    assert.match(retagged.stderr, /signed as tag v1, not v2/);
    assert.deepEqual(await readTree(home), before, "nothing installed");

    // Where it was signed — by its tag, or pinned by its digest — it installs.
    const pinned = join(tmp.path, "pinned");
    await Deno.mkdir(pinned);
    await Deno.writeTextFile(join(pinned, "allowed_signers"), alice.line);
    const byDigest = await runCli(["add", `oci://${registry.host}/team/good@${v1}`, "--yes"], {
      env: { ...env, SKILLS_HOME: pinned },
    });
    assert.equal(byDigest.code, 0, byDigest.stderr);
    const tagged = await runCli(["add", `oci://${registry.host}/team/good:v1`, "--yes"], { env });
    assert.equal(tagged.code, 0, tagged.stderr);
    assert.match(await Deno.readTextFile(join(home, "good", "SKILL.md")), /Version one/);
  } finally {
    await registry.close();
  }
});

Deno.test("one artifact published and signed under two tags installs by either (the fallback tag keeps both signatures)", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const alice = await keypair(tmp.path, "alice");
    const dir = join(tmp.path, "same");
    await writeSkillMd(dir, "name: same\ndescription: A signed skill.", "# same\n\nHello.\n");
    const digests = [];
    for (const tag of ["1.0.0", "stable"]) {
      const ref = `oci://${registry.host}/team/same:${tag}`;
      const out = await runCli(["publish", dir, ref, "--sign", alice.key, "--json"]);
      assert.equal(out.code, 0, out.stderr);
      digests.push(JSON.parse(out.stdout).digest);
    }
    assert.equal(digests[0], digests[1], "the same content, one digest");
    for (const tag of ["1.0.0", "stable"]) {
      const home = join(tmp.path, `home-${tag}`);
      await Deno.mkdir(home);
      await Deno.writeTextFile(join(home, "allowed_signers"), alice.line);
      const add = await runCli(["add", `oci://${registry.host}/team/same:${tag}`, "--yes"], {
        env: { SKILLS_HOME: home, HOME: tmp.path },
      });
      assert.equal(add.code, 0, `${tag}: ${add.stderr}`);
    }
  } finally {
    await registry.close();
  }
});
