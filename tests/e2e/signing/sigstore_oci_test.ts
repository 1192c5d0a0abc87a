/**
 * Sigstore signatures of OCI skills end to end, offline: skills published to a real registry
 * (Debian's docker-registry, no referrers API) and signed the way cosign attaches signatures
 * there — the `sha256-<hex>.sig` tag, a "simple signing" payload per layer with the signature,
 * certificate and Rekor bundle in its annotations — by a private Sigstore the test makes (a CA
 * as Fulcio, a key as Rekor; SKILLS_TRUSTED_ROOT names its trusted root), and by a cosign-format
 * key pair. Under a policy that requires signatures: the right identity and the right key
 * install and are recorded; a tampered signature (22), a wrong identity (23), an expired
 * certificate (24) and an unsigned skill (21) are refused with nothing installed.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import crypto from "node:crypto";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { startRegistry } from "../../helpers/oci_registry.ts";
import { readTree, writeSkillMd } from "../../helpers/tree.ts";
import {
  cosignKeyPair,
  type Identity,
  privateSigstore,
  trustingEnv,
} from "../../helpers/private_sigstore.ts";
import { RegistryClient } from "../../../src/runtime/oci/client.ts";

const ISSUER = "https://issuer.test.local";
const ALICE: Identity = { san: "email:alice@example.com", issuer: ISSUER };
const MALLORY: Identity = { san: "email:mallory@example.com", issuer: ISSUER };

/** cosign's simple-signing payload for a manifest digest. */
function simpleSigning(reference: string, digest: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({
    critical: {
      identity: { "docker-reference": reference },
      image: { "docker-manifest-digest": digest },
      type: "cosign container image signature",
    },
    optional: null,
  }));
}

/** The annotations cosign writes on a signature layer, from a bundle over the payload. */
function cosignAnnotations(bundle: Record<string, unknown>): Record<string, string> {
  // deno-lint-ignore no-explicit-any
  const b = bundle as any;
  const annotations: Record<string, string> = {
    "dev.cosignproject.cosign/signature": b.messageSignature.signature,
  };
  const cert = b.verificationMaterial.certificate?.rawBytes;
  if (cert !== undefined) {
    annotations["dev.sigstore.cosign/certificate"] = `-----BEGIN CERTIFICATE-----\n${
      cert.match(/.{1,64}/g).join("\n")
    }\n-----END CERTIFICATE-----\n`;
    const entry = b.verificationMaterial.tlogEntries[0];
    annotations["dev.sigstore.cosign/bundle"] = JSON.stringify({
      SignedEntryTimestamp: entry.inclusionPromise.signedEntryTimestamp,
      Payload: {
        body: entry.canonicalizedBody,
        integratedTime: Number(entry.integratedTime),
        logIndex: Number(entry.logIndex),
        logID: Buffer.from(entry.logId.keyId, "base64").toString("hex"),
      },
    });
  }
  return annotations;
}

/** Pushes cosign's `.sig` manifest for `digest`: one layer, `payload`, with `annotations`. */
async function attachCosign(
  client: RegistryClient,
  repository: string,
  digest: string,
  payload: Uint8Array,
  annotations: Record<string, string>,
) {
  const config = new TextEncoder().encode("{}");
  const configDigest = await client.pushBlob(repository, config);
  const layerDigest = await client.pushBlob(repository, payload);
  const manifest = new TextEncoder().encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: configDigest,
      size: 2,
    },
    layers: [{
      mediaType: "application/vnd.dev.cosign.simplesigning.v1+json",
      digest: layerDigest,
      size: payload.length,
      annotations,
    }],
  }));
  const tag = `${digest.replace(":", "-")}.sig`;
  await client.putManifest(repository, tag, manifest, "application/vnd.oci.image.manifest.v1+json");
}

Deno.test("Sigstore-signed OCI skills under a policy: identity and key accepted and recorded; tampered (22), wrong identity (23), expired (24), unsigned (21) refused with nothing installed", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const sigstore = await privateSigstore(tmp.path);
    const cosign = cosignKeyPair();
    await Deno.writeTextFile(join(tmp.path, "cosign.pub"), cosign.pub);
    const fingerprint = `SHA256:${
      crypto.createHash("sha256").update(
        crypto.createPublicKey(cosign.pub).export({ type: "spki", format: "der" }),
      ).digest("base64").replace(/=+$/, "")
    }`;
    const { home, env } = await trustingEnv(
      tmp.path,
      sigstore,
      [
        "signatures:",
        "  required: true",
        `  signers: ["${ISSUER}|alice@example.com", "key:${fingerprint}"]`,
        "  keys: [cosign.pub]",
        "",
      ].join("\n"),
    );
    const client = new RegistryClient({ registry: registry.host });
    const published: Record<string, string> = {};
    for (const name of ["good", "keyed", "tampered", "mallory", "expired", "plain"]) {
      await writeSkillMd(
        join(tmp.path, name),
        `name: ${name}\ndescription: A skill.`,
        `# ${name}\n`,
      );
      const out = await runCli(
        ["publish", join(tmp.path, name), `oci://${registry.host}/team/${name}:v1`, "--json"],
        { env: { HOME: tmp.path } },
      );
      assert.equal(out.code, 0, out.stderr);
      published[name] = JSON.parse(out.stdout).digest;
    }
    const sign = async (name: string, identity: Identity, at?: Date, edit = false) => {
      const payload = simpleSigning(`${registry.host}/team/${name}`, published[name]!);
      const bundle = await sigstore.sign(payload, identity, at);
      const pushed = edit
        ? new TextEncoder().encode(new TextDecoder().decode(payload) + " ")
        : payload;
      await attachCosign(
        client,
        `team/${name}`,
        published[name]!,
        pushed,
        cosignAnnotations(bundle),
      );
    };
    await sign("good", ALICE);
    await sign("tampered", ALICE, undefined, true);
    await sign("mallory", MALLORY);
    await sign("expired", ALICE, new Date(Date.now() + 3 * 86_400_000));
    const keyedPayload = simpleSigning(`${registry.host}/team/keyed`, published.keyed!);
    await attachCosign(
      client,
      "team/keyed",
      published.keyed!,
      keyedPayload,
      cosignAnnotations(cosign.sign(keyedPayload)),
    );

    const add = (name: string) =>
      runCli(["add", `oci://${registry.host}/team/${name}:v1`, "--yes"], { env });
    for (
      const [name, code, says] of [
        ["tampered", 22, /Sigstore signature does not verify/],
        ["mallory", 23, /mallory@example\.com, an identity nobody accepted/],
        ["expired", 24, /certificate was not valid when it signed/],
        ["plain", 21, /it is not signed, and .*\(signatures\.required\)/],
      ] as const
    ) {
      const refused = await add(name);
      assert.equal(refused.code, code, `${name}: ${refused.stderr}`);
      assert.match(refused.stderr, says);
      assert.deepEqual(
        await readTree(home).catch(() => new Map()),
        new Map(),
        `${name}: nothing installed`,
      );
    }

    const good = await add("good");
    assert.equal(good.code, 0, good.stderr);
    const keyed = await add("keyed");
    assert.equal(keyed.code, 0, keyed.stderr);
    const entries = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills;
    const signed = Object.fromEntries(
      entries.map((e: { name: string; signed: unknown }) => [e.name, e.signed]),
    );
    assert.deepEqual(signed.good, { by: "alice@example.com", issuer: ISSUER, format: "sigstore" });
    assert.deepEqual(signed.keyed, {
      by: `key:${fingerprint}`,
      key: fingerprint,
      format: "sigstore",
    });
    const info = await runCli(["info", "good"], { env });
    assert.match(info.stdout, /Signed by +alice@example\.com/);
  } finally {
    await registry.close();
  }
});
