/**
 * A project's proof of what it runs, through the real CLI: `skills lock export` as CycloneDX
 * 1.6 and SPDX 2.3 checked by independent validators against the official schemas; the set
 * digest, which moves with any file of any skill and with nothing else; an attestation signed
 * with a real SSH key that `lock verify` accepts for the installed set and refuses — with exit
 * statuses of their own — when a file changed (25), the signer is not allowed (23), or the
 * envelope was tampered with (22).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { project } from "../../helpers/project.ts";
import { writeShellSkill, writeSkillMd } from "../../helpers/tree.ts";
import { cycloneDx16, spdx23 } from "../../helpers/sbom_schemas.ts";
import { sshKeyPair } from "../../helpers/ssh_keys.ts";

/** A fresh SSH key `dir/name` and an allowed-signers file naming it. */
async function keypair(dir: string, name: string): Promise<{ key: string; signers: string }> {
  const { key, line } = await sshKeyPair(dir, name);
  const signers = join(dir, `${name}.allowed`);
  await Deno.writeTextFile(signers, line);
  return { key, signers };
}

/** A project with two locked skills, one with a script, network and environment grants. */
async function lockedProject() {
  const p = await project();
  await writeShellSkill(
    join(p.dir, "src-skills", "alpha"),
    "name: alpha\ndescription: First.\npermissions:\n  env: [ALPHA_*]\n  network: [api.example.com:443]",
    "# Alpha\n",
  );
  await writeSkillMd(
    join(p.dir, "src-skills", "beta"),
    "name: beta\ndescription: Second.",
    "# B\n",
  );
  for (const name of ["alpha", "beta"]) {
    const add = await p.cli(["add", join(p.dir, "src-skills", name), "--project", "--yes"]);
    assert.equal(add.code, 0, add.stderr);
  }
  return p;
}

Deno.test("lock export writes CycloneDX 1.6 and SPDX 2.3 that validate against the official schemas, with every skill's source, files, permissions and signer", async () => {
  await using p = await lockedProject();
  const lock = await p.lock();
  const cdxOut = await p.cli(["lock", "export", "--format", "cyclonedx"]);
  assert.equal(cdxOut.code, 0, cdxOut.stderr);
  const bom = JSON.parse(cdxOut.stdout);
  assert.deepEqual((await cycloneDx16())(bom), []);
  const alpha = bom.components.find((c: { name: string }) => c.name === "alpha");
  assert.equal(alpha.hashes[0].content, lock.skills.alpha!.digest.slice(7));
  const props = Object.fromEntries(
    alpha.properties.map((x: { name: string; value: string }) => [x.name, x.value]),
  );
  assert.equal(props["skills:permissions.env"], "ALPHA_*");
  assert.equal(props["skills:permissions.network"], "api.example.com:443");
  assert.equal(props["skills:signer"], "unsigned");
  assert.equal(props["skills:source-type"], "local");
  const files = Object.fromEntries(
    alpha.components.map((f: { name: string; hashes: { content: string }[] }) => [
      f.name,
      f.hashes[0]!.content,
    ]),
  );
  assert.deepEqual(files, lock.skills.alpha!.files);
  // A broken document is refused by the same validator: it is checking something.
  assert.notDeepEqual((await cycloneDx16())({ ...bom, specVersion: 1.6 }), []);

  const out = join(p.dir, "bom.spdx.json");
  const spdxOut = await p.cli(["lock", "export", "--format", "spdx", "-o", out]);
  assert.equal(spdxOut.code, 0, spdxOut.stderr);
  assert.equal(spdxOut.stdout, "");
  const doc = JSON.parse(await Deno.readTextFile(out));
  assert.deepEqual((await spdx23())(doc), []);
  assert.notDeepEqual((await spdx23())({ ...doc, packages: [{ name: "x" }] }), []);
  assert.deepEqual(doc.packages.map((x: { name: string }) => x.name), ["alpha", "beta"]);
  const alphaFiles = doc.files.filter((f: { fileName: string }) =>
    f.fileName.startsWith("./alpha/")
  );
  assert.equal(alphaFiles.length, Object.keys(lock.skills.alpha!.files).length);

  const bad = await p.cli(["lock", "export", "--format", "xml"]);
  assert.equal(bad.code, 2);
});

Deno.test("the set digest changes when any file of any skill changes, and not otherwise", async () => {
  await using p = await lockedProject();
  const digest = async (...flags: string[]) => {
    const r = await p.cli(["lock", "digest", ...flags]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  };
  const locked = await digest();
  assert.match(locked, /^sha256:[0-9a-f]{64}$/);
  assert.equal(await digest("--installed"), locked, "installed as locked");

  // Not otherwise: a file rewritten with the same bytes, a new modification time, another
  // source URL for the same files in the lockfile.
  const script = join(p.root, ".agents", "skills", "alpha", "scripts", "run.sh");
  const original = await Deno.readTextFile(script);
  await Deno.writeTextFile(script, original);
  await Deno.utime(script, new Date(2001, 1, 1), new Date(2001, 1, 1));
  assert.equal(await digest("--installed"), locked);
  const lockPath = join(p.root, "skills-lock.json");
  const lockText = await Deno.readTextFile(lockPath);
  const moved = JSON.parse(lockText);
  moved.skills.beta.source = "/elsewhere/beta";
  if ("sourceUrl" in moved.skills.beta) moved.skills.beta.sourceUrl = "/elsewhere/beta";
  await Deno.writeTextFile(lockPath, JSON.stringify(moved, null, 2));
  assert.equal(await digest(), locked);
  await Deno.writeTextFile(lockPath, lockText);

  // Any file of any skill: one byte of alpha's script, beta's SKILL.md, a new file.
  await Deno.writeTextFile(script, original + "#\n");
  const changedAlpha = await digest("--installed");
  assert.notEqual(changedAlpha, locked);
  await Deno.writeTextFile(script, original);
  assert.equal(await digest("--installed"), locked);
  const betaMd = join(p.root, ".agents", "skills", "beta", "SKILL.md");
  const beta = await Deno.readTextFile(betaMd);
  await Deno.writeTextFile(betaMd, beta.replace("# B", "# C"));
  const changedBeta = await digest("--installed");
  assert.notEqual(changedBeta, locked);
  assert.notEqual(changedBeta, changedAlpha);
  await Deno.writeTextFile(betaMd, beta);
  await Deno.writeTextFile(join(p.root, ".agents", "skills", "beta", "extra.txt"), "x");
  assert.notEqual(await digest("--installed"), locked);
});

Deno.test("lock attest signs the set; lock verify accepts the installed set and refuses a changed file (25), a signer not allowed (23) and a tampered envelope (22)", async () => {
  await using p = await lockedProject();
  const alice = await keypair(p.dir, "alice");
  const mallory = await keypair(p.dir, "mallory");
  const attestation = join(p.dir, "set.att.json");
  const attest = await p.cli(["lock", "attest", "--sign", alice.key, "-o", attestation]);
  assert.equal(attest.code, 0, attest.stderr);
  const envelope = JSON.parse(await Deno.readTextFile(attestation));
  assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
  const statement = JSON.parse(atob(envelope.payload));
  const locked = (await p.cli(["lock", "digest"])).stdout.trim();
  assert.equal(statement.predicate.setDigest, locked);
  assert.equal(statement.subject[0].digest.sha256, locked.slice(7));

  const verify = (signers: string, file = attestation) =>
    p.cli(["lock", "verify", "--attestation", file, "--allowed-signers", signers, "--json"]);
  const ok = await verify(alice.signers);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).signer, "alice@example.com");

  // Allowed signers from $SKILLS_HOME when none is named.
  await Deno.mkdir(p.home, { recursive: true });
  await Deno.copyFile(alice.signers, join(p.home, "allowed_signers"));
  const fromHome = await p.cli(["lock", "verify", "--attestation", attestation]);
  assert.equal(fromHome.code, 0, fromHome.stderr);

  const notAllowed = await verify(mallory.signers);
  assert.equal(notAllowed.code, 23, notAllowed.stderr);
  assert.match(notAllowed.stderr, /not in the allowed signers/);

  const tampered = join(p.dir, "tampered.json");
  const forged = {
    ...statement,
    predicate: { ...statement.predicate, setDigest: `sha256:${"0".repeat(64)}` },
  };
  await Deno.writeTextFile(
    tampered,
    JSON.stringify({ ...envelope, payload: btoa(JSON.stringify(forged)) }),
  );
  const refusedTamper = await verify(alice.signers, tampered);
  assert.equal(refusedTamper.code, 22, refusedTamper.stderr);
  assert.match(refusedTamper.stderr, /does not verify/);

  const script = join(p.root, ".agents", "skills", "alpha", "scripts", "run.sh");
  await Deno.writeTextFile(script, "#!/bin/sh\necho changed\n");
  const mismatch = await verify(alice.signers);
  assert.equal(mismatch.code, 25, mismatch.stderr);
  assert.match(mismatch.stderr, /not the attested set .*alpha changed/);
});
