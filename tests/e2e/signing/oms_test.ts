/**
 * OpenSSF Model Signing over a skill folder, end to end: a `skill.oms.sig` made in the test
 * with a cosign-format key (a key-based Sigstore bundle whose DSSE envelope carries the OMS v1.0
 * statement listing every file and its sha256). Under a policy that requires signatures and
 * trusts that key: the signed skill installs, recorded as OMS; a changed file or an unlisted one
 * (22), another key (23) and a folder without a signature (21) are refused, nothing installed.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import crypto from "node:crypto";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { cosignKeyPair } from "../../helpers/private_sigstore.ts";
import { readTree, writeShellSkill } from "../../helpers/tree.ts";

/** Every file of `dir` (relative path → sha256 hex), the signature aside. */
async function digests(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [path, text] of await readTree(dir)) {
    if (path === "skill.oms.sig") continue;
    out[path] = crypto.createHash("sha256").update(Buffer.from(text)).digest("hex");
  }
  return out;
}

/** Writes `dir/skill.oms.sig`: the OMS v1.0 statement of its files, signed with `signer`. */
async function omsSign(dir: string, signer: ReturnType<typeof cosignKeyPair>) {
  const files = await digests(dir);
  const resources = Object.keys(files).sort().map((name) => ({
    name,
    algorithm: "sha256",
    digest: files[name]!,
  }));
  const root = crypto.createHash("sha256")
    .update(Buffer.concat(resources.map((r) => Buffer.from(r.digest, "hex")))).digest("hex");
  const statement = {
    _type: "https://in-toto.io/Statement/v1",
    subject: [{ name: dir.split("/").pop(), digest: { sha256: root } }],
    predicateType: "https://model_signing/signature/v1.0",
    predicate: {
      resources,
      serialization: {
        method: "files",
        hash_type: "sha256",
        allow_symlinks: false,
        ignore_paths: [],
      },
    },
  };
  const bundle = signer.signDsse(new TextEncoder().encode(JSON.stringify(statement)));
  await Deno.writeTextFile(join(dir, "skill.oms.sig"), JSON.stringify(bundle));
}

Deno.test("skill.oms.sig: a signed folder installs as OMS; a changed or unlisted file (22), another key (23), no signature (21) are refused", async () => {
  await using tmp = await tempDir();
  const nvidia = cosignKeyPair();
  const other = cosignKeyPair();
  await Deno.writeTextFile(join(tmp.path, "publisher.pub"), nvidia.pub);
  const policy = join(tmp.path, "policy.yaml");
  await Deno.writeTextFile(policy, "signatures:\n  required: true\n  keys: [publisher.pub]\n");
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path, SKILLS_SYSTEM_POLICY: policy };
  const skill = async (name: string) => {
    const dir = join(tmp.path, name);
    await writeShellSkill(dir, `name: ${name}\ndescription: Verified.`, `# ${name}\n`);
    return dir;
  };
  const good = await skill("good");
  await omsSign(good, nvidia);
  const changed = await skill("changed");
  await omsSign(changed, nvidia);
  await Deno.writeTextFile(join(changed, "scripts", "run.sh"), "#!/bin/sh\necho changed\n");
  const extra = await skill("extra");
  await omsSign(extra, nvidia);
  await Deno.writeTextFile(join(extra, "notes.md"), "added after signing\n");
  const foreign = await skill("foreign");
  await omsSign(foreign, other);
  const plain = await skill("plain");

  for (
    const [dir, code, says] of [
      [changed, 22, /scripts\/run\.sh changed/],
      [extra, 22, /notes\.md is not listed/],
      [foreign, 23, /not signed by a trusted key/],
      [plain, 21, /it is not signed/],
    ] as const
  ) {
    const refused = await runCli(["add", dir, "--yes"], { env });
    assert.equal(refused.code, code, `${dir}: ${refused.stderr}`);
    assert.match(refused.stderr, says);
    assert.deepEqual(await readTree(home).catch(() => new Map()), new Map(), "nothing installed");
  }
  const added = await runCli(["add", good, "--yes"], { env });
  assert.equal(added.code, 0, added.stderr);
  const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
  assert.equal(entry.signed.format, "oms");
  assert.match(entry.signed.key, /^SHA256:/);
  const info = await runCli(["info", "good"], { env });
  assert.match(info.stdout, /^Signature +OpenSSF model signing \(skill\.oms\.sig\), key SHA256:/m);
});
