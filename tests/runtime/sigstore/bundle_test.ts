/**
 * verifySigstoreBundle() with real signatures: public bundles and trusted roots from the
 * Sigstore conformance suite (tests/fixtures/sigstore, origin in its README) against the
 * public-good root the binary ships and a conformance root with a managed key; and bundles
 * made during the test by a private Sigstore (tests/helpers/private_sigstore.ts). Each refusal
 * has its own code.
 */

import assert from "node:assert/strict";
import { verifySigstoreBundle } from "../../../src/runtime/sigstore/bundle.ts";
import { cosignKeyPair, privateSigstore } from "../../helpers/private_sigstore.ts";
import { tempDir } from "../../helpers/cli.ts";

const FIXTURES = new URL("../../fixtures/sigstore/", import.meta.url);
const readJson = async (url: URL) => JSON.parse(await Deno.readTextFile(url));
const PUBLIC_GOOD = new URL(
  "../../../src/runtime/sigstore/public_good_trusted_root.json",
  import.meta.url,
);
const BEACON =
  "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
const GITHUB = "https://token.actions.githubusercontent.com";

async function refusedWith(promise: Promise<unknown>, code: string): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.equal((error as { code?: string }).code, code, (error as Error).message);
    return (error as Error).message;
  }
  assert.fail(`expected ${code}`);
}

Deno.test("a public keyless bundle verifies against the shipped public-good root: identity and issuer from its certificate; a changed artifact and another identity are refused", async () => {
  const bundle = await readJson(new URL("conformance-v0.3/bundle.sigstore.json", FIXTURES));
  const artifact = await Deno.readFile(new URL("conformance-v0.3/a.txt", FIXTURES));
  const trust = {
    trustedRoot: await readJson(PUBLIC_GOOD),
    identities: [`${GITHUB}|https://github.com/sigstore-conformance/*`],
    keys: [],
  };
  const signer = await verifySigstoreBundle(bundle, artifact, trust, "a.txt");
  assert.deepEqual(signer, { by: BEACON, issuer: GITHUB, format: "sigstore" });
  const changed = new Uint8Array([...artifact, 0x0a]);
  await refusedWith(verifySigstoreBundle(bundle, changed, trust, "a.txt"), "signature_invalid");
  const other = { ...trust, identities: [`${GITHUB}|https://github.com/acme/*`] };
  const message = await refusedWith(
    verifySigstoreBundle(bundle, artifact, other, "a.txt"),
    "signer_not_allowed",
  );
  assert.match(message, /an identity nobody accepted/);
});

Deno.test("a public key-based bundle verifies with its cosign-format public key, not with another", async () => {
  const bundle = await readJson(new URL("managed-key/bundle.sigstore.json", FIXTURES));
  const artifact = await Deno.readFile(new URL("conformance-v0.3/a.txt", FIXTURES));
  const trustedRoot = await readJson(new URL("managed-key/trusted_root.json", FIXTURES));
  const key = await Deno.readTextFile(new URL("managed-key/key.pub", FIXTURES));
  const signer = await verifySigstoreBundle(bundle, artifact, {
    trustedRoot,
    identities: [],
    keys: [key],
  }, "a.txt");
  assert.equal(signer.format, "sigstore");
  assert.match(signer.key!, /^SHA256:[A-Za-z0-9+/]{43}$/);
  await refusedWith(
    verifySigstoreBundle(bundle, artifact, {
      trustedRoot,
      identities: [],
      keys: [cosignKeyPair().pub],
    }, "a.txt"),
    "signer_not_allowed",
  );
});

Deno.test("bundles of a private Sigstore made by the test: accepted for the right identity; tampered, wrong identity, expired certificate, another root each refused with its own code", async () => {
  await using dir = await tempDir();
  const sigstore = await privateSigstore(dir.path);
  const artifact = new TextEncoder().encode("sha256:0123 a skill's manifest");
  const alice = {
    san: "URI:https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main",
    issuer: GITHUB,
  };
  const trust = {
    trustedRoot: sigstore.trustedRoot,
    identities: [`${GITHUB}|https://github.com/acme/*`],
    keys: [],
  };
  const bundle = await sigstore.sign(artifact, alice);
  assert.deepEqual(await verifySigstoreBundle(bundle, artifact, trust, "x"), {
    by: "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main",
    issuer: GITHUB,
    format: "sigstore",
  });
  await refusedWith(
    verifySigstoreBundle(
      bundle,
      new TextEncoder().encode("sha256:0124 a skill's manifest"),
      trust,
      "x",
    ),
    "signature_invalid",
  );
  const evil = await sigstore.sign(artifact, {
    ...alice,
    san: "URI:https://github.com/evil/skills/x.yml@refs/heads/main",
  });
  await refusedWith(verifySigstoreBundle(evil, artifact, trust, "x"), "signer_not_allowed");
  const late = await sigstore.sign(artifact, alice, new Date(Date.now() + 3 * 86_400_000));
  await refusedWith(verifySigstoreBundle(late, artifact, trust, "x"), "certificate_expired");
  // The public-good root knows neither this CA nor this log.
  await refusedWith(
    verifySigstoreBundle(
      bundle,
      artifact,
      { ...trust, trustedRoot: await readJson(PUBLIC_GOOD) },
      "x",
    ),
    "signature_invalid",
  );
});
